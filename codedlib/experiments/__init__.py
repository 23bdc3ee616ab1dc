"""One function per paper figure / table, returning data (one module per paper)."""
