"""Progress bars after ``show_progress(True)``, never off the main thread (widget callbacks).
>>> list(track(range(3), "seeds"))   # off by default: the iterable itself
[0, 1, 2]
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")
_enabled = False


def show_progress(enabled: bool = True) -> None:
    """Turn progress bars on (``True``, interactive notebooks) or off (headless runs)."""
    global _enabled
    _enabled = bool(enabled)


def track(iterable: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
    """``iterable``, with a progress bar labelled ``desc`` when progress is shown."""
    if not _enabled or threading.current_thread() is not threading.main_thread():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)
