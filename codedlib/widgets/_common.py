"""One drawing path for every explorer: controls in, a status line and figures redrawn in place.

Widget callbacks may run on a kernel subshell thread while a cell executes (JupyterLab 4.6 +
ipykernel 7), where ``display()`` lands in the Log Console and pyplot's shared figures get
half drawn. So an explorer never displays from a callback: its figures (never registered with
pyplot) are rendered to PNG under :data:`DRAW_LOCK` into ``Image`` widgets it owns, text into
an ``HTML`` widget; controls hold values on their own grid (the browser echoes nothing back)
and :meth:`Explorer.hold` groups changes into one recompute.
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codedlib.plots import DRAW_LOCK

if TYPE_CHECKING:
    from collections.abc import Iterator

    import ipywidgets as W
    from matplotlib.figure import Figure

_STYLE = {"description_width": "initial"}


def render_png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes under :data:`DRAW_LOCK`, then closed in pyplot if it is there."""
    from codedlib.plots import close_figure, figure_png

    with DRAW_LOCK:
        png = figure_png(fig)
        close_figure(fig)
    return png


def error_html(err: Exception | str) -> str:
    """The one error style of every explorer: a red line with the library's message."""
    name = type(err).__name__ if isinstance(err, Exception) else "Error"
    return (
        f"<div class='codedlib-error' style='color:#b00020'><b>{html.escape(name)}:</b> "
        f"{html.escape(str(err))}</div>"
    )


def text_html(text: str) -> str:
    """Plain text (a report) as preformatted HTML."""
    return f"<pre style='margin:0'>{html.escape(text)}</pre>"


def progress_bar() -> W.FloatProgress:
    """The hidden "running…" bar a button shows while its run goes."""
    import ipywidgets as W

    kw = dict(value=0, min=0, max=1, description="running…", bar_style="info", style=_STYLE)
    return W.FloatProgress(**kw, layout=W.Layout(display="none"))


@contextlib.contextmanager
def running(button: W.Button, progress: W.FloatProgress) -> Iterator[None]:
    """The button disabled and the progress bar shown while the block runs."""
    button.disabled, progress.layout.display, progress.value = True, "", 0.1
    try:
        yield
    finally:
        progress.value, progress.layout.display, button.disabled = 1.0, "none", False


def float_slider(
    name: str,
    value: float,
    low: float,
    high: float,
    step: float,
    *,
    description: str | None = None,
    readout_format: str | None = None,
) -> W.FloatSlider:
    """A ``FloatSlider`` whose ``value`` lies on its grid ``low + k * step`` (else the browser
    would send back a snapped value and recompute)."""
    import ipywidgets as W

    if not low <= value <= high:
        raise ValueError(f"{name} must satisfy {low} <= {name} <= {high}, got {name}={value}")
    k = (value - low) / step  # on the grid: k an integer
    if abs(k - round(k)) >= 1e-9 * max(1.0, abs(k)):
        raise ValueError(
            f"{name}={value} is not on the slider grid {low} + k*{step}: the "
            "browser would round it; use a finer step or a text box"
        )
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    label = description or name  # wide enough that a long label leaves the slider its track
    width = f"{max(300, 130 + 8 * len(label))}px"
    kw = dict(value=value, min=low, max=high, step=step, description=label, style=_STYLE)
    kw.update(continuous_update=False, readout_format=readout_format or f".{decimals}f")
    return W.FloatSlider(**kw, layout=W.Layout(width=width))


def log_slider(
    name: str, value: float, low: float, high: float, *, description: str | None = None
) -> W.BoundedFloatText:
    """A parameter spanning decades as a ``BoundedFloatText`` labelled with its range (a
    ``FloatLogSlider`` would round to its grid and echo the rounded value back)."""
    import ipywidgets as W

    if not low <= value <= high:
        raise ValueError(f"{name} must satisfy {low:g} <= {name} <= {high:g}, got {name}={value:g}")
    label = f"{description or name} [{low:g}, {high:g}]"
    kw = dict(value=value, min=low, max=high, step=None, description=label, style=_STYLE)
    return W.BoundedFloatText(**kw, layout=W.Layout(width="260px"))


@dataclass
class Report:
    """What one recompute shows: HTML text and zero or more figures (one per image pane)."""

    html: str = ""
    figures: list = field(default_factory=list)


class Explorer:
    """Controls (keyed by ``compute``'s keywords; ``fixed`` adds constant ones), a status line
    and figure panes, recomputed by ``compute(**values)`` returning a :class:`Report` (a
    ``ValueError`` is shown as the message). ``auto``: recompute on every change of the
    ``watch`` controls (default all), else on the ``button`` only. ``calls`` counts recomputes,
    ``last_values`` are the shown result's values, ``box`` is the UI."""

    def __init__(
        self,
        compute: Callable[..., Report],
        controls: dict,
        *,
        rows: list[list[str]] | None = None,
        n_figures: int = 1,
        auto: bool = True,
        button: str | None = None,
        fixed: dict | None = None,
        extra: list | None = None,
        watch: list[str] | None = None,
    ):
        import ipywidgets as W

        self.compute, self.controls, self.fixed = compute, controls, dict(fixed or {})
        self.status = W.HTML().add_class("codedlib-status")
        layout = {"display": "none", "max_width": "100%"}
        self.images = [
            W.Image(format="png", layout=W.Layout(**layout)).add_class("codedlib-figure")
            for _ in range(n_figures)
        ]
        self.progress = progress_bar()
        self.button = W.Button(description=button, button_style="primary") if button else None
        self.calls, self._held, self._pending = 0, 0, False
        self.last_values: dict | None = None
        hbox = lambda row: W.HBox([controls[n] for n in row], layout=W.Layout(flex_flow="row wrap"))
        children = [hbox(row) for row in rows or [list(controls)]]
        if self.button is not None:
            children.append(W.HBox([self.button, self.progress]))
            self.button.on_click(lambda _: self.refresh())
        else:
            children.append(self.progress)
        children += list(extra or []) + [self.status] + self.images
        self.box = W.VBox(children).add_class("codedlib-explorer")
        if auto:
            for name in list(controls) if watch is None else watch:
                controls[name].observe(self._changed, names="value")

    # -- recompute ----------------------------------------------------------------------------
    def values(self) -> dict:
        return {name: widget.value for name, widget in self.controls.items()}

    @contextlib.contextmanager
    def hold(self, recompute: bool = False) -> Iterator[None]:
        """Several control changes, one recompute at the end (always with ``recompute``)."""
        self._pending = self._pending or recompute
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if self._held == 0 and self._pending:
                self._pending = False
                self.refresh()

    def _changed(self, _change=None):
        if self._held:
            self._pending = True
            return
        self.refresh()

    def refresh(self, *_) -> Report | None:
        """Recompute with the current values and redraw in place."""
        values, error = self.values(), None
        busy = self.button is not None
        with running(self.button, self.progress) if busy else contextlib.nullcontext():
            try:
                report = self.compute(**values, **self.fixed)
            except ValueError as err:
                report, error = None, Report(error_html(err))
        self.calls += 1
        self.last_values = values
        shown = error or report
        self.status.value = shown.html
        for i, image in enumerate(self.images):
            if i < len(shown.figures) and shown.figures[i] is not None:
                image.value = render_png(shown.figures[i])
                image.layout.display = ""
            else:
                image.layout.display = "none"
                image.value = b""
        return report

    def _ipython_display_(self):
        from IPython.display import display

        display(self.box)
