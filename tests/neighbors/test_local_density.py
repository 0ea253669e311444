"""The local Gaussian ("probabilistic HKNN") density of Vincent's thesis section 14.3."""
import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.base import clone

from kernelnb.neighbors import LocalGaussianDensity, ParzenDensity
from kernelnb.reproductions.vincent.local import grid_integral


def _reference(X, x0, s, noise, d=None, k=None, M=None):
    """p_hat(x0) written from the thesis's formula, one query at a time."""
    dist2 = ((X - x0) ** 2).sum(axis=1)
    if k is not None:
        s = s * np.sqrt(np.sort(dist2)[k - 1])
    logk = -dist2 / (2 * s * s)
    log_z = logsumexp(logk) - np.log(len(X))
    keep = np.argsort(dist2)[:M] if M is not None else np.arange(len(X))
    w = np.exp(logk[keep] - logk[keep].max())
    w /= w.sum()
    mean = w @ X[keep]
    C = (X[keep] - mean).T @ np.diag(w) @ (X[keep] - mean)
    mu, V = np.linalg.eigh(C)
    mu, V = mu[::-1], V[:, ::-1]
    d = X.shape[1] if d is None else d
    cov = V[:, :d] @ np.diag(mu[:d]) @ V[:, :d].T + noise ** 2 * np.eye(X.shape[1])
    return multivariate_normal(mean, cov).logpdf(x0) + log_z       # K_x0(x0) = 1


@pytest.mark.parametrize("kw", [dict(), dict(n_components=1), dict(n_components=0),
                                dict(n_neighbors=7, n_components=2), dict(max_neighbors=15)])
def test_matches_the_formula_point_by_point(kw):
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3) * [1.0, 0.5, 0.1]
    Q = rng.randn(5, 3) * 0.7
    m = LocalGaussianDensity(sigma=0.8, noise=0.05, **kw).fit(X)
    ref = [_reference(X, q, 0.8, 0.05, kw.get("n_components"), kw.get("n_neighbors"),
                      kw.get("max_neighbors")) for q in Q]
    np.testing.assert_allclose(m.score_samples(Q), ref, rtol=1e-8, atol=1e-8)


def test_a_single_point_gives_the_mass_of_a_product_of_gaussians():
    # l = 1: p_hat(x) = exp(-|x - x1|^2 / 2s^2) N(x; x1, noise^2 I), whose integral is
    # (s^2 / (s^2 + noise^2))^(n/2) < 1: the estimator is not normalised
    s, noise = 0.5, 0.3
    for x1 in (np.array([[0.2]]), np.array([[0.2, -0.1]])):
        m = LocalGaussianDensity(sigma=s, noise=noise).fit(x1)
        box = np.vstack([x1 - 3.0, x1 + 3.0])
        mass = grid_integral(m, box, n_points=601 if x1.shape[1] == 1 else 201, margin=0.0)
        n = x1.shape[1]
        assert mass == pytest.approx((s * s / (s * s + noise * noise)) ** (n / 2), rel=1e-3)


def test_integrates_to_about_one_on_a_large_sample():
    rng = np.random.RandomState(1)
    X = rng.randn(1500, 1)
    for s in (0.2, 0.6):
        mass = grid_integral(LocalGaussianDensity(sigma=s, noise=1e-3).fit(X), X,
                             n_points=2001)
        assert abs(mass - 1) < 0.02, (s, mass)
    Y = rng.randn(800, 2) * [1.0, 0.3]
    mass = grid_integral(LocalGaussianDensity(sigma=0.4, noise=1e-3).fit(Y), Y,
                         n_points=151)
    assert abs(mass - 1) < 0.05, mass


def test_isotropic_limit_is_a_corrected_parzen():
    # d = 0: p_hat(x0) = Parzen_s(x0) (2 pi s^2)^(n/2) N(x0; E_hat, noise^2 I); with noise = s
    # and E_hat replaced by x0 this would be Parzen itself -- check the identity exactly
    rng = np.random.RandomState(2)
    X, Q = rng.randn(40, 2), rng.randn(6, 2)
    s = 0.7
    m = LocalGaussianDensity(sigma=s, noise=s, n_components=0).fit(X)
    parzen = ParzenDensity(sigma=s).fit(X).score_samples(Q)
    w = np.exp(-((Q[:, None, :] - X[None]) ** 2).sum(-1) / (2 * s * s))
    mean = (w @ X) / w.sum(axis=1, keepdims=True)
    shift = -((Q - mean) ** 2).sum(axis=1) / (2 * s * s)
    np.testing.assert_allclose(m.score_samples(Q), parzen + shift, rtol=1e-10, atol=1e-10)


def test_max_neighbors_equal_to_the_sample_changes_nothing():
    rng = np.random.RandomState(3)
    X, Q = rng.randn(30, 4), rng.randn(4, 4)
    a = LocalGaussianDensity(sigma=1.0, n_components=2).fit(X).score_samples(Q)
    b = LocalGaussianDensity(sigma=1.0, n_components=2, max_neighbors=30).fit(X)
    np.testing.assert_allclose(a, b.score_samples(Q), rtol=1e-9)
    assert clone(b).get_params()["max_neighbors"] == 30


@pytest.mark.parametrize("kw, match", [
    (dict(n_components=3), "n_components=3 must not exceed"),
    (dict(n_neighbors=11), "n_neighbors=11 is larger than"),
    (dict(noise=-1.0), "noise"),
    (dict(sigma=0.0), "sigma"),
    (dict(max_neighbors=0), "max_neighbors"),
])
def test_bad_parameters_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        LocalGaussianDensity(**kw).fit(np.random.RandomState(0).randn(10, 2))


def test_the_window_is_sigma_and_the_noise_is_noise():
    # the Gaussian window's width is `sigma` (the package's one meaning of the name) and the
    # isotropic noise of the local Gaussian is `noise`: each moves only its own part of p_hat
    rng = np.random.RandomState(5)
    X, Q = rng.randn(50, 2), rng.randn(3, 2)
    base = LocalGaussianDensity(sigma=0.6, noise=0.1).fit(X).score_samples(Q)
    wider = LocalGaussianDensity(sigma=0.9, noise=0.1).fit(X).score_samples(Q)
    noisier = LocalGaussianDensity(sigma=0.6, noise=0.3).fit(X).score_samples(Q)
    np.testing.assert_allclose(wider, [_reference(X, q, 0.9, 0.1) for q in Q], rtol=1e-8)
    np.testing.assert_allclose(noisier, [_reference(X, q, 0.6, 0.3) for q in Q], rtol=1e-8)
    assert not np.allclose(base, wider) and not np.allclose(base, noisier)
    with pytest.raises(TypeError):
        LocalGaussianDensity(0.6)
