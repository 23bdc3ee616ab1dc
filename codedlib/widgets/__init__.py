"""ipywidgets explorers, one module per paper, wrapping the figures' ``plot_*`` functions."""
