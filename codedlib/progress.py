"""Progress a person can see in JupyterLab; silence in headless runs.

Long loops of the experiments (seeds, replicas, schemes) are wrapped in :func:`track`. It
shows a progress bar (``tqdm.auto``: an ipywidgets bar in a notebook, text in a terminal) only
after :func:`show_progress` turned it on — the notebooks call ``show_progress(interactive)`` in
their set-up cell, so ``make figures`` (``interactive = False``) and library calls stay quiet —
and only on the main thread: a widget callback running on a kernel subshell must not display
anything (its output would land in another cell or the Log Console; explorers show their own
progress bar instead).

>>> list(track(range(3), "seeds"))   # off by default: the iterable itself
[0, 1, 2]

References: references.bib keys reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag, zhang2021lagc, esfahanizadeh2022stream.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TypeVar

__all__ = ["show_progress", "track"]

T = TypeVar("T")
_enabled = False


def show_progress(enabled: bool = True) -> None:
    """Turn progress bars on (``True``, interactive notebooks) or off (headless runs).

    Parameters
    ----------
    enabled : bool, default True
        Show progress bars.
    """
    global _enabled
    _enabled = bool(enabled)


def track(iterable: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
    """``iterable``, with a progress bar labelled ``desc`` when progress is shown.

    Parameters
    ----------
    iterable : Iterable[T]
        Items to iterate over.
    desc : str
        Label of the progress bar.
    total : int | None, optional
        Number of items, when ``iterable`` has no length.

    Returns
    -------
    T
        The items of ``iterable``.
    """
    if not _enabled or threading.current_thread() is not threading.main_thread():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)
