"""`hindsight llm serve|ask|stats`: the embedded server, one call through the client, call totals."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `llm` command and its sub-commands."""
    llm = subparsers.add_parser("llm", help="LLM access: serve the embedded model, ask it, show call totals")
    sub = llm.add_subparsers(dest="llm_command", metavar="SUBCOMMAND")
    llm.set_defaults(func=lambda args: (llm.print_help(), 2)[1])

    serve = sub.add_parser("serve", help="run the embedded model server in the foreground (shared by stages)")
    _common(serve)
    serve.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
    serve.set_defaults(func=_serve)

    ask = sub.add_parser("ask", help="one call through the client and its cache")
    ask.add_argument("text", help="the prompt (a user message for chat models, raw text for base models)")
    ask.add_argument("--role", default="actor", help="role to account and configure the call as (default: actor)")
    ask.add_argument("--max-tokens", type=int, default=None, help="cap on generated tokens")
    ask.add_argument("--json", action="store_true", help="print a JSON object instead of the answer")
    _common(ask)
    ask.set_defaults(func=_ask)

    stats = sub.add_parser("stats", help="totals of recorded calls (from the response-cache database)")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.add_argument("--hours", type=float, default=None, help="only calls in the last HOURS hours")
    stats.set_defaults(func=_stats)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--endpoint", default=None, help="'embedded' or an OpenAI-compatible base URL (default: params.yaml)")
    p.add_argument("--model", default=None, help="embedded preset or the endpoint's model name (default: params.yaml)")
    p.add_argument("--params", default="params.yaml", help="params file whose `llm:` section gives the defaults")


def _settings(args: argparse.Namespace) -> Any:
    import yaml

    from llm.settings import LLMSettings

    section: dict[str, Any] = {}
    path = Path(args.params)
    if path.exists():
        section = dict((yaml.safe_load(path.read_text()) or {}).get("llm") or {})
    if args.endpoint:
        section["endpoint"] = args.endpoint
    if args.model:
        section["model"] = args.model
    return LLMSettings.from_params(section)


def _logging(level: int) -> None:
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2", "openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _serve(args: argparse.Namespace) -> int:
    from llm.embedded import serve_foreground
    from llm.llama_app import ServerOptions

    _logging(logging.INFO)
    s = _settings(args)
    if not s.is_embedded:
        print(f"error: llm.endpoint is {s.endpoint!r}; only the embedded model is served", file=sys.stderr)
        return 2
    options = ServerOptions(n_ctx=s.n_ctx, n_threads=s.n_threads, cache_mb=s.cache_mb)
    try:
        return serve_foreground(s.model, options, port=args.port)
    except KeyboardInterrupt:
        return 0


def _ask(args: argparse.Namespace) -> int:
    from llm.client import LLMClient
    from llm.errors import LLMError

    _logging(logging.INFO)
    try:
        settings = _settings(args)
        settings.for_role(args.role)
    except (ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with LLMClient(settings) as client:
        try:
            if client.supports_chat(args.role):
                resp = client.chat(args.role, [{"role": "user", "content": args.text}], max_tokens=args.max_tokens)
            else:
                resp = client.complete(args.role, args.text, max_tokens=args.max_tokens)
        except LLMError as err:
            if args.json:
                print(json.dumps({"error": str(err), "reason": err.reason, "role": err.role}))
            else:
                print(f"error: {err}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps({"answer": resp.text, "model": resp.model, "role": args.role,
                          "prompt_tokens": resp.prompt_tokens, "completion_tokens": resp.completion_tokens,
                          "cached": resp.cached, "seconds": round(resp.seconds, 3), "retries": resp.retries,
                          "finish_reason": resp.finish_reason}, ensure_ascii=False))
    else:
        print(resp.text)
    return 0


def _stats(args: argparse.Namespace) -> int:
    import time

    from llm.paths import llm_cache_dir
    from llm.store import DB_NAME, Store

    db = llm_cache_dir() / DB_NAME
    if not db.exists():
        print(json.dumps({"calls": 0, "rows": []}) if args.json else f"no LLM calls recorded yet ({db})")
        return 0
    store = Store(db)
    since = time.time() - args.hours * 3600 if args.hours else None
    rows, cached = store.totals(since), store.cached_responses()
    store.close()
    keys = ("calls", "prompt_tokens", "completion_tokens", "seconds", "cache_hits", "retries", "errors")
    total = {k: sum(r[k] or 0 for r in rows) for k in keys}
    total["seconds"] = round(total["seconds"], 1)
    if args.json:
        print(json.dumps({**total, "cached_responses": cached, "db": str(db), "rows": rows}))
        return 0
    header = f"{'model':44} {'role':14} {'calls':>7} {'prompt tok':>11} {'gen tok':>9} {'seconds':>9} {'hits':>7} {'retries':>7} {'errors':>6}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['model_id'][:44]:44} {r['role'][:14]:14} {r['calls']:>7} {r['prompt_tokens']:>11} "
              f"{r['completion_tokens']:>9} {r['seconds']:>9.1f} {r['cache_hits']:>7} {r['retries']:>7} {r['errors']:>6}")
    print("-" * len(header))
    print(f"{'total':59} {total['calls']:>7} {total['prompt_tokens']:>11} {total['completion_tokens']:>9} "
          f"{total['seconds']:>9.1f} {total['cache_hits']:>7} {total['retries']:>7} {total['errors']:>6}")
    print(f"{cached} responses cached in {db}")
    return 0
