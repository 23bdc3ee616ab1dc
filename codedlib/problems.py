"""Learning problems with partial gradients over index ranges, and the data sets the papers use.

F(θ) = (1/n) Σ_i f_i(θ), each ``f_i`` carrying its share of the regulariser. Schemes compute
*sums* ``Σ_{i=start}^{stop-1} ∇f_i(θ)``: over a partition of ``range(n)`` they add up to
``n * gradient(θ)``.

>>> from codedlib.problems import LeastSquares, synthetic_linear_regression
>>> data = synthetic_linear_regression(n_samples=40, dim=5, rng=0)
>>> prob = LeastSquares(data.X, data.y)
>>> theta = prob.initial_point()
>>> parts = [prob.partial_gradient(theta, a, a + 10) for a in range(0, 40, 10)]
>>> bool(np.allclose(sum(parts), 40 * prob.gradient(theta)))
True

References: references.bib keys reisizadeh2022codedreduce, halbawi2018reedsolomon,
severinson2023dsag, zhang2021lagc, alpaydin1998digits, pedregosa2011sklearn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from codedlib._validation import RngLike, as_generator, check_array, check_int, check_real

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


# --------------------------------------------------------------------------- helpers


def even_partition(n_samples: int, n_parts: int) -> np.ndarray:
    """Boundaries of ``n_parts`` contiguous ranges of sizes differing by at most one (larger first).

    >>> even_partition(10, 3).tolist()
    [0, 4, 7, 10]
    """
    n_samples = check_int("n_samples", n_samples, low=1)
    n_parts = check_int("n_parts", n_parts, low=1, high=n_samples)
    base, extra = divmod(n_samples, n_parts)
    sizes = np.full(n_parts, base, dtype=np.int64)
    sizes[:extra] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def standardize(X: ArrayLike, intercept: bool = False) -> np.ndarray:
    """Columns to zero mean and unit variance (constant columns left at 0), DSAG Section VII;
    ``intercept`` prepends a column of ones."""
    X = check_array("X", X, ndim=2)
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std[std == 0] = 1.0
    Z = (X - mean) / std
    if intercept:
        Z = np.hstack([np.ones((Z.shape[0], 1)), Z])
    return Z


# --------------------------------------------------------------------------- problems


class Problem:
    """Base class: finite-sum objective over the rows of ``X``. Subclasses implement
    ``_loss_terms(theta, rows)`` and ``_grad_terms(theta, rows)`` (sums of f_i and ∇f_i over a
    ``slice`` of rows); their smoothness is ``_curvature`` λ_max(X_rᵀX_r) / m + ``_ridge``."""

    X: np.ndarray
    _curvature = 1.0

    def _set_data(self, X) -> None:
        self.X = check_array("X", X, ndim=2)
        if self.X.shape[0] == 0:
            raise ValueError("X must have at least one row, got 0 samples")

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    @property
    def _ridge(self) -> float:
        return self.lam

    def _range(self, start, stop) -> slice:
        n = self.n_samples
        start = check_int("start", start, low=0, high=n)
        stop = n if stop is None else check_int("stop", stop, low=start, high=n)
        return slice(start, stop)

    def _theta(self, theta) -> np.ndarray:
        return check_array("theta", theta, ndim=1, shape=(self.dim,))

    def partial_loss(self, theta: ArrayLike, start: int = 0, stop: int | None = None) -> float:
        """Σ_{i=start}^{stop-1} f_i(θ)."""
        return float(self._loss_terms(self._theta(theta), self._range(start, stop)))

    def partial_gradient(
        self, theta: ArrayLike, start: int = 0, stop: int | None = None
    ) -> np.ndarray:
        """Σ_{i=start}^{stop-1} ∇f_i(θ): the unit of work every scheme computes."""
        return self._grad_terms(self._theta(theta), self._range(start, stop))

    def partition_gradients(self, theta: ArrayLike, bounds: ArrayLike) -> np.ndarray:
        """Σ ∇f_i over each range ``bounds[j] .. bounds[j+1] - 1`` (``bounds`` strictly
        increasing from 0 to ``n_samples``): array ``(len(bounds)-1, dim)``."""
        bounds = _check_bounds(bounds, self.n_samples)
        theta = self._theta(theta)
        return np.array(
            [self._grad_terms(theta, slice(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]
        )

    def loss(self, theta: ArrayLike) -> float:
        """F(θ) = (1/n) Σ_i f_i(θ)."""
        return self.partial_loss(theta) / self.n_samples

    def gradient(self, theta: ArrayLike) -> np.ndarray:
        """∇F(θ) = (1/n) Σ_i ∇f_i(θ)."""
        return self.partial_gradient(theta) / self.n_samples

    def initial_point(self, rng: RngLike = None) -> np.ndarray:  # noqa: ARG002 (subclasses draw)
        """Zeros (deterministic); subclasses that need symmetry breaking draw from ``rng``."""
        return np.zeros(self.dim)

    def smoothness(self, start: int = 0, stop: int | None = None) -> float:
        """Lipschitz constant of (1/m) Σ_{i in range} ∇f_i, m the range size."""
        rows = self._range(start, stop)
        m = max(rows.stop - rows.start, 1)
        return self._curvature * _top_eigenvalue_of_gram(self.X[rows]) / m + self._ridge


class _Classifier(Problem):
    """A problem with labels ``y`` and a predicted label ``_labels(theta, X)`` per row of X."""

    def error_rate(
        self, theta: ArrayLike, X: ArrayLike | None = None, y: ArrayLike | None = None
    ) -> float:
        """Fraction of misclassified samples (training set unless X, y given)."""
        X = self.X if X is None else check_array("X", X, ndim=2, shape=(None, self.X.shape[1]))
        y = self.y if y is None else check_array("y", y, ndim=1, shape=(X.shape[0],))
        return float(np.mean(self._labels(self._theta(theta), X) != y))


def _check_bounds(bounds, n_samples: int) -> np.ndarray:
    bounds = np.asarray(bounds)
    if (
        bounds.ndim != 1
        or bounds.size < 2
        or not np.issubdtype(bounds.dtype, np.integer)
        or bounds[0] != 0
        or bounds[-1] != n_samples
        or np.any(np.diff(bounds) <= 0)
    ):
        raise ValueError(
            f"bounds must be integers increasing strictly from 0 to n_samples={n_samples}, "
            f"got bounds={bounds!r}"
        )
    return bounds


def _top_eigenvalue_of_gram(Xr: np.ndarray) -> float:
    """Largest eigenvalue of Xrᵀ Xr: small Gram matrices diagonalised, large ones by Lanczos
    (``eigsh``, deterministic start) on v ↦ Xrᵀ(Xr v), never a full SVD."""
    m, d = Xr.shape
    if m == 0:
        return 0.0
    if min(m, d) <= 400:
        gram = Xr.T @ Xr if d <= m else Xr @ Xr.T
        return float(np.linalg.eigvalsh(gram)[-1])
    from scipy.sparse.linalg import LinearOperator, eigsh

    op = LinearOperator((d, d), matvec=lambda v: Xr.T @ (Xr @ v), dtype=float)
    top = eigsh(op, k=1, which="LA", tol=1e-10, v0=np.ones(d), return_eigenvectors=False)
    return float(top[0])


class LeastSquares(Problem):
    """f_i(θ) = ½ (x_iᵀθ − y_i)² + (λ/2)‖θ‖², so F(θ) = (1/2n)‖Xθ − y‖² + (λ/2)‖θ‖²: the
    linear regression of CodedReduce (eq. 10–11) and LAGC (Section VI)."""

    def __init__(self, X, y, lam: float = 0.0):
        self._set_data(X)
        self.y = check_array("y", y, ndim=1, shape=(self.X.shape[0],))
        self.lam = check_real("lam", lam, low=0.0)

    def _loss_terms(self, theta, rows):
        r = self.X[rows] @ theta - self.y[rows]
        return 0.5 * r @ r + 0.5 * self.lam * r.shape[0] * (theta @ theta)

    def _grad_terms(self, theta, rows):
        Xr = self.X[rows]
        return Xr.T @ (Xr @ theta - self.y[rows]) + self.lam * Xr.shape[0] * theta

    def partition_gradients(self, theta: ArrayLike, bounds: ArrayLike) -> np.ndarray:
        """Vectorised :meth:`Problem.partition_gradients`: one pass over the data."""
        bounds = _check_bounds(bounds, self.n_samples)
        theta = self._theta(theta)
        residual = self.X @ theta - self.y
        out = np.add.reduceat(self.X * residual[:, None], bounds[:-1], axis=0)
        if self.lam:
            out += self.lam * np.diff(bounds)[:, None] * theta
        return out

    def optimum(self) -> np.ndarray:
        """Exact minimiser of F (normal equations, least-squares solve)."""
        n = self.n_samples
        A = self.X.T @ self.X / n + self.lam * np.eye(self.dim)
        return np.linalg.lstsq(A, self.X.T @ self.y / n, rcond=None)[0]


class LogisticRegression(_Classifier):
    """f_i(θ) = log(1 + exp(−b_i x_iᵀθ)) + (λ/2)‖θ‖², labels b_i ∈ {−1, +1}: DSAG Section VII
    (``standardize(X, intercept=True)``, λ = 1/n) and CodedReduce's GISETTE 4-vs-9 task."""

    _curvature = 0.25

    def __init__(self, X, y, lam: float = 0.0):
        self._set_data(X)
        self.y = check_array("y", y, ndim=1, shape=(self.X.shape[0],))
        if not np.all(np.isin(self.y, (-1.0, 1.0))):
            raise ValueError("y must contain labels in {-1, +1} only")
        self.lam = check_real("lam", lam, low=0.0)

    def _loss_terms(self, theta, rows):
        margins = self.y[rows] * (self.X[rows] @ theta)
        return np.logaddexp(0.0, -margins).sum() + 0.5 * self.lam * margins.size * (theta @ theta)

    def _grad_terms(self, theta, rows):
        Xr, yr = self.X[rows], self.y[rows]
        weights = -yr * special.expit(-yr * (Xr @ theta))
        return Xr.T @ weights + self.lam * Xr.shape[0] * theta

    def _labels(self, theta, X):
        return np.where(X @ theta >= 0, 1.0, -1.0)

    def optimum(self, tol: float = 1e-12) -> np.ndarray:
        """Minimiser of F by L-BFGS to gradient norm ``tol`` (requires λ > 0 or separable-free data)."""
        from scipy import optimize  # not needed by an MPI rank

        res = optimize.minimize(
            self.loss,
            self.initial_point(),
            jac=self.gradient,
            method="L-BFGS-B",
            options={"gtol": tol, "ftol": 0.0, "maxiter": 10_000, "maxcor": 30},
        )
        return res.x


class SoftmaxRegression(_Classifier):
    """Multinomial logistic regression, θ = vec(W) with W of shape (p, C), ``n_classes``
    by default from ``y``: f_i(θ) = −log softmax(x_iᵀW)_{y_i} + (λ/2)‖W‖_F² (RS GC Section 6)."""

    _curvature = 0.5

    def __init__(self, X, y, n_classes: int | None = None, lam: float = 0.0):
        self._set_data(X)
        y = np.asarray(y)
        if y.shape != (self.X.shape[0],) or not np.issubdtype(y.dtype, np.integer):
            raise ValueError(f"y must be integer class labels of shape ({self.X.shape[0]},)")
        n_classes = int(y.max()) + 1 if n_classes is None else n_classes
        self.n_classes = check_int("n_classes", n_classes, low=2)
        if y.min() < 0 or y.max() >= self.n_classes:
            raise ValueError(f"y must satisfy 0 <= y < n_classes={self.n_classes}")
        self.y = y.astype(np.int64)
        self.lam = check_real("lam", lam, low=0.0)

    @property
    def dim(self) -> int:
        return self.X.shape[1] * self.n_classes

    def _loss_terms(self, theta, rows):
        W = theta.reshape(self.X.shape[1], self.n_classes)
        scores = self.X[rows] @ W
        yr = self.y[rows]
        nll = special.logsumexp(scores, axis=1) - scores[np.arange(len(yr)), yr]
        return nll.sum() + 0.5 * self.lam * len(yr) * (theta @ theta)

    def _grad_terms(self, theta, rows):
        W = theta.reshape(self.X.shape[1], self.n_classes)
        Xr, yr = self.X[rows], self.y[rows]
        probs = special.softmax(Xr @ W, axis=1)
        probs[np.arange(len(yr)), yr] -= 1.0
        return (Xr.T @ probs).ravel() + self.lam * len(yr) * theta

    def _labels(self, theta, X):
        return np.argmax(X @ theta.reshape(self.X.shape[1], self.n_classes), axis=1)


class PCA(Problem):
    """Top-k principal components as a finite-sum problem (DSAG eq. 1 and 6), θ = vec(V), V d × k.

    DSAG's F(V) = R(V) + Σ_i f_i(V), R(V) = ½‖V‖_F², f_i(V) = ½‖x_i − x_i V Vᵀ‖², on the Stiefel
    manifold (VᵀV = I, kept by the Gram–Schmidt projection G) is ½(‖x_i‖² − ‖x_i V‖²); with that
    form's gradient −x_iᵀ x_i V a GD step with η = 1 then G is the power method V ← G(XᵀX V),
    as the paper states. The per-sample term is n·f_i + R: ``loss``, ``gradient`` are F, ∇F.
    """

    _ridge = 1.0  # R(V) = ½‖V‖_F²

    @property
    def _curvature(self) -> float:
        return self.n_samples

    def __init__(self, X, k: int):
        self._set_data(X)
        self.k = check_int("k", k, low=1, high=self.X.shape[1])
        self._total_sq = float(np.sum(self.X**2))

    @property
    def dim(self) -> int:
        return self.X.shape[1] * self.k

    def _loss_terms(self, theta, rows):
        V = theta.reshape(self.X.shape[1], self.k)
        Xr = self.X[rows]
        data = 0.5 * (np.sum(Xr**2) - np.sum((Xr @ V) ** 2))
        return self.n_samples * data + 0.5 * Xr.shape[0] * (theta @ theta)

    def _grad_terms(self, theta, rows):
        n, d = self.X.shape
        Xr = self.X[rows]
        V = theta.reshape(d, self.k)
        return (-n * (Xr.T @ (Xr @ V)) + Xr.shape[0] * V).ravel()

    @staticmethod
    def project(V: ArrayLike) -> np.ndarray:
        """G(·): Gram–Schmidt orthonormalisation of the columns of the d x k ``V`` (via QR with
        sign fix)."""
        Q, R = np.linalg.qr(check_array("V", V, ndim=2))
        return Q * np.where(np.diag(R) < 0, -1.0, 1.0)

    def initial_point(self, rng: RngLike = None) -> np.ndarray:
        """A random orthonormal V (seeded): PCA needs symmetry breaking."""
        rng = as_generator(rng)
        V = rng.standard_normal((self.X.shape[1], self.k))
        return self.project(V).ravel()

    def explained_variance(self, theta: ArrayLike) -> float:
        """‖X V‖_F² / ‖X‖_F² for orthonormalised V: the quantity DSAG's PCA gap is measured on."""
        V = self.project(self._theta(theta).reshape(self.X.shape[1], self.k))
        return float(np.sum((self.X @ V) ** 2) / self._total_sq)

    def optimum(self) -> np.ndarray:
        """Top-k right singular vectors of X."""
        _, _, Vt = np.linalg.svd(self.X, full_matrices=False)
        return Vt[: self.k].T.ravel()


# --------------------------------------------------------------------------- data sets


@dataclass(frozen=True)
class Dataset:
    """Features, targets, optional held-out split, the true θ* when known, and what it is."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    theta_star: np.ndarray | None = None
    description: str = ""


def synthetic_linear_regression(
    n_samples: int, dim: int, noise: float = 1.0, rng: RngLike = None
) -> Dataset:
    """CodedReduce eq. 10: x_j ~ N(0, I_p), θ* ~ N(0, I_p), y_j = x_jᵀθ* + z_j, z_j ~ N(0, noise²)
    (the paper: (d, p) = (7644, 6500)); ``theta_star`` for eq. 11's ‖θ − θ*‖² / ‖θ*‖²."""
    n_samples = check_int("n_samples", n_samples, low=1)
    dim = check_int("dim", dim, low=1)
    noise = check_real("noise", noise, low=0.0)
    rng = as_generator(rng)
    theta_star = rng.standard_normal(dim)
    X = rng.standard_normal((n_samples, dim))
    y = X @ theta_star + noise * rng.standard_normal(n_samples)
    text = f"CodedReduce eq. 10 synthetic linear regression (d={n_samples}, p={dim})"
    return Dataset(X, y, theta_star=theta_star, description=text)


def _load_sklearn_digits():
    from sklearn.datasets import load_digits

    digits = load_digits()
    return digits.data.astype(float), digits.target.astype(np.int64)


def _split(X, y, rng, description: str) -> Dataset:
    """A random train/test split of scikit-learn's digits, a quarter held out."""
    perm = as_generator(rng).permutation(len(y))
    n_test = int(round(0.25 * len(y)))
    train, test = perm[n_test:], perm[:n_test]
    return Dataset(X[train], y[train], X[test], y[test], description=description)


def digits_binary(pos: int = 4, neg: int = 9, rng: RngLike = 0) -> Dataset:
    """Scikit-learn's 8×8 digits (``load_digits``, UCI optdigits, CC BY 4.0: no download),
    ``pos`` (+1) vs ``neg`` (−1), standardised + intercept, a quarter held out: the stand-in
    for GISETTE's 4-vs-9 task (CodedReduce Section VI) and DSAG's logistic regression."""
    pos = check_int("pos", pos, low=0, high=9)
    neg = check_int("neg", neg, low=0, high=9)
    if pos == neg:
        raise ValueError(f"pos and neg must differ, got pos={pos}, neg={neg}")
    X, t = _load_sklearn_digits()
    keep = np.isin(t, (pos, neg))
    X = standardize(X[keep], intercept=True)
    y = np.where(t[keep] == pos, 1.0, -1.0)
    return _split(X, y, rng, f"sklearn digits {pos}-vs-{neg} (stand-in for GISETTE)")


def digits_multiclass(rng: RngLike = 0) -> Dataset:
    """All ten classes of scikit-learn's digits (1797 × 64), scaled to [0, 1] + intercept, a
    quarter held out: the stand-in for MNIST in the Reed–Solomon GC experiment (Section 6)."""
    X, t = _load_sklearn_digits()
    X = np.hstack([np.ones((X.shape[0], 1)), X / 16.0])
    return _split(X, t, rng, "sklearn digits, 10 classes (stand-in for MNIST)")


def sparse_lowrank_binary(
    n_samples: int = 2000,
    dim: int = 500,
    n_populations: int = 4,
    density: float = 0.1,
    rng: RngLike = None,
) -> Dataset:
    """A sparse binary low-rank matrix, the stand-in for DSAG's 1000 Genomes genotypes: each
    sample's population (``y``, one of ``n_populations``) has per-feature frequencies (Beta
    around ``density``), X_ij ~ Bernoulli(frequency)."""
    n_samples = check_int("n_samples", n_samples, low=1)
    dim = check_int("dim", dim, low=1)
    n_populations = check_int("n_populations", n_populations, low=1)
    density = check_real("density", density, low=0.0, high=1.0, low_open=True, high_open=True)
    rng = as_generator(rng)
    concentration = 2.0
    freqs = rng.beta(
        density * concentration, (1 - density) * concentration, size=(n_populations, dim)
    )
    labels = rng.integers(n_populations, size=n_samples)
    X = (rng.random((n_samples, dim)) < freqs[labels]).astype(float)
    text = f"{n_samples}x{dim}, {n_populations} populations, density~{density}"
    return Dataset(X, labels, description=f"synthetic sparse binary genotype-like matrix ({text})")
