"""codedlib: a reproducible companion to five papers on straggler-resilient distributed GD."""

__version__ = "0.1.0"
