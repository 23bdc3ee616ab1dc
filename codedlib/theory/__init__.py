"""Closed forms from each paper (one module per paper)."""
