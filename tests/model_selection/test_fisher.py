"""The Fisher kernel of a Gaussian mixture (thesis §5.3): scores against finite differences of
scikit-learn's log-likelihood, their derivatives against finite differences, the kernel against
the explicit I^-1 inner products, the R^2/M^2 gradient against finite differences."""
import numpy as np
import pytest
from sklearn.mixture import GaussianMixture

from kernelnb.datasets import make_moons
from kernelnb.model_selection import (
    FisherKernelSVC,
    gaussian_mixture_fisher_scores,
    radius_margin,
)


@pytest.fixture(scope="module")
def mixture():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    gm = GaussianMixture(n_components=3, covariance_type="spherical", random_state=0).fit(X)
    return X, gm


def test_scores_are_the_gradient_of_sklearns_log_likelihood(mixture):
    X, gm = mixture
    U = gaussian_mixture_fisher_scores(X, gm.weights_, gm.means_, gm.covariances_)
    h = 1e-6
    for a in range(gm.means_.size):
        k, j = divmod(a, 2)
        shifted = GaussianMixture(n_components=3, covariance_type="spherical")
        vals = []
        for step in (h, -h):
            m = gm.means_.copy()
            m[k, j] += step
            shifted.weights_, shifted.means_, shifted.covariances_ = gm.weights_, m, gm.covariances_
            shifted.precisions_cholesky_ = 1.0 / np.sqrt(gm.covariances_)
            vals.append(shifted.score_samples(X))
        fd = (vals[0] - vals[1]) / (2 * h)
        # central difference: error O(h^2 |d3 log p|) + rounding O(eps |log p| / h) ~ 1e-9
        np.testing.assert_allclose(U[:, a], fd, rtol=1e-6, atol=1e-7)


def test_the_responsibilities_are_sklearns_even_far_from_every_component(mixture):
    # log p(x) and the posteriors g of the mixture, against scikit-learn's score_samples and
    # predict_proba; the far points (1e3 away: every log-density about -1e6) underflow a plain
    # sum of exponentials, not the max-shifted one (kernelnb._special.logsumexp_rows)
    from kernelnb.model_selection._fisher import _responsibilities

    X, gm = mixture
    Xs = np.vstack([X, [[1e3, 0.0], [0.0, -1e3]]])
    logp, g, _D = _responsibilities(Xs, gm.weights_, gm.means_, gm.covariances_)
    np.testing.assert_allclose(logp, gm.score_samples(Xs), rtol=1e-12)
    np.testing.assert_allclose(g, gm.predict_proba(Xs), rtol=1e-9, atol=1e-12)
    assert np.isfinite(logp).all() and np.allclose(g.sum(axis=1), 1.0)


def test_score_derivatives_against_finite_differences(mixture):
    X, gm = mixture
    _, dU = gaussian_mixture_fisher_scores(X, gm.weights_, gm.means_, gm.covariances_,
                                           derivatives=True)
    h = 1e-6
    for b in range(gm.means_.size):
        m1, m2 = gm.means_.copy(), gm.means_.copy()
        m1.flat[b] += h
        m2.flat[b] -= h
        fd = (gaussian_mixture_fisher_scores(X, gm.weights_, m1, gm.covariances_)
              - gaussian_mixture_fisher_scores(X, gm.weights_, m2, gm.covariances_)) / (2 * h)
        np.testing.assert_allclose(dU[:, :, b], fd, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def moons():
    return make_moons(n_samples=60, noise=0.2, random_state=0)


def test_kernel_is_the_inverse_information_inner_product(moons):
    X, y = moons
    clf = FisherKernelSVC(n_components=3, criterion="likelihood", random_state=0).fit(X, y)
    gm = clf.mixture_
    U = gaussian_mixture_fisher_scores(X, gm.weights_, gm.means_, gm.covariances_)
    info = U.T @ U / len(y)
    info += clf.ridge * np.mean(np.diag(info)) * np.eye(info.shape[0])
    K = U @ np.linalg.solve(info, U.T)
    Z = clf.fisher_map(X)
    np.testing.assert_allclose(Z @ Z.T, K, rtol=1e-8, atol=1e-8 * np.abs(K).max())
    # the map whitens the training scores: (1/n) Z'Z = I (up to the ridge)
    np.testing.assert_allclose(Z.T @ Z / len(y), np.eye(6), atol=1e-4)
    np.testing.assert_array_equal(clf.predict(X), clf.svm_.predict(Z))


def test_radius_margin_gradient_against_finite_differences(moons):
    X, y = moons
    clf = FisherKernelSVC(n_components=2, max_iter=0, random_state=0).fit(X, y)
    yv = np.where(y == clf.classes_[1], 1.0, -1.0)
    theta = clf.mixture_.means_.ravel() + 0.1
    _, g = clf._criterion(theta, X, y, yv, {})
    h = 1e-5
    fd = np.empty_like(g)
    for p in range(theta.size):
        e = np.zeros_like(theta)
        e[p] = h
        fd[p] = (clf._criterion(theta + e, X, y, yv, {})[0]
                 - clf._criterion(theta - e, X, y, yv, {})[0]) / (2 * h)
    # the SVM is solved to tol=1e-8: the envelope gradient holds to about 1e-4 relative
    np.testing.assert_allclose(g, fd, rtol=1e-3, atol=1e-3 * np.abs(fd).max())


def test_tuning_lowers_the_bound_computed_by_the_estimates(moons):
    X, y = moons
    ml = FisherKernelSVC(n_components=3, criterion="likelihood", random_state=0).fit(X, y)
    rm = FisherKernelSVC(n_components=3, max_iter=10, random_state=0).fit(X, y)
    assert rm.radius_margin_ml_ == pytest.approx(ml.radius_margin_, rel=1e-8)
    assert rm.radius_margin_ < ml.radius_margin_
    # the same value from the estimates' own code (radius = variance on K~, ||w||^2 = alpha'Q alpha)
    Z = rm.fisher_map(X)
    n = len(y)
    assert radius_margin(rm.svm_, Z, y, radius="variance", clip=False) * n == pytest.approx(
        rm.radius_margin_, rel=1e-5)
    with pytest.raises(ValueError, match="Only binary"):
        FisherKernelSVC().fit(X, np.arange(len(y)) % 3)


def test_the_fit_steps_pause_at_the_likelihood_model(moons):
    """_fit_steps pauses once, before the tuning; the model it gives there is the one
    criterion='likelihood' fits (its means, SVM, bound and history), and the run goes on to the
    model fit gives."""
    X, y = moons
    ml = FisherKernelSVC(n_components=3, criterion="likelihood", random_state=0).fit(X, y)
    rm = FisherKernelSVC(n_components=3, random_state=0).fit(X, y)
    stepped = FisherKernelSVC(n_components=3, random_state=0)
    steps = stepped._fit_steps(X, y)
    assert next(steps) is None
    twin = stepped._likelihood_model()
    assert twin.criterion == "likelihood" and twin.n_iter_ == ml.n_iter_ == 1
    np.testing.assert_array_equal(twin.means_, ml.means_)
    np.testing.assert_array_equal(twin.svm_.dual_coef_, ml.svm_.dual_coef_)
    assert twin.svm_.intercept_ == ml.svm_.intercept_
    assert (twin.radius_margin_, twin.radius_margin_ml_) == (ml.radius_margin_,
                                                             ml.radius_margin_ml_)
    assert twin.history_ == ml.history_ and twin.fit_time_ > 0
    np.testing.assert_array_equal(twin.decision_function(X), ml.decision_function(X))
    with pytest.raises(StopIteration) as end:
        next(steps)
    assert end.value.value is stepped and not hasattr(stepped, "_likelihood_stage")
    np.testing.assert_array_equal(stepped.means_, rm.means_)
    assert stepped.history_ == rm.history_ and stepped.radius_margin_ == rm.radius_margin_
    # the likelihood's criterion does not pause
    assert list(FisherKernelSVC(n_components=3, criterion="likelihood")._fit_steps(X, y)) == []


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_the_primal_newton_solution_is_the_duals(moons, C):
    """The criterion's SVM by Newton's method on the primal (_l2_svm_primal) is the dual
    solver's (SVC.fit's call, to its KKT tolerance): the same alphas, a dual objective as high,
    sum y_i alpha_i = 0; a warm start from a wrong active set reaches the same point, and the
    fitted SVC started there makes no step."""
    from kernelnb.model_selection._fisher import _l2_svm_primal

    X, y = moons
    clf = FisherKernelSVC(n_components=3, C=C, criterion="likelihood", random_state=0).fit(X, y)
    yv = np.where(y == clf.classes_[1], 1.0, -1.0)
    Z = clf.fisher_map(X)
    K = Z @ Z.T
    smo = clf._dual(K, yv, None)
    newton = _l2_svm_primal(Z, yv, C)
    scale = np.abs(smo).max()
    np.testing.assert_allclose(newton, smo, atol=1e-6 * scale)

    def dual(a):
        return a.sum() - 0.5 * (a * yv) @ (K + np.eye(len(y)) / C) @ (a * yv)

    assert dual(newton) >= dual(smo) - 1e-9 * abs(dual(smo))
    assert abs(yv @ newton) < 1e-10 * newton.sum()
    wrong = np.random.default_rng(0).random(len(y)) < 0.5
    np.testing.assert_allclose(_l2_svm_primal(Z, yv, C, active=wrong), newton,
                               atol=1e-10 * scale)
    assert clf.svm_.n_iter_[0] == 0 and clf.svm_.fit_status_ == 0
    assert _l2_svm_primal(Z, yv, np.inf) is None     # a hard margin: the dual solver's
