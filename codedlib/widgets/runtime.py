"""Widget for the "Run it for real" section of every paper notebook.

Pressing *Run on MPI* starts the MPI processes (ipyparallel engines by default), runs the
scheme, shuts them down, and shows which delays were real and which injected, the measured
iteration times against the simulator's prediction and the per-worker latency. Bad input is
shown as the error message, never raised.
"""

from __future__ import annotations

from codedlib.runtime.registry import SCHEMES

__all__ = ["APPLIES", "CONTROLS", "config_from_controls", "explore_run_for_real"]


def config_from_controls(values: dict, quick: bool = True):
    """Build the :class:`~codedlib.runtime.config.RunConfig` from the widget values.

    ``values`` is a plain dict: scheme, N, S, n, L, s, w, delay (command-line form, e.g.
    ``shiftexp:shift=0.05,rate=20``), t_c_ms, iterations.
    """
    from codedlib._validation import check_real
    from codedlib.runtime.notebook import scheme_config

    scheme = values["scheme"]
    t_c = check_real("t_c (ms)", values["t_c_ms"], low=0.0) / 1e3
    over = {"delay": values["delay"], "t_c": t_c, "iterations": values["iterations"]}
    spec = SCHEMES.get(scheme)
    if spec is not None:
        over.update(
            {
                name: values[CONTROLS[name]]
                for name in spec.params
                if name in CONTROLS and name not in spec.derived
            }
        )
    return scheme_config(scheme, quick=quick, **over)


#: The size controls: RunConfig field -> control.
CONTROLS = {"n_workers": "N", "stragglers": "S", "n": "n", "L": "L", "s": "s", "w": "w"}
#: The controls that apply to each scheme (the others are hidden): its sizes in the registry.
APPLIES = {
    name: tuple(CONTROLS[p] for p in spec.params if p in CONTROLS and p not in spec.derived)
    for name, spec in SCHEMES.items()
}


def explore_run_for_real(
    schemes=("cr", "gc", "rar", "umw", "sgd"),
    quick: bool = True,
    backend: str = "ipyparallel",
    scheme: str | None = None,
    delay: str | None = None,
):
    """ipywidgets UI that runs one of ``schemes`` on real MPI processes on demand.

    ``quick`` picks the small defaults of :func:`codedlib.runtime.notebook.scheme_config`;
    ``backend`` is "ipyparallel" (MPI engines) or "mpiexec"; ``delay`` the initial injected
    model in command-line form (default ``shiftexp:shift=0.05,rate=20``; e.g.
    ``pareto:t0=0.05,xi=2.5`` for the Reed--Solomon notebook). Only the controls that apply to
    the chosen scheme are shown; nothing runs until the button is pressed. The returned
    ``VBox`` has ``.run_button``, ``.messages`` (HTML), ``.image``, ``.status`` and ``.controls``.
    """
    import html

    import ipywidgets as w

    from codedlib.runtime.notebook import scheme_config
    from codedlib.widgets._common import error_html, render_png

    schemes = tuple(schemes)
    bad = [s for s in schemes if s not in SCHEMES]
    if bad or not schemes:
        raise ValueError(f"schemes must be a non-empty subset of {list(SCHEMES)}, got {schemes!r}")
    first = scheme or schemes[0]
    defaults = scheme_config("gc", quick)
    cr_defaults = scheme_config("cr", quick)
    style = {"description_width": "initial"}
    scheme_box = w.Dropdown(options=list(schemes), value=first, description="scheme")
    N = w.BoundedIntText(
        value=defaults.n_workers, min=1, max=64, description="workers N", style=style
    )
    S = w.BoundedIntText(
        value=defaults.stragglers, min=0, max=63, description="stragglers S", style=style
    )
    n = w.BoundedIntText(value=cr_defaults.n, min=2, max=12, description="children n", style=style)
    L = w.BoundedIntText(value=cr_defaults.L, min=1, max=4, description="layers L", style=style)
    s = w.BoundedIntText(
        value=cr_defaults.s, min=0, max=11, description="s per parent", style=style
    )
    wfresh = w.BoundedIntText(value=2, min=1, max=64, description="DSAG w", style=style)
    delay_text = w.Text(
        value=delay or defaults.delay.to_text(),
        description="injected delay (s)",
        style=style,
        layout=w.Layout(width="420px"),
    )
    t_c = w.BoundedFloatText(
        value=0.0, min=-1.0, max=1e4, description="t_c per message (ms)", style=style
    )
    iters = w.BoundedIntText(
        value=defaults.iterations, min=1, max=500, description="iterations", style=style
    )
    button = w.Button(description="Run on MPI", button_style="primary", icon="play")
    progress = w.FloatProgress(
        value=0,
        min=0,
        max=1,
        description="running…",
        style=style,
        bar_style="info",
        layout=w.Layout(display="none"),
    )
    status = w.HTML()
    log = w.HTML()
    image = w.Image(format="png", layout=w.Layout(display="none", max_width="100%"))
    sized = {"N": N, "S": S, "n": n, "L": L, "s": s, "w": wfresh}

    def values():
        return {
            "scheme": scheme_box.value,
            "N": N.value,
            "S": S.value,
            "n": n.value,
            "L": L.value,
            "s": s.value,
            "w": wfresh.value,
            "delay": delay_text.value,
            "t_c_ms": t_c.value,
            "iterations": iters.value,
        }

    def show_size(*_):
        applies = APPLIES.get(scheme_box.value, ("N",))
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
        log.value = f"<pre style='margin:0'>{html.escape(chr(10).join(lines))}</pre>"

    def on_run(_):
        from codedlib.plots import subplots
        from codedlib.plots.runtime import plot_iteration_times, plot_worker_latency
        from codedlib.runtime.__main__ import summary
        from codedlib.runtime.notebook import run_for_real
        from codedlib.runtime.validation import predict_iteration_time

        lines.clear()
        log.value = ""
        image.layout.display = "none"
        try:
            cfg = config_from_controls(values(), quick)
        except ValueError as exc:
            log.value = error_html(exc)
            return
        button.disabled = True
        progress.layout.display = ""
        progress.value = 0.1
        try:
            say(f"running {cfg.scheme} on {cfg.world_size} MPI processes ({backend}) ...")
            try:
                result = run_for_real(cfg.scheme, backend=backend, config=cfg)
            except (RuntimeError, ValueError, OSError) as exc:
                log.value += error_html(exc)
                return
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
            fig, axes = subplots(1, 2, figsize=(12, 4), layout="constrained")
            plot_iteration_times({cfg.scheme: result}, ax=axes[0])
            plot_worker_latency(result.trace, ax=axes[1])
            image.value = render_png(fig)
            image.layout.display = ""
        finally:
            progress.value = 1.0
            progress.layout.display = "none"
            button.disabled = False

    for control in (scheme_box, N, S, n, L, s, wfresh, delay_text, t_c, iters):
        control.observe(show_size, names="value")
    button.on_click(on_run)
    show_size()
    box = w.VBox(
        [
            w.HBox([scheme_box, iters, button, progress]),
            w.HBox([N, S, wfresh, n, L, s], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([delay_text, t_c]),
            status,
            log,
            image,
        ]
    )
    box.add_class("codedlib-run-for-real")
    box.run_button = button
    box.messages = log
    box.image = image
    box.status = status
    box.progress = progress
    box.controls = {
        "scheme": scheme_box,
        "N": N,
        "S": S,
        "n": n,
        "L": L,
        "s": s,
        "w": wfresh,
        "delay": delay_text,
        "t_c_ms": t_c,
        "iterations": iters,
    }
    return box
