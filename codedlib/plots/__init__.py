"""Plotting: a shared seaborn style and one deterministic figure writer.

Paper-specific ``plot_*`` functions live in the sub-modules (``codedlib.plots.codedreduce`` ...);
each takes data and an optional ``ax`` and returns the ``Figure``. None of them shows or saves.
"""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Held while codedlib renders a figure to PNG/PDF: widget callbacks may run on a kernel
#: subshell thread while a cell executes (JupyterLab >= 4.4 with ipykernel >= 7).
DRAW_LOCK = threading.RLock()

_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}


def set_style(context: str = "notebook") -> None:
    """Apply the companion's plotting style (seaborn ``whitegrid``, colour-blind palette)."""
    import seaborn as sns

    sns.set_theme(context=context, style="whitegrid", palette="colorblind")
    rc = {"figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight", "pdf.compression": 6}
    matplotlib.rcParams.update(rc | {"axes.titlesize": "medium", "svg.hashsalt": "codedlib"})


def subplots(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] = (6.0, 4.0),
    layout: str | None = None,
    **subplot_kw,
) -> tuple[Figure, Axes | np.ndarray]:
    """``pyplot.subplots`` on a figure pyplot never sees (no other thread can show or close it)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(nrows, ncols, **subplot_kw)


def new_axes(
    ax: Axes | None = None, figsize: tuple[float, float] = (6.0, 4.0)
) -> tuple[Figure, Axes]:
    """The given axes and its figure, or a fresh pair."""
    if ax is not None:
        return ax.figure, ax
    return subplots(figsize=figsize)


def figure_png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes with the same fixed metadata as the saved files."""
    buffer = io.BytesIO()
    with DRAW_LOCK:
        fig.savefig(buffer, format="png", metadata=_PNG_METADATA)
    return buffer.getvalue()


def close_figure(fig: Figure) -> None:
    """Forget ``fig`` in pyplot if it was registered there (a no-op for :func:`subplots`)."""
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None and pyplot.fignum_exists(getattr(fig, "number", -1)):
        pyplot.close(fig)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def save_figure(fig: Figure, name: str, fig_dir: str | os.PathLike | None) -> list[Path]:
    """Write ``fig`` as ``<fig_dir>/<name>.png`` and ``.pdf`` (byte-identical on every run;
    ``fig_dir=None``: nothing written) and, in a Jupyter kernel, show those PNG bytes inline
    once, whatever the backend. Returns the written paths."""
    if not name or any(sep in name for sep in ("/", "\\")):
        raise ValueError(f"name must be a plain file stem, got name={name!r}")
    paths: list[Path] = []
    if fig_dir is not None:
        out = Path(fig_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / f"{name}.png", out / f"{name}.pdf"]
        with DRAW_LOCK:
            from codedlib.atomic import atomic_write

            for path, meta in zip(paths, (_PNG_METADATA, _PDF_METADATA)):
                with atomic_write(path, "wb", encoding=None) as fh:  # never a half-written file
                    fig.savefig(fh, format=path.suffix[1:], metadata=meta)
    if _in_kernel():
        from IPython.display import Image, display

        png = paths[0].read_bytes() if paths else figure_png(fig)
        # shown at the figure's own size (savefig.dpi is higher than figure.dpi)
        save_dpi = matplotlib.rcParams["savefig.dpi"]
        save_dpi = fig.dpi if save_dpi == "figure" else float(save_dpi)
        width = int(round(int.from_bytes(png[16:20], "big") * fig.dpi / save_dpi))  # IHDR width
        display(Image(data=png, format="png", width=width), metadata={"codedlib_figure": name})
        close_figure(fig)
    return paths
