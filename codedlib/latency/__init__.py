"""Delay models and order statistics (pure numpy/scipy)."""
