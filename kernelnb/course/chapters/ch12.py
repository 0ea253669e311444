"""Chapter 12, prior knowledge II: invariances (the tangent vector of a rotation, virtual
examples) and data cleaning (the SVM's slacks)."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, toy

NB = "12_prior_knowledge_invariances_cleaning"


EX1 = Exercise(
    id="12.1", kind="formula", chapter_notebook=NB,
    title=N_("The tangent vector of a rotation"),
    statement=N_("The invariant SVM needs, at each point $x$, the tangent vector of the "
                 "transformation it should be invariant to: $\\frac{d}{d\\theta} R_\\theta x$ at "
                 "$\\theta = 0$. For rotations about the origin in the plane, compute it at each "
                 "row of `X`."),
    answer_kind=N_("an array of the shape of X"),
    make_data=lambda rng: {"X": rng.standard_normal((8, 2))},
    solution="answer = np.column_stack([-X[:, 1], X[:, 0]])\n",
    expected=lambda d: np.column_stack([-d["X"][:, 1], d["X"][:, 0]]),
    same=close(rtol=1e-12, atol=1e-12),
    hints=(N_("R_θ = [[cos θ, −sin θ], [sin θ, cos θ]]; differentiate at θ = 0."),
           N_("At θ = 0, cos′ = −sin = 0 and sin′ = cos = 1: differentiate each entry of R_θ, "
              "then apply that matrix to each point.")),
    mistakes=(
        Mistake(N_("a sign: this is the tangent of the rotation the other way, (x₂, −x₁); the "
                   "derivative of R_θ x at θ = 0 is (−x₂, x₁)."),
                answer=lambda d: np.column_stack([d["X"][:, 1], -d["X"][:, 0]])),
    ),
)


def _rot(X, t):
    c, s = np.cos(t), np.sin(t)
    return X @ np.array([[c, -s], [s, c]]).T


EX2 = Exercise(
    id="12.2", kind="formula", chapter_notebook=NB,
    title=N_("Virtual examples"),
    statement=N_("The virtual-SV method (Schölkopf, Burges & Vapnik 1996) adds the support "
                 "vectors transformed: here each row of `S` rotated by $+\\theta$ and by "
                 "$-\\theta$ ($\\theta$ = `theta` radians). Give the rotated points, those by "
                 "$+\\theta$ first, then those by $-\\theta$, in the order of `S`."),
    answer_kind=N_("an array of 2 × len(S) rows"),
    make_data=lambda rng: {"S": rng.standard_normal((5, 2)),
                           "theta": float(rng.choice([0.1, 0.2]))},
    solution=("c, s = np.cos(theta), np.sin(theta)\n"
              "R = np.array([[c, -s], [s, c]])\n"
              "answer = np.vstack([S @ R.T, S @ R])\n"),
    expected=lambda d: np.vstack([_rot(d["S"], d["theta"]), _rot(d["S"], -d["theta"])]),
    same=close(rtol=1e-10, atol=1e-12),
    hints=(N_("Apply the rotation matrix to each point (a row): x ↦ R x, that is X @ R.T."),
           N_("For rows, X @ R.T rotates by +θ and X @ R by −θ (R is orthogonal).")),
    mistakes=(
        Mistake(N_("the rotations are the wrong way: for points stored as rows, X @ R.T "
                   "rotates by +θ (X @ R rotates by −θ)."),
                answer=lambda d: np.vstack([_rot(d["S"], -d["theta"]),
                                            _rot(d["S"], d["theta"])])),
    ),
)


def _slack_data(rng):
    X, y = toy(rng, "moons", 50, noise=0.2)
    y = np.where(y == 1, 1.0, -1.0)
    flip = rng.choice(50, 3, replace=False)
    y[flip] = -y[flip]
    return {"X": X, "y": y, "C": 1.0, "sigma": 0.5}


def _f(d):
    from ...svm import SVC
    svc = SVC(C=d["C"], sigma=d["sigma"], precision="float64", tol=1e-7).fit(
        d["X"], (d["y"] > 0).astype(int))
    return svc.decision_function(d["X"])


EX3 = Exercise(
    id="12.3", kind="formula", chapter_notebook=NB,
    title=N_("The slacks that point at mislabelled data"),
    statement=N_("Fit kernelnb's `SVC` (C = `C`, Gaussian kernel of width `sigma`) on `X`, `y` "
                 "(three labels were flipped) and give every point's slack $\\xi_i = \\max(0, "
                 "1 - y_i f(x_i))$: the largest point at the suspects."),
    answer_kind=N_("an array of 50 slacks"),
    make_data=_slack_data,
    imports="import numpy as np\nfrom kernelnb.svm import SVC\n",
    solution=("svc = SVC(C=C, sigma=sigma, precision='float64', tol=1e-7).fit(X, (y > 0).astype(int))\n"
              "answer = np.maximum(0.0, 1.0 - y * svc.decision_function(X))\n"),
    expected=lambda d: np.maximum(0.0, 1.0 - d["y"] * _f(d)),
    # the same solver at tol 1e-7: f agrees to ~1e-6
    same=close(rtol=1e-4, atol=1e-4),
    hints=(N_("Fit, then the decision function at the training points themselves."),
           N_("ξ_i = max(0, 1 − y_i f(x_i)), with y in {−1, +1}: the label multiplies f.")),
    mistakes=(
        Mistake(N_("the label is missing: the slack is max(0, 1 − y_i f(x_i)), with y_i."),
                answer=lambda d: np.maximum(0.0, 1.0 - _f(d))),
        Mistake(N_("the max with 0 is missing: points beyond the margin have slack 0, not a "
                   "negative one."),
                answer=lambda d: 1.0 - d["y"] * _f(d)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="12.q1", prompt=N_("What do virtual support vectors add to the training set?"),
        choices=(
            Choice(N_("The support vectors transformed by the invariance (shifted, rotated), "
                      "with their labels."), True,
                   N_("Right: only the support vectors matter for the solution, so only they "
                      "are transformed.")),
            Choice(N_("Random points near the boundary."), False,
                   N_("No: the new points come from a known transformation.")),
            Choice(N_("Unlabelled points."), False,
                   N_("No: each virtual example keeps its original's label.")),
        )),
    Question(
        id="12.q2", prompt=N_("Why do points with large slacks point at mislabelled data?"),
        choices=(
            Choice(N_("A flipped label puts a point deep on the wrong side of the boundary, "
                      "where its slack is large."), True,
                   N_("Right: ranking by ξ (or α at the bound) finds most flips first.")),
            Choice(N_("Mislabelled points are always support vectors with small α."), False,
                   N_("No: they tend to be at the bound, α = C.")),
            Choice(N_("Large slacks mean the kernel is wrong."), False,
                   N_("No: they mean the point disagrees with its neighbours' labels.")),
        )),
    Question(
        id="12.q3", kind="numeric",
        prompt=N_("A point with label y = +1 has f(x) = −0.5. What is its slack ξ?"),
        value=1.5, tolerance=0.001,
        right=N_("Right: max(0, 1 − (+1)(−0.5)) = 1.5."),
        wrong=N_("Not quite: ξ = max(0, 1 − y f(x)).")),
)
