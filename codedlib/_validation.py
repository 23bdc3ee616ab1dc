"""Input validation and randomness helpers shared by every layer: errors name the parameter,
its value and the allowed range (``ValueError("s must satisfy 0 <= s < 3, got s=5")``)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike, DTypeLike


#: What every ``rng`` parameter accepts: a Generator, an integer seed, or None (fresh entropy).
RngLike = np.random.Generator | int | None


class InputTypeError(TypeError, ValueError):
    """An argument of the wrong type: a ``TypeError`` that ``except ValueError`` catches too."""


def as_generator(rng: RngLike) -> np.random.Generator:
    """Return a ``np.random.Generator`` from a Generator, an integer seed or None."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, numbers.Integral):
        return np.random.default_rng(rng)
    raise InputTypeError(f"rng must be a numpy Generator, an int seed or None, got rng={rng!r}")


def _range_text(name, low, high, low_open=False, high_open=False):
    left = "" if low is None else f"{low} {'<' if low_open else '<='} "
    return left + name + ("" if high is None else f" {'<' if high_open else '<='} {high}")


def check_int(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer with ``low <= value <= high``."""
    if type(value) is not int:  # the common case skips the abstract-type checks
        real = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not real or not (isinstance(value, numbers.Integral) or float(value).is_integer()):
            error = ValueError if real else InputTypeError
            raise error(f"{name} must be an integer, got {name}={value!r}")
        value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must satisfy {_range_text(name, low, high)}, got {name}={value}")
    return value


def check_real(
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as float if it is a finite real number inside the given range
    (``high=np.inf`` with ``high_open=False`` admits infinity)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a real number, got {name}={value!r}")
    value = float(value)
    if np.isnan(value) or (np.isinf(value) and not (high == np.inf and not high_open)):
        raise ValueError(f"{name} must be finite, got {name}={value}")
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        raise ValueError(
            f"{name} must satisfy {_range_text(name, low, high, low_open, high_open)}, "
            f"got {name}={value:g}"
        )
    return value


def check_array(
    name: str,
    value: ArrayLike,
    ndim: int | None = None,
    shape: Sequence[int | None] | None = None,
    finite: bool = True,
    dtype: DTypeLike = float,
) -> np.ndarray:
    """Return ``value`` as an array, checking type, dimension, shape (None entries free) and
    finiteness; complex (for a real ``dtype``) or non-numeric values raise
    :class:`InputTypeError`."""
    if type(value) is np.ndarray and value.dtype == dtype:  # the common case: nothing to convert
        arr = value
    else:
        raw = np.asarray(value)
        if np.dtype(dtype).kind in "biuf":
            if raw.dtype.kind == "c":
                raise InputTypeError(f"{name} must be real, got complex values")
            if raw.dtype.kind not in "biuf" and raw.size:
                try:
                    raw.astype(dtype)
                except (TypeError, ValueError):
                    raise InputTypeError(
                        f"{name} must be numeric, got values of type {raw.dtype}"
                    ) from None
        arr = np.asarray(value, dtype=dtype)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if shape is not None:
        for axis, (got, want) in enumerate(zip(arr.shape, shape)):
            if want is not None and got != want:
                raise ValueError(
                    f"{name} must have shape {tuple(shape)}, got shape {arr.shape} "
                    f"(axis {axis}: {got} != {want})"
                )
    if finite and arr.size and not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite values")
    return arr


def check_frame(name: str, frame: object, columns: Sequence[str] = ()) -> pd.DataFrame:
    """Return ``frame`` if it is a non-empty pandas DataFrame holding ``columns``."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise InputTypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} must have the columns {list(columns)}, missing {missing}")
    if frame.empty:
        raise ValueError(f"{name} must hold at least one row, got an empty DataFrame")
    return frame
