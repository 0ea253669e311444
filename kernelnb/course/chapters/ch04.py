"""Chapter 4, inside the SVM solver: the SMO pair update, the working set, the gradient."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss

NB = "04_inside_the_solver"


def _state(rng):
    X = rng.standard_normal((12, 2))
    y = np.where(rng.random(12) < 0.5, -1.0, 1.0)
    y[:2] = (1.0, -1.0)
    C = 1.0
    alpha = np.zeros(12)
    return {"X": X, "y": y, "C": C, "sigma": 1.0, "alpha": alpha}


def _Q(d):
    return np.outer(d["y"], d["y"]) * gauss(d["X"], d["X"], d["sigma"])


def _gradient(d):
    return _Q(d) @ d["alpha"] - 1.0


def _pair(d, clip=True):
    """The SMO step on the maximal violating pair (Keerthi et al. 2001; Fan, Chen & Lin 2005):
    i maximises -y_t G_t over I_up, j minimises it over I_low, the step moves alpha_i and
    alpha_j along y_i a_i + y_j a_j = const, clipped to the box [0, C]."""
    y, a, C = d["y"], d["alpha"], d["C"]
    G = _gradient(d)
    up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
    low = ((y > 0) & (a > 0)) | ((y < 0) & (a < C))
    score = -y * G
    i = int(np.flatnonzero(up)[np.argmax(score[up])])
    j = int(np.flatnonzero(low)[np.argmin(score[low])])
    K = gauss(d["X"], d["X"], d["sigma"])
    eta = K[i, i] + K[j, j] - 2 * K[i, j]
    step = (score[i] - score[j]) / eta
    new = a.copy()
    new[i] += y[i] * step
    new[j] -= y[j] * step
    if clip:
        # clip the step to the box along the line (both variables stay in [0, C])
        lo, hi = -np.inf, np.inf
        for t, sgn in ((i, y[i]), (j, -y[j])):
            # new_t = a_t + sgn * s must lie in [0, C]
            bounds = sorted(((0 - a[t]) / sgn, (C - a[t]) / sgn))
            lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
        s = min(max(step, lo), hi)
        new = a.copy()
        new[i] += y[i] * s
        new[j] -= y[j] * s
    return i, j, new


EX1 = Exercise(
    id="04.1", kind="formula", chapter_notebook=NB,
    title=N_("The gradient of the dual"),
    statement=N_("The solver minimises $W(\\alpha) = \\frac12 \\alpha^\\top Q \\alpha - "
                 "\\sum_i \\alpha_i$ with $Q_{ij} = y_i y_j k(x_i, x_j)$ (Gaussian kernel of "
                 "width `sigma`). Compute its gradient $G = Q\\alpha - 1$ at `alpha`."),
    answer_kind=N_("an array of 12 numbers"),
    make_data=lambda rng: {**_state(rng), "alpha": rng.uniform(0, 1, 12)},
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "answer = (np.outer(y, y) * K) @ alpha - 1.0\n"),
    expected=_gradient,
    same=close(rtol=1e-9, atol=1e-10),
    hints=(N_("The gradient of ½αᵀQα is Qα, and that of −Σα_i is −1 in every coordinate."),
           N_("Q = np.outer(y, y) * K (entrywise), then G = Q @ alpha − 1.")),
    mistakes=(
        Mistake(N_("the labels are missing from Q: Q_ij = y_i y_j k(x_i, x_j), not k(x_i, x_j)."),
                answer=lambda d: gauss(d["X"], d["X"], d["sigma"]) @ d["alpha"] - 1.0),
        Mistake(N_("a sign in the dual: the gradient of −Σα_i is −1, so G = Qα − 1."),
                answer=lambda d: _Q(d) @ d["alpha"] + 1.0),
    ),
)

EX2 = Exercise(
    id="04.2", kind="formula", chapter_notebook=NB,
    title=N_("The maximal violating pair"),
    statement=N_("At `alpha` (all zero: the solver's start), with $G = Q\\alpha - 1$, the "
                 "working set is the pair $i \\in I_{up}$ maximising $-y_t G_t$ and $j \\in "
                 "I_{low}$ minimising it, where $I_{up} = \\{t: y_t = 1, \\alpha_t < C\\} \\cup "
                 "\\{t: y_t = -1, \\alpha_t > 0\\}$ and $I_{low} = \\{t: y_t = 1, \\alpha_t > "
                 "0\\} \\cup \\{t: y_t = -1, \\alpha_t < C\\}$. Give $(i, j)$; at a tie take the "
                 "smallest index."),
    answer_kind=N_("two indices (i, j)"),
    make_data=_state,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "G = (np.outer(y, y) * K) @ alpha - 1.0\n"
              "up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))\n"
              "low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))\n"
              "s = -y * G\n"
              "answer = (np.flatnonzero(up)[np.argmax(s[up])], np.flatnonzero(low)[np.argmin(s[low])])\n"),
    expected=lambda d: np.array(_pair(d)[:2], dtype=float),
    same=close(rtol=0, atol=0),
    hints=(N_("At α = 0 the gradient is −1 everywhere, so −y_t G_t = y_t: only the sets decide."),
           N_("At α = 0, I_up holds the points with y = +1 and I_low those with y = −1; take "
              "the first of each.")),
    mistakes=(
        Mistake(N_("i and j are swapped: i comes from I_up (the largest −y G), j from I_low."),
                answer=lambda d: np.array(_pair(d)[1::-1], dtype=float)),
    ),
)

EX3 = Exercise(
    id="04.3", kind="formula", chapter_notebook=NB,
    title=N_("The SMO pair update, clipped to the box"),
    statement=N_("Take the pair $(i, j)$ of 04.2 on this data and move $\\alpha_i, \\alpha_j$ "
                 "along $y_i \\alpha_i + y_j \\alpha_j = $ const by the Newton step $s = "
                 "(-y_i G_i + y_j G_j) / \\eta$, $\\eta = K_{ii} + K_{jj} - 2K_{ij}$: "
                 "$\\alpha_i \\mathrel{+}= y_i s$, $\\alpha_j \\mathrel{-}= y_j s$, the step "
                 "clipped so that both stay in $[0, C]$. Give the new $\\alpha$."),
    answer_kind=N_("an array of 12 numbers, the new α"),
    make_data=lambda rng: {**_state(rng), "C": float(rng.choice([0.2, 0.5]))},
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "G = (np.outer(y, y) * K) @ alpha - 1.0\n"
              "up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))\n"
              "low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))\n"
              "s = -y * G\n"
              "i, j = np.flatnonzero(up)[np.argmax(s[up])], np.flatnonzero(low)[np.argmin(s[low])]\n"
              "step = (s[i] - s[j]) / (K[i, i] + K[j, j] - 2 * K[i, j])\n"
              "lo, hi = -np.inf, np.inf\n"
              "for t, sgn in ((i, y[i]), (j, -y[j])):\n"
              "    b = sorted(((0 - alpha[t]) / sgn, (C - alpha[t]) / sgn))\n"
              "    lo, hi = max(lo, b[0]), min(hi, b[1])\n"
              "step = min(max(step, lo), hi)\n"
              "answer = alpha.copy()\n"
              "answer[i] += y[i] * step\n"
              "answer[j] -= y[j] * step\n"),
    expected=lambda d: _pair(d)[2],
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Compute the unconstrained step first, then the interval of steps that keeps "
              "both α in [0, C], and clip."),
           N_("With a small C the Newton step overshoots: both new α must stay at most C; "
              "clip the step.")),
    mistakes=(
        Mistake(N_("the step is not clipped: some α leave the box [0, C]."),
                answer=lambda d: _pair(d, clip=False)[2]),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="04.q1", prompt=N_("Why does SMO update two dual variables at a time, not one?"),
        choices=(
            Choice(N_("The equality constraint Σ y_i α_i = 0 cannot stay true if only one α "
                      "moves."), True,
                   N_("Right: two is the smallest working set that can move along the "
                      "constraint; its sub-problem is solved in closed form.")),
            Choice(N_("Two variables halve the kernel evaluations."), False,
                   N_("No: the reason is the constraint; kernel rows are what the cache saves.")),
            Choice(N_("One variable would make the problem non-convex."), False,
                   N_("No: the problem stays convex; one variable simply cannot move.")),
        )),
    Question(
        id="04.q2", prompt=N_("What does shrinking do in the decomposition solver?"),
        choices=(
            Choice(N_("It sets aside variables likely to stay at a bound, and checks them again "
                      "at the end."), True,
                   N_("Right: the sub-problems get smaller; a final pass on all variables keeps "
                      "the solution exact.")),
            Choice(N_("It reduces C as the iterations go."), False,
                   N_("No: C is the problem's; shrinking changes which variables are active.")),
            Choice(N_("It compresses the kernel cache."), False,
                   N_("No: the cache keeps kernel rows; shrinking is about the variables.")),
        )),
    Question(
        id="04.q3", kind="numeric",
        prompt=N_("A kernel row of 10,000 points in float32 takes 40 kB. How many rows does a "
                  "200 MB kernel cache hold (in thousands, 1 MB = 1000 kB)?"),
        value=5.0, tolerance=0.05,
        right=N_("Right: 200,000 kB / 40 kB = 5,000 rows, half the kernel matrix."),
        wrong=N_("Not quite: divide the cache's size by one row's size.")),
)
