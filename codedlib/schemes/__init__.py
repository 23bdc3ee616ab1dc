"""Each paper's schemes on one simulated clock (one module per paper)."""
