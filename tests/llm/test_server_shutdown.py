"""The embedded server never outlives its owner: on Ctrl-C, SIGTERM or SIGKILL of the process that started it.

The real start path runs (`ensure_server` -> `EmbeddedServer.start` -> the child's own `child_main`, parent
watch included); only the model server inside the child is a stand-in answering /v1/models (no model is loaded).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.processes import descendants, wait_for, wait_gone

ROOT = Path(__file__).resolve().parents[2]
MODEL = "gemma3-270m"

# Run as `<stand-in> -m llm.llama_app --model ... --port ... --parent PID ...` (the child's command line).
STANDIN = textwrap.dedent('''\
    #!{python}
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    import llm.llama_app as app

    def fake_model_server(model, path, port, options):
        class Models(BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps({{"data": [{{"id": model}}]}}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        HTTPServer((app.HOST, port), Models).serve_forever()

    app.run_app = fake_model_server
    app.child_main(sys.argv[3:])
''')

OWNER = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    import llm.embedded as embedded

    embedded.ensure_model = lambda model: Path("/dev/null")  # no model file: the stand-in loads nothing
    sys.executable = {standin!r}  # the child command's interpreter: the stand-in
    print(embedded.ensure_server({model!r}, cache_dir=Path({cache!r})), flush=True)
    time.sleep(300)
''')


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_embedded_server_stops_with_its_owner(tmp_path: Path, sig: signal.Signals) -> None:
    standin = tmp_path / "standin"
    standin.write_text(STANDIN.format(python=sys.executable))
    standin.chmod(0o755)
    cache = tmp_path / "llm"
    owner_py = tmp_path / "owner.py"
    owner_py.write_text(OWNER.format(standin=str(standin), model=MODEL, cache=str(cache)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    owner = subprocess.Popen([sys.executable, str(owner_py)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        url = owner.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), owner.stderr.read() if owner.poll() is not None else url
        state = json.loads((cache / f"server-{MODEL}.json").read_text())
        tree = descendants(owner.pid)
        assert state["pid"] in tree  # the announced server is the owner's child
        owner.send_signal(sig)
        owner.wait(timeout=30)
        assert wait_gone(tree, timeout=15) == {}
        if sig == signal.SIGINT:  # a clean exit also withdraws the announcement
            wait_for(lambda: not (cache / f"server-{MODEL}.json").exists(), timeout=5, what="state file withdrawn")
    finally:
        if owner.poll() is None:
            owner.kill()
