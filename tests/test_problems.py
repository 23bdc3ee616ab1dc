"""Learning problems: gradients vs finite differences, partial sums, data sets, bad input."""

import numpy as np
import pytest

from codedlib.problems import (
    PCA,
    LeastSquares,
    LogisticRegression,
    SoftmaxRegression,
    digits_binary,
    digits_multiclass,
    even_partition,
    sparse_lowrank_binary,
    standardize,
    synthetic_linear_regression,
)


def _problems():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((37, 6))
    y_reg = rng.standard_normal(37)
    y_bin = np.where(rng.random(37) < 0.5, -1.0, 1.0)
    y_cls = rng.integers(0, 4, size=37)
    return {
        "least_squares": LeastSquares(X, y_reg, lam=0.1),
        "logistic": LogisticRegression(X, y_bin, lam=0.05),
        "softmax": SoftmaxRegression(X, y_cls, n_classes=4, lam=0.01),
        "pca": PCA(X, k=2),
    }


def _finite_difference(f, theta, eps=1e-6):
    grad = np.zeros_like(theta)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = eps
        grad[j] = (f(theta + e) - f(theta - e)) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", ["least_squares", "logistic", "softmax", "pca"])
def test_gradient_matches_finite_differences(name):
    prob = _problems()[name]
    theta = np.random.default_rng(2).standard_normal(prob.dim) * 0.3
    fd = _finite_difference(prob.loss, theta)
    np.testing.assert_allclose(prob.gradient(theta), fd, rtol=1e-6, atol=1e-6)
    # partial ranges too
    fd_part = _finite_difference(lambda t: prob.partial_loss(t, 5, 19), theta)
    np.testing.assert_allclose(prob.partial_gradient(theta, 5, 19), fd_part, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", ["least_squares", "logistic", "softmax", "pca"])
@pytest.mark.parametrize("n_parts", [1, 3, 7, 37])
def test_partial_gradients_sum_to_full(name, n_parts):
    prob = _problems()[name]
    theta = np.random.default_rng(3).standard_normal(prob.dim)
    b = even_partition(prob.n_samples, n_parts)
    total = sum(prob.partial_gradient(theta, b[i], b[i + 1]) for i in range(n_parts))
    np.testing.assert_allclose(total, prob.n_samples * prob.gradient(theta), rtol=1e-12, atol=1e-10)
    losses = sum(prob.partial_loss(theta, b[i], b[i + 1]) for i in range(n_parts))
    assert losses == pytest.approx(prob.n_samples * prob.loss(theta), rel=1e-12)


def test_even_partition_sizes_and_errors():
    b = even_partition(10, 3)
    assert b.tolist() == [0, 4, 7, 10]
    assert np.ptp(np.diff(even_partition(1001, 17))) <= 1
    with pytest.raises(ValueError, match="n_parts must satisfy 1 <= n_parts <= 10, got n_parts=11"):
        even_partition(10, 11)


def test_least_squares_optimum_zero_gradient_and_smoothness():
    data = synthetic_linear_regression(200, 8, noise=0.5, rng=0)
    prob = LeastSquares(data.X, data.y)
    opt = prob.optimum()
    assert np.linalg.norm(prob.gradient(opt)) < 1e-10
    # Lipschitz constant of the gradient is the top Hessian eigenvalue
    H = data.X.T @ data.X / 200
    assert prob.smoothness() == pytest.approx(np.linalg.eigvalsh(H).max(), rel=1e-10)
    # eq. 10: the optimum is close to theta_star for d >> p
    assert np.linalg.norm(opt - data.theta_star) / np.linalg.norm(data.theta_star) < 0.1


def test_logistic_optimum_and_error_rate():
    data = digits_binary(4, 9)
    prob = LogisticRegression(data.X, data.y, lam=1.0 / len(data.y))
    opt = prob.optimum()
    assert np.linalg.norm(prob.gradient(opt)) < 1e-8
    assert prob.error_rate(opt, data.X_test, data.y_test) < 0.05


def test_pca_power_method_equivalence_and_optimum():
    data = sparse_lowrank_binary(300, 40, n_populations=3, density=0.2, rng=4)
    prob = PCA(data.X, k=3)
    V = prob.initial_point(rng=0)
    # GD with eta = 1 followed by Gram-Schmidt is the power method (DSAG Section VII)
    step = PCA.project((V - prob.gradient(V)).reshape(40, 3))
    power = PCA.project((data.X.T @ data.X) @ V.reshape(40, 3))
    np.testing.assert_allclose(step, power, atol=1e-10)
    for _ in range(500):
        V = PCA.project((V - prob.gradient(V)).reshape(40, 3)).ravel()
    assert prob.explained_variance(V) == pytest.approx(
        prob.explained_variance(prob.optimum()), abs=1e-10
    )


def test_digits_multiclass_and_softmax():
    data = digits_multiclass()
    assert data.X.shape[1] == 65 and set(np.unique(data.y)) == set(range(10))
    prob = SoftmaxRegression(data.X, data.y, n_classes=10, lam=1e-3)
    theta = np.zeros(prob.dim)
    for _ in range(200):
        theta -= 1.0 * prob.gradient(theta)
    assert prob.error_rate(theta, data.X_test, data.y_test) < 0.1


def test_seeded_data_are_reproducible():
    a = synthetic_linear_regression(20, 3, rng=7)
    b = synthetic_linear_regression(20, 3, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a.X, b.X)
    c = sparse_lowrank_binary(50, 10, rng=1)
    d = sparse_lowrank_binary(50, 10, rng=1)
    np.testing.assert_array_equal(c.X, d.X)


def test_standardize():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    Z = standardize(X, intercept=True)
    np.testing.assert_allclose(Z[:, 0], 1.0)
    np.testing.assert_allclose(Z[:, 1].mean(), 0.0, atol=1e-15)
    np.testing.assert_allclose(Z[:, 1].std(), 1.0)
    np.testing.assert_allclose(Z[:, 2], 0.0)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: LeastSquares(np.zeros((0, 3)), np.zeros(0)), "at least one row"),
        (lambda: LeastSquares(np.ones((4, 3)), np.ones(5)), "y must have shape"),
        (lambda: LeastSquares(np.ones((4, 3)), np.ones(4), lam=-1), "lam must satisfy 0.0 <= lam"),
        (
            lambda: LogisticRegression(np.ones((2, 2)), np.array([0.0, 1.0])),
            r"labels in \{-1, \+1\}",
        ),
        (
            lambda: SoftmaxRegression(np.ones((2, 2)), np.array([0, 3]), n_classes=3),
            "y must satisfy",
        ),
        (lambda: PCA(np.ones((4, 3)), k=4), "k must satisfy 1 <= k <= 3, got k=4"),
        (lambda: LeastSquares(np.array([[np.nan]]), np.ones(1)), "finite"),
        (lambda: synthetic_linear_regression(0, 3), "n_samples must satisfy 1 <= n_samples"),
        (lambda: sparse_lowrank_binary(10, 5, density=1.5), "density must satisfy"),
    ],
)
def test_bad_input_raises_clear_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_range_and_theta():
    prob = _problems()["least_squares"]
    with pytest.raises(ValueError, match="stop must satisfy 5 <= stop <= 37, got stop=3"):
        prob.partial_gradient(np.zeros(6), 5, 3)
    with pytest.raises(ValueError, match="theta must have shape"):
        prob.gradient(np.zeros(5))


@pytest.mark.parametrize("shape", [(50, 8), (8, 50), (900, 450), (450, 900)])
def test_smoothness_equals_top_singular_value_squared(shape):
    X = np.random.default_rng(5).standard_normal(shape)
    prob = LeastSquares(X, np.zeros(shape[0]))
    top = np.linalg.svd(X, compute_uv=False)[0] ** 2 / shape[0]
    assert prob.smoothness() == pytest.approx(top, rel=1e-9)
