"""Chapter 3, support vector machines: exercises and quizzes (one source each, solution first)."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, cv_accuracy, dashboard_stats, gauss, toy

NB = "03_svm"


def _svc(X, y, C, sigma):
    from ...svm import SVC
    # float64 and a tight tol: the reference's dual is then optimal to ~1e-7 (the exercises'
    # tolerances are set well above that)
    return SVC(C=C, sigma=sigma, precision="float64", tol=1e-7).fit(X, y)


def _ex1_data(rng):
    X, y = toy(rng, "moons", 40, noise=0.25)
    sigma, C = float(rng.choice([0.4, 0.5, 0.7])), 1.0
    svc = _svc(X, y, C, sigma)
    alpha = np.zeros(len(X))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    Xq = rng.uniform(-1.0, 2.0, size=(5, 2))
    return {"X": X, "y": np.where(y == svc.classes_[1], 1.0, -1.0), "alpha": alpha,
            "b": float(svc.intercept_[0]), "sigma": sigma, "Xq": Xq}


def _ex1_expected(d):
    from ...svm import SVC
    # kernelnb's own prediction from the same dual: refit and read decision_function
    svc = _svc(d["X"], (d["y"] > 0).astype(int), 1.0, d["sigma"])
    return svc.decision_function(d["Xq"])


EX1 = Exercise(
    id="03.1", kind="formula", chapter_notebook=NB,
    title=N_("The SVM's decision function from its dual"),
    statement=N_("An SVM with the Gaussian kernel $k(x, x') = \\exp(-\\|x - x'\\|^2 / (2\\sigma^2))$ "
                 "was trained on `X` (labels `y` in $\\{-1, +1\\}$); its dual variables are "
                 "`alpha` ($\\alpha_i \\ge 0$) and its offset `b`. Compute the decision function "
                 "$f(x) = \\sum_i \\alpha_i y_i k(x_i, x) + b$ at the rows of `Xq`."),
    answer_kind=N_("an array of 5 numbers, f at each row of Xq"),
    make_data=_ex1_data,
    solution=("K = np.exp(-((X[:, None, :] - Xq[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "answer = (alpha * y) @ K + b\n"),
    expected=_ex1_expected,
    # the reference is kernelnb's decision_function of a dual solved to tol 1e-7: the values
    # agree to that order, far below any mistake's effect
    same=close(rtol=1e-5, atol=1e-5),
    hints=(N_("Build the kernel block between the rows of X and those of Xq, then weight each "
              "training point by its α and its label."),
           N_("K[i, j] = exp(-‖X[i] − Xq[j]‖² / (2σ²)), then f = (α·y) K + b: check the 2 in "
              "the kernel's denominator, the labels and the offset.")),
    mistakes=(
        Mistake(N_("your kernel divides by σ² where the course's Gaussian kernel divides by "
                   "2σ²."),
                answer=lambda d: (d["alpha"] * d["y"]) @ gauss(d["X"], d["Xq"], d["sigma"], 1.0)
                + d["b"]),
        Mistake(N_("the labels y_i are missing: each support vector pulls f towards its own "
                   "class, with the sign of its label."),
                answer=lambda d: d["alpha"] @ gauss(d["X"], d["Xq"], d["sigma"]) + d["b"]),
        Mistake(N_("the offset b is missing."),
                answer=lambda d: (d["alpha"] * d["y"]) @ gauss(d["X"], d["Xq"], d["sigma"])),
    ),
)


def _ex2_data(rng):
    X, y = toy(rng, "moons", 30, noise=0.3)
    return {"X": X, "y": np.where(y == 1, 1.0, -1.0), "C": float(rng.choice([1.0, 3.0])),
            "sigma": 0.5}


def _dual_value(alpha, d):
    Q = np.outer(d["y"], d["y"]) * gauss(d["X"], d["X"], d["sigma"])
    return float(alpha.sum() - 0.5 * alpha @ Q @ alpha)


def _ex2_expected(d):
    svc = _svc(d["X"], (d["y"] > 0).astype(int), d["C"], d["sigma"])
    return -float(svc.objective_)     # kernelnb minimises ½α'Qα − Σα


def _ex2_judge(answer, d, best):
    a = np.asarray(answer, dtype=float)
    n, C = len(d["y"]), d["C"]
    if a.shape != (n,):
        return (N_("the answer should hold one α per training point, {n} numbers."), {"n": n})
    if np.any(a < -1e-6 * C) or np.any(a > C * (1 + 1e-6)):
        return (N_("some α are outside the box 0 ≤ α ≤ C (smallest {lo}, largest {hi})."),
                {"lo": float(a.min()), "hi": float(a.max())})
    if abs(a @ d["y"]) > 1e-4 * C * n ** 0.5:
        return (N_("the equality constraint Σ α_i y_i = 0 does not hold (it is {s})."),
                {"s": float(a @ d["y"])})
    gap = best - _dual_value(a, d)
    # a dual feasible to 1e-4 whose value is within 1e-3 of the optimum (relative) is an optimum
    # to the precision a student's solver (projected gradient, SMO at tol 1e-3) reaches
    if gap > 1e-3 * max(1.0, abs(best)):
        return (N_("your α are feasible but not optimal: the dual's value is {v}, its maximum "
                   "{best}."), {"v": _dual_value(a, d), "best": best})
    return None


EX2 = Exercise(
    id="03.2", kind="formula", chapter_notebook=NB,
    title=N_("The soft-margin dual, solved and checked"),
    statement=N_("Find the dual variables $\\alpha$ of the soft-margin SVM on `X`, `y` (labels "
                 "$\\pm 1$) with the Gaussian kernel of width `sigma` and penalty `C`: maximise "
                 "$\\sum_i \\alpha_i - \\frac12 \\sum_{i,j} \\alpha_i \\alpha_j y_i y_j "
                 "k(x_i, x_j)$ subject to $0 \\le \\alpha_i \\le C$ and "
                 "$\\sum_i \\alpha_i y_i = 0$. Any solver will do (kernelnb's `SVC` gives "
                 "`dual_coef_` $= \\alpha_i y_i$ on its `support_`); the check verifies the "
                 "constraints and that the dual's value is its maximum."),
    answer_kind=N_("an array of one α per training point"),
    make_data=_ex2_data,
    imports="import numpy as np\nfrom kernelnb.svm import SVC\n",
    solution=("svc = SVC(C=C, sigma=sigma, precision='float64', tol=1e-6).fit(X, (y > 0).astype(int))\n"
              "answer = np.zeros(len(X))\n"
              "answer[svc.support_] = np.abs(svc.dual_coef_[0])\n"),
    expected=_ex2_expected,
    judge=_ex2_judge,
    hints=(N_("The constraints first: every α between 0 and C, and Σ α_i y_i = 0; then the "
              "dual's value must be as large as it can be."),
           N_("With kernelnb's SVC, α is zero off support_ and |dual_coef_| on it: dual_coef_ "
              "holds α_i y_i, whose sign is the label's.")),
    mistakes=(
        Mistake(N_("these are the signed coefficients α_i y_i (what dual_coef_ holds), not the "
                   "dual variables α_i ≥ 0: a sign in the dual."),
                detect=lambda a, d: np.any(np.asarray(a, float) < -1e-6 * d["C"]) and
                _ex2_judge(np.abs(np.asarray(a, float)), d, _ex2_expected(d)) is None,
                example=lambda d: d["y"] * _ex2_solution(d)),
        Mistake(N_("all α = C is feasible only when the classes are balanced, and it is not the "
                   "maximum: it ignores the kernel."),
                detect=lambda a, d: np.allclose(np.asarray(a, float), d["C"]),
                example=lambda d: np.full(len(d["y"]), d["C"])),
    ),
)


def _ex2_solution(d):
    svc = _svc(d["X"], (d["y"] > 0).astype(int), d["C"], d["sigma"])
    a = np.zeros(len(d["X"]))
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return a


_PLAY = "kernelnb.lab.app.svm_playground.SVMPlayground"
_GRID_CS = 10.0 ** np.arange(-3.0, 4.01, 0.1)


def _ex3_data(rng):
    return {"setting": {"dataset": "moons", "seed": int(rng.integers(0, 100)),
                        "noise": float(rng.choice([0.1, 0.2])), "sigma": 0.5}}


def _fraction(d, C):
    return dashboard_stats(_PLAY, {"grid": 10}, **d["setting"], C=float(C))["sv_fraction"]


def _ex3_expected(d):
    for C in _GRID_CS:
        if _fraction(d, C) < 0.2:
            return float(C)
    return float(_GRID_CS[-1])


def _ex3_judge(answer, d, c_star):
    C = float(answer)
    if not (1e-3 <= C <= 1e4):
        return (N_("C = {C} is outside the slider's range, 0.001 to 10,000."), {"C": C})
    frac = _fraction(d, C)
    if frac >= 0.2:
        return (N_("at C = {C}, {pct} % of the points are support vectors, not fewer than a "
                   "fifth."), {"C": C, "pct": 100 * frac})
    if C > c_star * 10 ** 0.35:
        return (N_("at C = {C} the support vectors are fewer than a fifth, but they already "
                   "were at a much smaller C: find where the fraction first falls below 20 %."),
                {"C": C})
    return None


EX3 = Exercise(
    id="03.3", kind="dashboard", chapter_notebook=NB, needs="lab",
    title=N_("The C at which the support vectors fall below a fifth"),
    statement=N_("Open the SVM playground at your setting (`SVMPlayground(**setting)` in a "
                 "notebook, or the served dashboard with these values in its address) and move "
                 "C from its smallest value up: find the C at which the support vectors "
                 "(#SV / n in the readout) first fall below a fifth of the points. The check "
                 "runs the dashboard's own update at your C."),
    answer_kind=N_("a number, the value of C"),
    make_data=_ex3_data,
    imports="import numpy as np\nfrom kernelnb.lab.app import SVMPlayground\n",
    solution=("app = SVMPlayground(grid=10, **setting)\n"
              "answer = next(C for C in 10.0 ** np.arange(-3.0, 4.01, 0.1)\n"
              "              if app.update(C=C)['sv_fraction'] < 0.2)\n"),
    expected=_ex3_expected,
    judge=_ex3_judge,
    hints=(N_("Small C: almost every point is a support vector; the fraction falls as C grows."),
           N_("Watch the readout's '#SV / n' while you move C one notch at a time, and stop at "
              "the first value below 20 %.")),
    mistakes=(
        Mistake(N_("at so small a C nearly every point is a support vector (the margin is wide "
                   "and every point inside it): C must grow."),
                detect=lambda a, d: 1e-3 <= float(a) <= 1e4 and _fraction(d, a) > 0.5,
                example=lambda d: 0.001),
    ),
)


def _ex4_data(rng):
    from ...datasets import load_sonar
    X, y = load_sonar()
    keep = rng.permutation(len(X))[:160]
    return {"X": np.asarray(X, float)[keep], "y": np.asarray(y)[keep]}


def _reference_cv(d):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ...svm import SVC
    return cv_accuracy(make_pipeline(StandardScaler(), SVC(C=10.0, sigma=6.0)), d["X"], d["y"])


def _ex4_judge(answer, d, ref):
    from sklearn.base import is_classifier
    if not is_classifier(answer):
        return (N_("the answer should be a classifier (unfitted or fitted: it is fitted again "
                   "on each fold)."), {})
    acc = cv_accuracy(answer, d["X"], d["y"])
    # the reference's 5-fold spread: a model within two standard deviations of its mean
    # cannot be told from it on 160 points
    floor = ref.mean() - 2 * ref.std()
    if acc.mean() < floor:
        return (N_("its 5-fold accuracy is {acc} %, below the reference's spread (at least "
                   "{floor} %)."), {"acc": 100 * acc.mean(), "floor": 100 * floor})
    return None


EX4 = Exercise(
    id="03.4", kind="data", chapter_notebook=NB,
    title=N_("An SVM on the Sonar data"),
    statement=N_("`X`, `y` are 160 sonar returns (60 energies each; rock or mine). Choose an SVM "
                 "with kernelnb (kernel, σ, C, and whether to standardise the features) by "
                 "cross-validation on these data, and say in a Markdown cell why. The check "
                 "cross-validates your classifier on your data and compares its accuracy with "
                 "the spread of a reference's."),
    answer_kind=N_("a classifier (e.g. a scikit-learn pipeline ending in kernelnb's SVC)"),
    make_data=_ex4_data,
    imports=("import numpy as np\nfrom sklearn.model_selection import cross_val_score\n"
             "from sklearn.pipeline import make_pipeline\n"
             "from sklearn.preprocessing import StandardScaler\nfrom kernelnb.svm import SVC\n"),
    solution=("best = max(((C, s) for C in (1.0, 10.0, 100.0) for s in (3.0, 6.0, 12.0)),\n"
              "           key=lambda p: cross_val_score(make_pipeline(StandardScaler(),\n"
              "               SVC(C=p[0], sigma=p[1])), X, y, cv=5).mean())\n"
              "answer = make_pipeline(StandardScaler(), SVC(C=best[0], sigma=best[1]))\n"),
    expected=_reference_cv,
    judge=_ex4_judge,
    hints=(N_("The 60 features have different scales: standardise them, and choose σ on the "
              "order of the distances between points."),
           N_("Standardised, 60 features put points ~√(2·60) ≈ 11 apart: try σ from 3 to 12 and C "
              "from 1 to 100, keep the best 5-fold mean.")),
    mistakes=(
        Mistake(N_("its accuracy is that of predicting one class for every point: σ is far too "
                   "small or too large for these distances."),
                detect=lambda a, d: cv_accuracy(a, d["X"], d["y"]).mean() <=
                max(np.mean(d["y"] == c) for c in np.unique(d["y"])) + 0.03,
                example=lambda d: __import__("kernelnb.svm", fromlist=["SVC"]).SVC(sigma=0.01)),
    ),
)

EXERCISES = (EX1, EX2, EX3, EX4)

QUIZZES = (
    Question(
        id="03.q1", prompt=N_("In the soft-margin SVM, what does a larger C do?"),
        choices=(
            Choice(N_("It penalises margin violations more: fewer points inside the margin, a "
                      "narrower margin."), True,
                   N_("Right: C weighs the slacks ξ_i against ½‖w‖²; a large C buys fewer "
                      "violations with a smaller margin.")),
            Choice(N_("It widens the margin."), False,
                   N_("No: a wider margin is what a small C allows, trading it for more "
                      "violations.")),
            Choice(N_("It changes the kernel's width."), False,
                   N_("No: σ is the kernel's width; C only weighs the errors.")),
        )),
    Question(
        id="03.q2", prompt=N_("A point with $0 < \\alpha_i < C$ lies where?"),
        choices=(
            Choice(N_("On the margin: $y_i f(x_i) = 1$."), True,
                   N_("Right: complementary slackness gives ξ_i = 0 (α_i < C) and "
                      "y_i f(x_i) = 1 (α_i > 0).")),
            Choice(N_("Inside the margin or misclassified."), False,
                   N_("No: those points have α_i = C (at the bound).")),
            Choice(N_("Far from the boundary, on the right side."), False,
                   N_("No: such points have α_i = 0 and are not support vectors.")),
        )),
    Question(
        id="03.q3", kind="numeric",
        prompt=N_("An SVM trained on 200 points has 30 support vectors. What upper bound on its "
                  "leave-one-out error, in %, does the support-vector count give?"),
        value=15.0, tolerance=0.5,
        right=N_("Right: the leave-one-out error is at most #SV / n = 30 / 200 = 15 %."),
        wrong=N_("Not quite: removing a point that is not a support vector changes nothing, so "
                 "the leave-one-out error is at most #SV / n.")),
)
