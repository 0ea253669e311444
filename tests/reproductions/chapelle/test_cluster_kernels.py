"""The cluster-kernel protocols (thesis 7.4.5, Fig. 7.7) against per-run fits of the public
estimators."""
import numpy as np
import pytest

from kernelnb.svm import SVC
from kernelnb.unlabeled import ClusterKernel, ClusterKernelSVC, MarginalizedKernel
from kernelnb.reproductions.chapelle.cluster_kernels import (_binary_digits, digits_cluster_experiment,
                                                 marginalized_toy)


def test_digits_protocol_matches_per_run_estimators():
    kw = dict(n_pool=160, n_test=120, group_size=40, n_runs=2, sigmas=(1.0, 2.0), C=100.0,
              r_values=(2, 5, 10), tsvm_runs=0, random_state=3)
    out = digits_cluster_experiment(**kw)
    Xp, yp, Xt, yt = _binary_digits("digits", 160, 120, np.random.RandomState(3))
    sigma = out["sigma"]
    for s, e in out["sigma_errors"].items():
        ref = np.mean([np.mean(SVC(sigma=s, C=100.0, precision="float64")
                               .fit(Xp[g * 40:(g + 1) * 40], yp[g * 40:(g + 1) * 40])
                               .predict(Xt) != yt) for g in range(2)])
        assert e == pytest.approx(ref)
    assert out["sigma_errors"][sigma] == min(out["sigma_errors"].values())
    for g in range(2):
        G = np.arange(g * 40, (g + 1) * 40)
        rest = np.setdiff1d(np.arange(160), G)
        clf = ClusterKernelSVC(ClusterKernel(sigma=sigma, transfer="poly-step", p=0.5, q=2.0),
                               C=100.0, select_r=[2, 5, 10]).fit(Xp[G], yp[G],
                                                                  X_unlabeled=Xp[rest])
        # the protocol fits the kernel once on the pool (labeled group first or not: the
        # kernel of a set does not depend on the order of its points)
        assert clf.r_ == out["r_chosen"][g]
        err = np.mean(clf.predict(Xt) != yt)
        assert out["errors"]["cluster kernel (r by span)"][g] == pytest.approx(err, abs=1e-9)
    assert set(out["span_curve"]) == {2, 5, 10}


def test_marginalized_toy_against_direct_fit():
    out = marginalized_toy(n_unlabeled=120, random_state=1, grid_shape=(5, 7))
    mk = MarginalizedKernel(n_components=2, random_state=1).fit(out["X_unlabeled"])
    svc = SVC(kernel="linear", C=100.0, precision="float64").fit(
        mk.transform(out["X_labeled"]), out["y_labeled"])
    xx, yy = out["grid"]
    G = np.c_[xx.ravel(), yy.ravel()]
    np.testing.assert_allclose(out["marginalized"]["grid"].ravel(),
                               svc.decision_function(mk.transform(G)), atol=1e-8)
    f = out["marginalized"]["unlabeled"]
    right = out["component"] == 0
    s = out["summary"]["marginalized"]
    assert s["right cluster with label of its labeled point"] == pytest.approx(
        np.mean(f[right] > 0))
    assert s["left cluster, fraction +1"] == pytest.approx(np.mean(f[~right] > 0))
    # the labeled points lie where the thesis puts them: one in the tight right cluster, two
    # of opposite labels in the broad left one
    assert out["X_labeled"][0, 0] > 0 and np.all(out["X_labeled"][1:, 0] < 0.2)
    assert list(out["y_labeled"]) == [1, 1, -1]
