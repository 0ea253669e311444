"""Chapter 14, active learning and model selection for regression: the margin query, generalised
cross-validation, and the degree 5-fold cross-validation picks (with its dashboard)."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, dashboard_stats, toy

NB = "14_active_learning_and_regression_model_selection"


def _pool(rng):
    X, y = toy(rng, "moons", 60, noise=0.15)
    labelled = np.concatenate([rng.choice(np.flatnonzero(y == c), 3, replace=False)
                               for c in (0, 1)])
    return {"X": X, "y": y, "labelled": np.sort(labelled), "C": 10.0, "sigma": 0.5}


def _scores(d):
    from ...svm import SVC
    lab = d["labelled"]
    svc = SVC(C=d["C"], sigma=d["sigma"], precision="float64", tol=1e-7).fit(
        d["X"][lab], d["y"][lab])
    pool = np.setdiff1d(np.arange(len(d["X"])), lab)
    return pool, np.abs(svc.decision_function(d["X"][pool]))


def _query(d, largest=False):
    pool, s = _scores(d)
    return float(pool[np.argmax(s) if largest else np.argmin(s)])


EX1 = Exercise(
    id="14.1", kind="formula", chapter_notebook=NB,
    title=N_("The margin query"),
    statement=N_("Active learning by the margin (Tong & Koller 2001; Schohn & Cohn 2000) asks "
                 "for the label of the unlabelled point nearest the boundary. Fit kernelnb's "
                 "`SVC` (`C`, `sigma`) on the points of index `labelled`, and give the index (in "
                 "`X`) of the unlabelled point with the smallest $|f(x)|$."),
    answer_kind=N_("an index"),
    make_data=_pool,
    imports="import numpy as np\nfrom kernelnb.svm import SVC\n",
    solution=("svc = SVC(C=C, sigma=sigma, precision='float64', tol=1e-7).fit(X[labelled], y[labelled])\n"
              "pool = np.setdiff1d(np.arange(len(X)), labelled)\n"
              "answer = int(pool[np.argmin(np.abs(svc.decision_function(X[pool])))])\n"),
    expected=_query,
    same=close(rtol=0, atol=0),
    hints=(N_("Only the unlabelled points are candidates; the one whose |f| is smallest sits "
              "nearest the boundary."),
           N_("Take argmin over the pool of |decision_function|, then map it back to an index "
              "of X.")),
    mistakes=(
        Mistake(N_("this is the most confident point (the largest |f|): the margin query asks "
                   "for the least confident one."),
                answer=lambda d: _query(d, largest=True)),
        Mistake(N_("this is a position in the pool, not an index of X: map it back through the "
                   "pool's indices."),
                detect=lambda a, d: float(a) == float(np.argmin(_scores(d)[1]))
                and float(a) != _query(d),
                example=lambda d: float(np.argmin(_scores(d)[1]))),
    ),
)


def _gcv_data(rng):
    X = rng.uniform(-1, 1, size=(25, 1))
    K = np.exp(-((X - X.T) ** 2) / (2 * 0.3 ** 2))
    lam = float(rng.choice([0.1, 1.0]))
    H = K @ np.linalg.inv(K + lam * np.eye(25))
    return {"H": H, "y": np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(25)}


def _gcv(d, square=True):
    n = len(d["y"])
    r = d["y"] - d["H"] @ d["y"]
    t = np.trace(np.eye(n) - d["H"])
    return float(n * (r @ r) / (t ** 2 if square else t))


EX2 = Exercise(
    id="14.2", kind="formula", chapter_notebook=NB,
    title=N_("Generalised cross-validation"),
    statement=N_("For a linear smoother $\\hat y = Hy$, generalised cross-validation (Craven & "
                 "Wahba 1979) estimates the risk by $\\mathrm{GCV} = n \\|y - Hy\\|^2 / "
                 "(\\mathrm{tr}(I - H))^2$. Compute it for the hat matrix `H` and labels `y`."),
    answer_kind=N_("a number"),
    make_data=_gcv_data,
    solution=("n = len(y)\n"
              "r = y - H @ y\n"
              "answer = n * (r @ r) / np.trace(np.eye(n) - H) ** 2\n"),
    expected=_gcv,
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("The residuals' sum of squares, times n, over the squared trace of I − H."),
           N_("tr(I − H) = n − tr(H), the residual's degrees of freedom; it is squared in the "
              "denominator.")),
    mistakes=(
        Mistake(N_("the trace is not squared in the denominator: GCV = n‖y − Hy‖² / (tr(I − H))²."),
                answer=lambda d: _gcv(d, square=False)),
    ),
)

_SEL = "kernelnb.lab.app.regression_selection.RegressionSelectionExplorer"


def _cv5(d, degree=None):
    stats = dashboard_stats(_SEL, {}, **d["setting"])
    return stats["d_cv5"] if degree is None else stats


def _sel_data(rng):
    # a setting where cross-validation and the true risk disagree (the mistake is then visible)
    for _attempt in range(20):
        d = {"setting": {"seed": int(rng.integers(0, 100)),
                         "noise": float(rng.choice([0.05, 0.2]))}}
        stats = _cv5(d, True)
        if stats["d_cv5"] != stats["best_d"]:
            break
    return d


EX3 = Exercise(
    id="14.3", kind="dashboard", chapter_notebook=NB, needs="lab",
    title=N_("The degree 5-fold cross-validation picks"),
    statement=N_("Open the regression model selection dashboard at your `setting` "
                 "(`RegressionSelectionExplorer(**setting)`) and read the degree d that 5-fold "
                 "cross-validation picks. The check runs the dashboard's own update at your "
                 "setting."),
    answer_kind=N_("an integer, the degree"),
    make_data=_sel_data,
    imports="from kernelnb.lab.app import RegressionSelectionExplorer\n",
    solution=("app = RegressionSelectionExplorer(**setting)\n"
              "answer = app.last_stats['d_cv5']\n"),
    expected=lambda d: float(_cv5(d)),
    same=close(rtol=0, atol=0),
    hints=(N_("The readout lists each criterion's choice of d beside its risk ratio."),
           N_("Read the row of 5-fold cross-validation, not the degree of the lowest true "
              "risk (which needs the true function).")),
    mistakes=(
        Mistake(N_("this is the degree of the lowest true risk, which only the dashboard knows "
                   "(it has the true function); the question asks which degree 5-fold "
                   "cross-validation picks."),
                detect=lambda a, d: float(a) != float(_cv5(d))
                and float(a) == float(_cv5(d, True)["best_d"]),
                example=lambda d: float(_cv5(d, True)["best_d"])),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="14.q1", prompt=N_("Why does querying the point nearest the boundary save labels?"),
        choices=(
            Choice(N_("Its label is the most uncertain, so it changes the boundary most; far "
                      "points' labels are already predicted."), True,
                   N_("Right: for an SVM it roughly halves the version space per query.")),
            Choice(N_("Points near the boundary are always mislabelled."), False,
                   N_("No: they are uncertain, not wrong.")),
            Choice(N_("It makes the kernel cheaper."), False,
                   N_("No: the cost is in labels, not kernel evaluations.")),
        )),
    Question(
        id="14.q2", prompt=N_("For model selection in regression, what does the true risk need "
                              "that the criteria do not?"),
        choices=(
            Choice(N_("The true function (or unlimited test data)."), True,
                   N_("Right: the criteria (CV, GCV, penalties) estimate it from the sample "
                      "alone.")),
            Choice(N_("The training sample."), False,
                   N_("No: every criterion uses the training sample.")),
            Choice(N_("A kernel."), False,
                   N_("No: the models may be polynomials of degree d.")),
        )),
    Question(
        id="14.q3", kind="numeric",
        prompt=N_("A linear smoother on n = 50 points has tr(H) = 10. What is tr(I − H)?"),
        value=40.0, tolerance=0.01,
        right=N_("Right: n − tr(H) = 50 − 10 = 40, the residual's degrees of freedom."),
        wrong=N_("Not quite: tr(I − H) = n − tr(H).")),
)
