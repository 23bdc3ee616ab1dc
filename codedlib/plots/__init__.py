"""Plotting: a shared seaborn style and one deterministic figure writer.

Paper-specific ``plot_*`` functions live in the sub-modules (``codedlib.plots.codedreduce`` ...);
each takes data and an optional ``ax`` and returns the ``Figure``. None of them shows or saves.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib

__all__ = ["set_style", "save_figure", "new_axes"]

_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}


def set_style(context: str = "notebook") -> None:
    """Apply the companion's plotting style (seaborn ``whitegrid``, colour-blind palette)."""
    import seaborn as sns

    sns.set_theme(context=context, style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "savefig.bbox": "tight",
            "axes.titlesize": "medium",
            "svg.hashsalt": "codedlib",
            "pdf.compression": 6,
        }
    )


def new_axes(ax=None, figsize=(6.0, 4.0)):
    """Return ``(fig, ax)``: the given axes and its figure, or a fresh pair."""
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def save_figure(fig, name: str, fig_dir: str | os.PathLike | None, *, show: bool = True) -> list[Path]:
    """Write ``fig`` as ``<fig_dir>/<name>.png`` and ``.pdf`` with fixed metadata, and show it.

    The same figure gives byte-identical files on every run (no timestamps or version
    strings). Inside a Jupyter kernel (JupyterLab or papermill) the figure is also displayed
    inline as exactly the PNG bytes written to disk, whatever matplotlib backend the kernel
    runs, and then closed, so it appears once, where the cell draws it. ``fig_dir=None``
    writes nothing (interactive use) but still shows the figure. Returns the written paths.
    """
    if not name or any(sep in name for sep in ("/", "\\")):
        raise ValueError(f"name must be a plain file stem, got name={name!r}")
    paths: list[Path] = []
    if fig_dir is not None:
        out = Path(fig_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / f"{name}.png", out / f"{name}.pdf"]
        fig.savefig(paths[0], metadata=_PNG_METADATA)
        fig.savefig(paths[1], metadata=_PDF_METADATA)
    if show and _in_kernel():
        import matplotlib.pyplot as plt
        from IPython.display import Image, display

        if paths:
            png = paths[0].read_bytes()
        else:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", metadata=_PNG_METADATA)
            png = buffer.getvalue()
        # shown at the figure's own size (savefig.dpi is higher than figure.dpi)
        save_dpi = matplotlib.rcParams["savefig.dpi"]
        save_dpi = fig.dpi if save_dpi == "figure" else float(save_dpi)
        width = int(round(_png_width(png) * fig.dpi / save_dpi))
        display(Image(data=png, format="png", width=width), metadata={"codedlib_figure": name})
        plt.close(fig)
    return paths


def _png_width(png: bytes) -> int:
    """Pixel width from a PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big")
