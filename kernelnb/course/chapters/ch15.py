"""Chapter 15, margins for everyone: the Perceptron's epoch, the normalised margin, the hinge
loss."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_

NB = "15_margins_for_everyone"


def _linsep(rng):
    w = rng.standard_normal(2)
    X = rng.standard_normal((20, 2))
    y = np.where(X @ w >= 0, 1.0, -1.0)
    return {"X": X, "y": y, "w0": rng.standard_normal(2), "eta": 1.0}


def _epoch(d, always=False):
    """Rosenblatt's Perceptron, one pass in order: w <- w + eta y_i x_i when y_i w.x_i <= 0."""
    w = d["w0"].copy()
    for x, y in zip(d["X"], d["y"]):
        if always or y * (w @ x) <= 0:
            w = w + d["eta"] * y * x
    return w


EX1 = Exercise(
    id="15.1", kind="formula", chapter_notebook=NB,
    title=N_("One epoch of the Perceptron"),
    statement=N_("Starting from `w0` (no bias), pass once over the rows of `X` in order: when "
                 "$y_i\\, w \\cdot x_i \\le 0$ (a mistake, or on the boundary) update $w \\leftarrow "
                 "w + \\eta\\, y_i x_i$ ($\\eta$ = `eta`). Give $w$ at the end."),
    answer_kind=N_("an array of 2 numbers"),
    make_data=_linsep,
    solution=("w = w0.copy()\n"
              "for x, t in zip(X, y):\n"
              "    if t * (w @ x) <= 0:\n"
              "        w = w + eta * t * x\n"
              "answer = w\n"),
    expected=_epoch,
    same=close(rtol=1e-12, atol=1e-12),
    hints=(N_("Update only on the points the current w gets wrong; w changes during the "
              "pass, so test each point with the w of that moment."),
           N_("The test is y_i (w · x_i) ≤ 0 with the current w, and the update adds "
              "η y_i x_i.")),
    mistakes=(
        Mistake(N_("every point updated w: the Perceptron updates only on mistakes."),
                answer=lambda d: _epoch(d, always=True)),
    ),
)


def _margin_data(rng):
    d = _linsep(rng)
    return {"X": d["X"], "y": d["y"], "w": rng.standard_normal(2) * 3}


def _rho(d, normalise=True):
    m = d["y"] * (d["X"] @ d["w"])
    return float(m.min() / (np.linalg.norm(d["w"]) if normalise else 1.0))


EX2 = Exercise(
    id="15.2", kind="formula", chapter_notebook=NB,
    title=N_("The normalised margin"),
    statement=N_("The margin of a linear classifier $w$ (no bias) on a sample is $\\rho = "
                 "\\min_i y_i\\, w \\cdot x_i / \\|w\\|$: negative when some point is on the wrong "
                 "side. Compute it for `w` on `X`, `y`."),
    answer_kind=N_("a number"),
    make_data=_margin_data,
    solution="answer = np.min(y * (X @ w)) / np.linalg.norm(w)\n",
    expected=_rho,
    same=close(rtol=1e-10, atol=1e-12),
    hints=(N_("Each point's signed distance to the boundary, then the smallest."),
           N_("y_i (w · x_i) is a functional margin; divide by ‖w‖ to make it a distance.")),
    mistakes=(
        Mistake(N_("‖w‖ is missing: y w·x is the functional margin, which doubles when w "
                   "doubles; ρ divides by ‖w‖."),
                answer=lambda d: _rho(d, normalise=False)),
    ),
)


def _hinge(d, perceptron=False):
    m = d["y"] * (d["X"] @ d["w"])
    return float(np.mean(np.maximum(0.0, (0.0 if perceptron else 1.0) - m)))


EX3 = Exercise(
    id="15.3", kind="formula", chapter_notebook=NB,
    title=N_("The hinge loss of a classifier"),
    statement=N_("The SVM's loss is the hinge $\\max(0, 1 - y f(x))$; the Perceptron's is "
                 "$\\max(0, -y f(x))$. Give the mean hinge loss of $f(x) = w \\cdot x$ on `X`, "
                 "`y`."),
    answer_kind=N_("a number"),
    make_data=lambda rng: {**_margin_data(rng), "w": rng.standard_normal(2) * 0.7},
    solution="answer = np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))\n",
    expected=_hinge,
    same=close(rtol=1e-10, atol=1e-12),
    hints=(N_("The margins y f(x) first; the loss is zero beyond 1."),
           N_("max(0, 1 − m) for each margin m, then the mean; the 1 is what makes the SVM "
              "ask for a margin.")),
    mistakes=(
        Mistake(N_("this is the Perceptron's loss max(0, −y f(x)): the hinge has the 1, "
                   "max(0, 1 − y f(x))."),
                answer=lambda d: _hinge(d, perceptron=True)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="15.q1", prompt=N_("On separable data, what does Novikoff's theorem bound?"),
        choices=(
            Choice(N_("The Perceptron's number of mistakes, by (R/ρ)²."), True,
                   N_("Right: R the data's radius, ρ the best margin: a large margin means few "
                      "updates.")),
            Choice(N_("The test error of the SVM."), False,
                   N_("No: it is about the Perceptron's training mistakes.")),
            Choice(N_("The number of support vectors."), False,
                   N_("No: the Perceptron has no support vectors as such.")),
        )),
    Question(
        id="15.q2", prompt=N_("What does the 1 in the hinge loss max(0, 1 − y f(x)) ask of a "
                              "classifier?"),
        choices=(
            Choice(N_("A margin: points must be beyond y f(x) = 1, not merely on the right "
                      "side."), True,
                   N_("Right: with ‖w‖ regularised, that is a geometric margin of 1/‖w‖.")),
            Choice(N_("A bias term equal to 1."), False,
                   N_("No: the 1 is in the loss, not in f.")),
            Choice(N_("Labels in {0, 1}."), False,
                   N_("No: the labels are ±1.")),
        )),
    Question(
        id="15.q3", kind="numeric",
        prompt=N_("R = 2 and the best margin ρ = 0.5: what is Novikoff's bound on the "
                  "Perceptron's mistakes?"),
        value=16.0, tolerance=0.01,
        right=N_("Right: (R / ρ)² = (2 / 0.5)² = 16."),
        wrong=N_("Not quite: (R / ρ)².")),
)
