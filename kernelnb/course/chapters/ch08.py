"""Chapter 8, estimating an SVM's performance: ||w||^2 from the dual, the Jaakkola-Haussler
estimate, and the width that estimate picks (with the bounds explorer)."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss, toy

NB = "08_estimating_svm_performance"


def _fitted(rng):
    from ...svm import SVC
    X, y = toy(rng, "moons", 40, noise=0.3)
    sigma = float(rng.choice([0.4, 0.6]))
    svc = SVC(C=1.0, sigma=sigma, precision="float64", tol=1e-7).fit(X, y)
    alpha = np.zeros(len(X))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return {"X": X, "y": np.where(y == svc.classes_[1], 1.0, -1.0), "alpha": alpha,
            "b": float(svc.intercept_[0]), "sigma": sigma}, svc


def _w2_ref(d):
    from ...kernels import RBF
    from ...svm import SVC
    svc = SVC(C=1.0, sigma=d["sigma"], precision="float64", tol=1e-7).fit(
        d["X"], (d["y"] > 0).astype(int))
    sv = svc.support_vectors_
    K = np.asarray(RBF(sigma=d["sigma"])(sv, sv))
    return float(svc.dual_coef_[0] @ K @ svc.dual_coef_[0])


EX1 = Exercise(
    id="08.1", kind="formula", chapter_notebook=NB,
    title=N_("‖w‖² from the dual"),
    statement=N_("For the SVM of dual `alpha` on `X`, `y` (Gaussian kernel of width `sigma`), "
                 "the margin is $M = 1/\\|w\\|$ with $\\|w\\|^2 = \\sum_{i,j} \\alpha_i "
                 "\\alpha_j y_i y_j k(x_i, x_j)$. Compute $\\|w\\|^2$, the factor of the "
                 "radius-margin bound $R^2\\|w\\|^2/n$."),
    answer_kind=N_("a number"),
    make_data=lambda rng: _fitted(rng)[0],
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "ay = alpha * y\n"
              "answer = float(ay @ K @ ay)\n"),
    expected=_w2_ref,
    # the same dual refitted (tol 1e-7) and kernelnb's kernel: agreement to ~1e-6 relative
    same=close(rtol=1e-4, atol=1e-6),
    hints=(N_("A quadratic form in the signed coefficients α_i y_i with the kernel matrix."),
           N_("Multiply α by y entrywise first; ‖w‖² is that vector's quadratic form with K.")),
    mistakes=(
        Mistake(N_("the labels are missing: ‖w‖² = Σ α_i α_j y_i y_j k(x_i, x_j), with y_i y_j."),
                answer=lambda d: float(d["alpha"] @ gauss(d["X"], d["X"], d["sigma"])
                                       @ d["alpha"])),
        Mistake(N_("this is the margin's width 2/‖w‖ or the margin 1/‖w‖, not ‖w‖²."),
                detect=lambda a, d: any(np.isclose(float(a), v, rtol=1e-3) for v in (
                    2 / np.sqrt(_w2_ref(d)), 1 / np.sqrt(_w2_ref(d)))),
                example=lambda d: 1 / np.sqrt(_w2_ref(d))),
    ),
)


def _jh_data(rng):
    # drawn again until the estimate differs from the training error (the mistake shows)
    for _attempt in range(20):
        d, svc = _fitted(rng)
        if abs(_jh_by_hand(d) - _train_err(d)) > 1e-9:
            break
    return d


def _f(d):
    return (d["alpha"] * d["y"]) @ gauss(d["X"], d["X"], d["sigma"]) + d["b"]


def _jh_by_hand(d):
    return float(np.mean(d["alpha"] * 1.0 >= d["y"] * _f(d)))


def _train_err(d):
    return float(np.mean(d["y"] * _f(d) <= 0))


def _jh_ref(d):
    from ...model_selection import jaakkola_haussler
    from ...svm import SVC
    y01 = (d["y"] > 0).astype(int)
    svc = SVC(C=1.0, sigma=d["sigma"], precision="float64", tol=1e-7).fit(d["X"], y01)
    return float(jaakkola_haussler(svc, d["X"], y01))


EX2 = Exercise(
    id="08.2", kind="formula", chapter_notebook=NB,
    title=N_("The Jaakkola–Haussler estimate"),
    statement=N_("Removing point $p$ from an SVM changes $y_p f(x_p)$ by at most $\\alpha_p "
                 "K_{pp}$; so $\\frac1n \\#\\{p : \\alpha_p K_{pp} \\ge y_p f(x_p)\\}$ estimates "
                 "the leave-one-out error. Compute it for the SVM of dual `alpha`, offset `b` "
                 "(Gaussian kernel of width `sigma`: $K_{pp} = 1$) on `X`, `y`."),
    answer_kind=N_("a number between 0 and 1"),
    make_data=_jh_data,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "f = (alpha * y) @ K + b\n"
              "answer = np.mean(alpha * np.diag(K) >= y * f)\n"),
    expected=_jh_ref,
    # a count over 40 points: a difference is at least 1/40; ties at y f = α K are not drawn
    same=close(rtol=0, atol=1e-9),
    hints=(N_("Compute f at every training point, then count the points whose margin y f is "
              "at most α K_pp."),
           N_("f = (α y) @ K + b; the count uses α_p · K_pp (here K_pp = 1) on the left of ≥.")),
    mistakes=(
        Mistake(N_("this is the training error (y f ≤ 0): the estimate counts the points whose "
                   "margin is at most α_p K_pp, what removing them could cost."),
                answer=_train_err),
    ),
)

_BOUNDS = "kernelnb.lab.app.bounds_explorer.BoundsExplorer"


def _curve(d):
    from ._common import _APPS, dashboard_stats
    dashboard_stats(_BOUNDS, {"grid": 10, "n_samples": 50}, **d["setting"], axis="sigma")
    app = next(a for k, a in _APPS.items() if k[0] == _BOUNDS)
    trace = next(t for t in app.fig.data if t.name == "Jaakkola-Haussler")
    return np.asarray(trace.x, float), np.asarray(trace.y, float)


def _rm_best(d):
    x, y = _curve(d)
    return float(x[int(np.nanargmin(y))])


def _rm_judge(answer, d, best):
    s = float(answer)
    x, y = _curve(d)
    if not (x.min() * 0.99 <= s <= x.max() * 1.01):
        return (N_("σ = {s} is outside the chart's range of σ."), {"s": s})
    at = float(y[int(np.argmin(np.abs(np.log(x) - np.log(s))))])
    if at > np.nanmin(y) + 0.01:
        return (N_("at σ = {s} the Jaakkola–Haussler estimate is {v}, above its smallest value "
                   "on the chart."), {"s": s, "v": at})
    return None


EX3 = Exercise(
    id="08.3", kind="dashboard", chapter_notebook=NB, needs="lab",
    title=N_("The width the Jaakkola–Haussler estimate picks"),
    statement=N_("Open the bounds explorer at your `setting` (`BoundsExplorer(**setting)`, x axis "
                 "σ) and read on its chart the σ at which the Jaakkola–Haussler estimate (08.2) "
                 "is smallest. The check reads the chart the dashboard's own update draws at "
                 "your setting."),
    answer_kind=N_("a number, the value of σ"),
    make_data=lambda rng: {"setting": {"seed": int(rng.integers(0, 100)),
                                       "C": float(rng.choice([1.0, 10.0]))}},
    imports="import numpy as np\nfrom kernelnb.lab.app import BoundsExplorer\n",
    solution=("app = BoundsExplorer(grid=10, n_samples=50, **setting)\n"
              "curve = next(t for t in app.fig.data if t.name == 'Jaakkola-Haussler')\n"
              "answer = float(np.asarray(curve.x)[np.nanargmin(np.asarray(curve.y, float))])\n"),
    expected=_rm_best,
    judge=_rm_judge,
    hints=(N_("The chart draws every estimate along σ; follow the Jaakkola–Haussler curve to "
              "its lowest point."),
           N_("Hover the curve's points: the lowest one's σ is the answer; the test error's "
              "curve is another one.")),
    mistakes=(
        Mistake(N_("this is where the test error is smallest; the question asks where the "
                   "Jaakkola–Haussler estimate is, which needs no test data."),
                detect=lambda a, d: _rm_judge(a, d, None) is not None and np.isclose(
                    float(a), _test_best(d), rtol=1e-3),
                example=lambda d: _test_best(d)),
    ),
)


def _test_best(d):
    from ._common import _APPS
    _curve(d)
    app = next(a for k, a in _APPS.items() if k[0] == _BOUNDS)
    trace = next(t for t in app.fig.data if t.name == "test error")
    x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
    rx, ry = _curve(d)
    # the test error's minimum where the Jaakkola-Haussler estimate is not at its own
    order = np.argsort(y, kind="stable")
    for i in order:
        if ry[i] > np.nanmin(ry) + 0.01:
            return float(x[i])
    return float(x[order[-1]])


EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="08.q1", prompt=N_("Which of these needs no retraining to estimate the "
                              "leave-one-out error?"),
        choices=(
            Choice(N_("The span estimate, from one SVM's dual."), True,
                   N_("Right: the span S_p of each support vector is computed from the trained "
                      "SVM (Chapelle's thesis, ch. 3).")),
            Choice(N_("Exact leave-one-out."), False,
                   N_("No: it trains n SVMs, one without each point.")),
            Choice(N_("k-fold cross-validation."), False,
                   N_("No: it trains k SVMs.")),
        )),
    Question(
        id="08.q2", prompt=N_("Why is the support-vector count a bound on the leave-one-out "
                              "error?"),
        choices=(
            Choice(N_("Removing a point that is not a support vector leaves the SVM unchanged, "
                      "so it is classified right."), True,
                   N_("Right: only support vectors can become leave-one-out errors.")),
            Choice(N_("Support vectors are always misclassified."), False,
                   N_("No: most support vectors are classified right.")),
            Choice(N_("The margin is the same for every point."), False,
                   N_("No: the argument is about which points change the solution.")),
        )),
    Question(
        id="08.q3", kind="numeric",
        prompt=N_("R² = 1 (Gaussian kernel), ‖w‖² = 12, n = 100: what is the radius-margin "
                  "estimate R²‖w‖²/n, in %?"),
        value=12.0, tolerance=0.05,
        right=N_("Right: 1 × 12 / 100 = 12 %."),
        wrong=N_("Not quite: multiply R² by ‖w‖², divide by n.")),
)
