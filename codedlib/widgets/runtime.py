"""Widget for the "Run it for real" section of every paper notebook: *Run on MPI* runs the
scheme on real processes and shows real vs injected delays, measured vs predicted iteration
times and per-worker latency. Bad input is shown as the message, never raised."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codedlib.runtime.registry import SCHEMES

if TYPE_CHECKING:
    from collections.abc import Iterable

    import ipywidgets

    from codedlib.runtime.config import RunConfig


def config_from_controls(values: dict, quick: bool = True) -> RunConfig:
    """The run config of the widget values (scheme, N, S, n, L, s, w, delay in command-line
    form, t_c_ms, iterations)."""
    from codedlib._validation import check_real
    from codedlib.runtime.notebook import scheme_config

    scheme = values["scheme"]
    t_c = check_real("t_c (ms)", values["t_c_ms"], low=0.0) / 1e3
    over = {"delay": values["delay"], "t_c": t_c, "iterations": values["iterations"]}
    if scheme in SCHEMES:
        over.update({name: values[CONTROLS[name]] for name in _sized(SCHEMES[scheme])})
    return scheme_config(scheme, quick=quick, **over)


def _sized(spec) -> list:  # the fields of the scheme's record a size control sets
    return [p for p in spec.params if p in CONTROLS and p not in spec.derived]


#: The size controls: RunConfig field -> control.
CONTROLS = {"n_workers": "N", "stragglers": "S", "n": "n", "L": "L", "s": "s", "w": "w"}
#: The controls that apply to each scheme (the others are hidden): its sizes in the registry.
APPLIES = {name: tuple(CONTROLS[p] for p in _sized(spec)) for name, spec in SCHEMES.items()}


def _run_and_report(cfg, backend, say, log, progress):
    """Run ``cfg`` on MPI, say the summary and the prediction; the figure's PNG, or None."""
    from codedlib.plots.runtime import plot_run_summary
    from codedlib.runtime.__main__ import summary
    from codedlib.runtime.notebook import run_for_real
    from codedlib.runtime.validation import predict_iteration_time
    from codedlib.widgets._common import error_html, render_png

    say(f"running {cfg.scheme} on {cfg.world_size} MPI processes ({backend}) ...")
    try:
        result = run_for_real(cfg.scheme, backend=backend, config=cfg)
    except (RuntimeError, ValueError, OSError) as exc:
        log.value += error_html(exc)
        return None
    progress.value = 0.8
    say(summary(result))
    pred = predict_iteration_time(cfg, rng=cfg.seed)
    measured = result.iterations["iteration_time"].iloc[1:].mean()
    if pred["mean"] > 0:
        say(
            f"simulator prediction for the injected model: {pred['mean'] * 1e3:.1f} ms "
            f"({pred['method']}); measured {measured * 1e3:.1f} ms "
            f"({measured / pred['mean'] - 1:+.0%}; the gap is this machine's real cost)"
        )
    return render_png(plot_run_summary(result, cfg.scheme))


def explore_run_for_real(
    schemes: Iterable[str] = ("cr", "gc", "rar", "umw", "sgd"),
    quick: bool = True,
    backend: str = "ipyparallel",
    delay: str | None = None,
) -> ipywidgets.VBox:
    """A UI that runs one of ``schemes`` on real MPI processes on demand (only the controls
    that apply to it shown); the box has ``.run_button``, ``.messages``, ``.image``,
    ``.status``, ``.progress`` and ``.controls``."""
    import ipywidgets as w

    from codedlib.runtime.notebook import scheme_config
    from codedlib.widgets._common import error_html, progress_bar, running, text_html

    schemes = tuple(schemes)
    bad = [s for s in schemes if s not in SCHEMES]
    if bad or not schemes:
        raise ValueError(f"schemes must be a non-empty subset of {list(SCHEMES)}, got {schemes!r}")
    defaults, cr_defaults = scheme_config("gc", quick), scheme_config("cr", quick)
    style = {"description_width": "initial"}
    wide = dict(style=style, layout=w.Layout(width="420px"))

    def number(value, low, high, description, kind=w.BoundedIntText):
        return kind(value=value, min=low, max=high, description=description, style=style)

    controls = {
        "scheme": w.Dropdown(options=list(schemes), value=schemes[0], description="scheme"),
        "N": number(defaults.n_workers, 1, 64, "workers N"),
        "S": number(defaults.stragglers, 0, 63, "stragglers S"),
        "n": number(cr_defaults.n, 2, 12, "children n"),
        "L": number(cr_defaults.L, 1, 4, "layers L"),
        "s": number(cr_defaults.s, 0, 11, "s per parent"),
        "w": number(2, 1, 64, "DSAG w"),
        "delay": w.Text(
            value=delay or defaults.delay.to_text(), description="injected delay (s)", **wide
        ),
        "t_c_ms": number(0.0, -1.0, 1e4, "t_c per message (ms)", w.BoundedFloatText),
        "iterations": number(defaults.iterations, 1, 500, "iterations"),
    }
    button = w.Button(description="Run on MPI", button_style="primary", icon="play")
    progress = progress_bar()
    status, log = w.HTML(), w.HTML()
    image = w.Image(format="png", layout=w.Layout(display="none", max_width="100%"))
    sized = {name: controls[name] for name in ("N", "S", "n", "L", "s", "w")}

    values = lambda: {name: control.value for name, control in controls.items()}

    def show_size(*_):
        applies = APPLIES.get(controls["scheme"].value, ("N",))
        for name, control in sized.items():
            control.layout.display = "" if name in applies else "none"
        try:
            cfg = config_from_controls(values(), quick)
            status.value = (
                f"<b>{cfg.world_size} MPI processes</b> (1 root + {cfg.n_workers} workers), "
                f"tolerates {cfg.tolerated} straggler(s){' per parent' if cfg.spec.derived else ''}"
            )
        except ValueError as exc:
            status.value = error_html(exc)

    lines: list[str] = []

    def say(text):
        lines.append(text)
        log.value = text_html("\n".join(lines))

    def on_run(_):
        lines.clear()
        log.value = ""
        image.layout.display = "none"
        try:
            cfg = config_from_controls(values(), quick)
        except ValueError as exc:
            log.value = error_html(exc)
            return
        with running(button, progress):
            png = _run_and_report(cfg, backend, say, log, progress)
            if png is not None:
                image.value = png
                image.layout.display = ""

    for control in controls.values():
        control.observe(show_size, names="value")
    button.on_click(on_run)
    show_size()
    c, wrap = controls, w.Layout(flex_flow="row wrap")
    sizes = w.HBox([c[k] for k in ("N", "S", "w", "n", "L", "s")], layout=wrap)
    top = w.HBox([c["scheme"], c["iterations"], button, progress])
    box = w.VBox([top, sizes, w.HBox([c["delay"], c["t_c_ms"]]), status, log, image])
    box.add_class("codedlib-run-for-real")
    box.run_button, box.messages, box.image = button, log, image
    box.status, box.progress, box.controls = status, progress, controls
    return box
