"""One atomic writer for every file the package writes: a temporary file in the target's
directory, flushed and fsynced, then ``os.replace``-d over the target. A reader (or a run
killed mid-write) sees the old complete file or the new complete file, never a mix."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "write_text_atomic", "write_bytes_atomic"]


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", newline=None):
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``
    (on an exception it is removed and ``path`` is left as it was)."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got mode={mode!r}")
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        kw = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kw) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Replace ``path`` with ``text`` atomically (no newline translation)."""
    with atomic_write(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    return Path(path)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically."""
    with atomic_write(path, "wb", encoding=None) as fh:
        fh.write(data)
    return Path(path)
