"""Real distributed runs on MPI: engines, delay injection, traces, CLI, ipyparallel."""
