"""The challenge of each gallery dashboard, keyed by its class name (see
:mod:`kernelnb.lab.app._challenge`): what to reach, a hint, the test on a complete update's
numbers and control values, and a setting that reaches it (applied by the tests through
``update()``). Each is chosen so that the dashboard's defaults do not reach it already."""
from __future__ import annotations

from ..i18n import N_
from ._challenge import Challenge

__all__ = ["CHALLENGES"]

CHALLENGES = {
    "SVMPlayground": Challenge(
        task=N_("On the moons, reach a boundary with fewer than 8 % of the points as support "
                "vectors and a test error under 3 %."),
        hint=N_("A larger C lets fewer points sit inside the margin; keep σ moderate so that the "
                "boundary does not bend round single points."),
        reached=lambda s, p: p["dataset"] == "moons" and s["sv_fraction"] < 0.08
        and s["test_error"] < 0.03,
        solution={"C": 100.0, "sigma": 0.5}),
    "BoundsExplorer": Challenge(
        task=N_("With C at least 10, find a σ at which the span estimate is within 2 points of "
                "the test error."),
        hint=N_("The span estimate is the tightest of the bounds near a good σ; move C up "
                "first, then σ."),
        reached=lambda s, p: p["C"] >= 10 and abs(s["span"] - s["test_error"]) <= 0.02,
        solution={"C": 10.0, "sigma": 0.5}),
    "DataCleaning": Challenge(
        task=N_("With 8 labels flipped, get every flipped label into the list of the most "
                "suspect points."),
        hint=N_("Show more suspects, and choose the ranking that reads each point's slack in "
                "the SVM."),
        reached=lambda s, p: p["n_flip"] >= 8 and s["found_in_top"] == s["n_flipped"],
        solution={"n_flip": 8, "n_show": 12, "method": "svm_xi"}),
    "FeatureSelection": Challenge(
        task=N_("Keep only 2 features of 202, both relevant, with a test error under 5 %."),
        hint=N_("The scaling factors' descent ranks the features by how much the criterion "
                "needs them: ask it to keep fewer."),
        reached=lambda s, p: p["n_keep"] <= 2 and s["n_relevant_kept"] >= p["n_keep"]
        and s["test_error_final"] < 0.05,
        solution={"method": "scaling", "n_keep": 2}),
    "FisherKernelExplorer": Challenge(
        task=N_("On the moons, with the means chosen by likelihood, find a mixture whose Fisher "
                "kernel has a test error under 6 %."),
        hint=N_("The likelihood places the means where the inputs are, not where the classes "
                "part: its kernel suits some numbers of Gaussians only, try fewer. The means "
                "tuned by R²/M² do well at every number."),
        reached=lambda s, p: p["dataset"] == "moons" and s["test_error_ml"] < 0.06,
        solution={"n_components": 3}),
    "InvarianceExplorer": Challenge(
        task=N_("Find a γ of at most 0.999 at which the invariant SVM's test error is below "
                "5 %."),
        hint=N_("γ weighs the invariance against the margin: the error falls as γ nears 1."),
        reached=lambda s, p: p["invariance"] <= 0.999 and s["error_ISVM"] < 0.05,
        solution={"invariance": 0.998}),
    "KMPPlayground": Challenge(
        task=N_("With at most 6 basis functions, get a KMP test error within 1 point of the "
                "SVM's."),
        hint=N_("Pre-fitting chooses each basis function knowing the weights will be re-fitted; "
                "a σ a little wider than the default needs fewer of them."),
        reached=lambda s, p: p["n_basis"] <= 6
        and s["kmp_test_error"] <= s["svm_test_error"] + 0.01,
        solution={"n_basis": 6, "variant": "prefit", "sigma": 0.7}),
    "LearningCurves": Challenge(
        task=N_("On the two spirals, bring the SVC's test error at the largest size below 1 %."),
        hint=N_("The spirals' arms are close: the Gaussian kernel must be narrower than the "
                "default, and C larger."),
        reached=lambda s, p: p["dataset"] == "spirals" and s["test_error_svc"] < 0.01,
        solution={"dataset": "spirals", "sigma": 0.3, "C": 100.0}),
    "LocalMethodsPlayground": Challenge(
        task=N_("Make the local-hyperplane classifier (HKNN) beat plain k-nearest neighbours' "
                "test error."),
        hint=N_("Few neighbours per class and a strong weight decay keep HKNN's hyperplanes "
                "from reaching too far."),
        reached=lambda s, p: s["hknn_test_error"] < s["knn_test_error"],
        solution={"method": "hknn", "n_neighbors": 3, "weight_decay": 1.0}),
    "DensityExplorer": Challenge(
        task=N_("With the plain Parzen window, find a width within 20 % of the best one."),
        hint=N_("Switch the model to Parzen and move the bandwidth until the test ANLL is at "
                "its lowest."),
        reached=lambda s, p: p["model"] == "parzen"
        and abs(p["bandwidth"] / s["parzen_best_h"] - 1) < 0.2,
        solution={"model": "parzen", "bandwidth": 0.013}),
    "MarginExplorer": Challenge(
        task=N_("Get the margin perceptron within 2 % of the largest margin ρ_max."),
        hint=N_("The smaller the margin it aims at (λ) the closer it gets, at the cost of more "
                "updates."),
        reached=lambda s, p: s["mp_rho"] >= 0.98 * s["rho_max"],
        solution={"lam": 0.01, "updates": 1000.0}),
    "MarginLosses": Challenge(
        task=N_("Find two losses whose classifiers disagree on more than 4 % of the plane."),
        hint=N_("A loss that keeps pushing points beyond the margin (squared) and one that "
                "stops (hinge) see noisy points differently: add noise."),
        reached=lambda s, p: s["disagreement"] > 0.04,
        solution={"loss_a": "hinge", "loss_b": "squared", "noise": 0.4}),
    "RegressionSelectionExplorer": Challenge(
        task=N_("Set the degree d to the one whose true risk is smallest."),
        hint=N_("The readout names the degree with the lowest true risk; the criteria only "
                "estimate it."),
        reached=lambda s, p: p["d"] == s["best_d"],
        solution={"d": 11}),
    "SemiSupervisedExplorer": Challenge(
        task=N_("With 2 labelled points and a transfer function other than the step, bring "
                "the cluster kernel's error below 1 %."),
        hint=N_("The transfer function reshapes the kernel's spectrum: one that keeps the "
                "first eigenvalues and flattens the rest follows the clusters."),
        reached=lambda s, p: p["n_labeled"] <= 2 and p["transfer"] != "step"
        and s["error_cluster"] < 0.01,
        solution={"transfer": "linear-step"}),
    "VicinalRisk": Challenge(
        task=N_("On very noisy blobs, make the vicinal SVM's test error lower than the SVM's."),
        hint=N_("Each point is spread over its vicinity, which helps most where the classes "
                "overlap: raise the noise."),
        reached=lambda s, p: s["test_error_vrm"] < s["test_error_svm"] - 0.002,
        solution={"noise": 1.0, "width_factor": 0.5}),
    "ActiveLearning": Challenge(
        task=N_("On the two spirals, find a σ and C with which the full pool's error is below "
                "5 %, the target the queries must reach."),
        hint=N_("Spirals need a narrow kernel and a large C."),
        reached=lambda s, p: p["dataset"] == "spirals" and s["full_pool_error"] < 0.05,
        solution={"dataset": "spirals", "sigma": 0.2, "C": 1000.0}),
}
