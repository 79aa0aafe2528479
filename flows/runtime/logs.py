"""Where a stage's log goes: everything, tracebacks included, to the workspace log file; the terminal gets
progress lines and one clean line per error (tracebacks only with `-v`).

Prefect logs a failed flow or task run itself, with its traceback, before the stage's own clean error
reaches the command line; on the terminal that traceback buried the message that says what to fix.
"""
from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
from pathlib import Path

from flows.runtime.workspace import project_dir

LOG_FILE = ".cache/logs/hindsight.log"
# Loggers through which Prefect reports the crash of a flow or task run it is running (with the traceback).
ENGINE_LOGGERS = ("prefect.flow_runs", "prefect.task_runs", "prefect.engine")
_FORMAT = "%(asctime)s %(process)d %(levelname)-7s %(name)s: %(message)s"


def log_path() -> Path:
    """The workspace's log file."""
    return project_dir() / LOG_FILE


def quiet(record: logging.LogRecord) -> bool:
    """True for records the terminal leaves to the log file: engine crash reports and those marked console=False."""
    if getattr(record, "console", True) is False:
        return True
    return record.exc_info is not None and record.name.startswith(ENGINE_LOGGERS)


class _Terminal(logging.Filter):
    """Filter of terminal handlers: drops what `quiet` names."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not quiet(record)


class _NoTraceback(logging.Formatter):
    """Wraps a terminal handler's formatter: the message line without its traceback."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        saved = record.exc_info, record.exc_text, record.stack_info
        record.exc_info = record.exc_text = record.stack_info = None  # other handlers (the file) still see them
        try:
            return self.inner.format(record)
        finally:
            record.exc_info, record.exc_text, record.stack_info = saved


class _LogFile(logging.handlers.RotatingFileHandler):
    """The workspace log file handler (a class of its own so a second setup replaces it)."""


def configure_logging(verbose: bool = False) -> Path | None:
    """Set up Prefect's logging, add the log file, and keep tracebacks off the terminal unless `verbose`.

    Returns the log file (None if it cannot be written). Safe to call again (handlers are replaced, not added).
    """
    home = os.environ.get("PREFECT_HOME")
    if home:  # Prefect creates only the last level of its home: in a fresh workspace .cache/ is missing too
        with contextlib.suppress(OSError):
            Path(home).expanduser().mkdir(parents=True, exist_ok=True)
    # Imported only now, once the home exists: Prefect sets up its logging (in PREFECT_HOME) when first imported.
    from prefect.logging import configuration

    if not configuration.PROCESS_LOGGING_CONFIG:  # Prefect configures logging once per process, on import
        configuration.setup_logging()
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _LogFile)]:
        root.removeHandler(handler)
        handler.close()
    path: Path | None = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _LogFile(path, maxBytes=5 << 20, backupCount=1, encoding="utf-8")
        handler.setFormatter(logging.Formatter(_FORMAT))
        root.addHandler(handler)
    except OSError:
        path = None
    for handler in _terminal_handlers():
        for f in [f for f in handler.filters if isinstance(f, _Terminal)]:
            handler.removeFilter(f)
        if isinstance(handler.formatter, _NoTraceback):
            handler.setFormatter(handler.formatter.inner)
        if not verbose:
            handler.addFilter(_Terminal())
            handler.setFormatter(_NoTraceback(handler.formatter))
    return path


def _terminal_handlers() -> list[logging.StreamHandler]:
    loggers = [logging.getLogger(), *(lg for lg in logging.root.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    return [h for lg in loggers for h in lg.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]
