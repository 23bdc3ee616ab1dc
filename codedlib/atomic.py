"""One atomic writer for every file the package writes: a temporary file in the target's
directory, flushed and fsynced, then ``os.replace``-d over the target. A reader (or a run
killed mid-write) sees the old complete file or the new complete file, never a mix."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def atomic_write(
    path: str | Path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
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


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False if impossible."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


@contextlib.contextmanager
def replace_directory(path: str | Path) -> Iterator[Path]:
    """Yield a fresh sibling directory for ``path``'s new contents, then swap it in in one step
    (a reader sees the old complete set or the new one; the old ``path`` is removed whole)."""
    import shutil

    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".new"))
    try:
        yield stage
        for p in stage.iterdir():
            with open(p, "rb") as fh:
                os.fsync(fh.fileno())
        os.chmod(stage, 0o755)
        if not target.exists():
            os.replace(stage, target)
            return
        if not _exchange(stage, target):  # two renames: a kill between them leaves both
            old = target.with_name(f".{target.name}.{os.getpid()}.old")
            os.replace(target, old)
            os.replace(stage, target)
            stage = old
        shutil.rmtree(stage, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
