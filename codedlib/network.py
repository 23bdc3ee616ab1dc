"""One network for every scheme: latency + bytes / bandwidth, single port (reisizadeh2022codedreduce)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_int, check_real

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


@dataclass(frozen=True)
class Network:
    """Per-message latency [s], link bandwidth [bytes/s] and the size of one number [bytes].

    >>> round(Network(latency=3e-4, bandwidth=12.5e6).vector_time(5000), 5)  # 40 kB, 100 Mb/s
    0.0035
    """

    latency: float = 3e-4
    bandwidth: float = 12.5e6
    bytes_per_number: int = 8

    def __post_init__(self):
        check_real("latency", self.latency, 0.0)
        check_real("bandwidth", self.bandwidth, 0.0, low_open=True)
        check_int("bytes_per_number", self.bytes_per_number, 1)

    def vector_time(self, n_numbers: ArrayLike) -> float | np.ndarray:
        """Time of a message carrying ``n_numbers`` numbers (e.g. a gradient of ``p`` entries):
        ``latency + n_numbers bytes_per_number / bandwidth``."""
        n_bytes = np.asarray(n_numbers, dtype=float) * self.bytes_per_number
        if np.any(~np.isfinite(n_bytes)) or np.any(n_bytes < 0):
            raise ValueError(f"n_numbers must be finite and >= 0, got n_numbers={n_numbers!r}")
        out = self.latency + n_bytes / self.bandwidth
        return float(out) if out.ndim == 0 else out

    @classmethod
    def from_message_time(cls, message_time: float, n_numbers: int, latency: float) -> Network:
        """The network (bandwidth solved for) where ``n_numbers`` numbers take ``message_time``."""
        message_time = check_real("message_time", message_time, 0.0, low_open=True)
        n_numbers = check_int("n_numbers", n_numbers, 1)
        latency = check_real("latency", latency, 0.0)
        if latency >= message_time:
            raise ValueError(
                f"latency must satisfy 0 <= latency < message_time={message_time}, "
                f"got latency={latency}"
            )
        return cls(latency, n_numbers * cls.bytes_per_number / (message_time - latency))


def single_port_receive(ready: ArrayLike, k: int, message_time: ArrayLike) -> np.ndarray:
    """When a single-port node has received ``k`` of the messages ready at ``ready[..., j]``:
    ``R_m = max(R_{m-1}, ready_(m)) + tau`` (``tau`` broadcastable to ``ready.shape[:-1]``).

    >>> float(single_port_receive([0.0, 0.0, 5.0], 3, 1.0))
    6.0
    """
    ready = np.sort(np.asarray(ready, dtype=float), axis=-1)
    k = check_int("k", k, 0, ready.shape[-1])
    tau = np.asarray(message_time, dtype=float)
    if np.any(~np.isfinite(tau)) or np.any(tau < 0):
        raise ValueError(f"message_time must be finite and >= 0, got message_time={tau!r}")
    done = np.zeros(ready.shape[:-1])
    for m in range(k):
        done = np.maximum(done, ready[..., m]) + tau
    return done
