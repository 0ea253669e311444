"""Chapter 10, learning with large data: the mixture of SVMs' gater and output, an MLP's forward
pass (Collobert, Bengio & Bengio 2002; Collobert's thesis, ch. 6)."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_

NB = "10_learning_with_large_data"


def _softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def _gater_data(rng):
    return {"X": rng.standard_normal((7, 3)), "A": rng.standard_normal((3, 4)),
            "c": rng.standard_normal(4)}


EX1 = Exercise(
    id="10.1", kind="formula", chapter_notebook=NB,
    title=N_("The gater's weights"),
    statement=N_("The mixture's gater gives each of the $K = 4$ experts a weight $w_k(x) = "
                 "\\exp(a_k \\cdot x + c_k) / \\sum_l \\exp(a_l \\cdot x + c_l)$ (a softmax), with "
                 "$a_k$ the columns of `A`. Compute the weights of the rows of `X`."),
    answer_kind=N_("a 7 × 4 array (rows sum to 1)"),
    make_data=_gater_data,
    solution=("Z = X @ A + c\n"
              "Z -= Z.max(axis=1, keepdims=True)\n"
              "E = np.exp(Z)\n"
              "answer = E / E.sum(axis=1, keepdims=True)\n"),
    expected=lambda d: _softmax(d["X"] @ d["A"] + d["c"]),
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Scores x·a_k + c_k for every point and expert, then normalise each row."),
           N_("Divide each row's exponentials by that row's sum (axis=1), not by the whole "
              "matrix's.")),
    mistakes=(
        Mistake(N_("the normalisation is over the wrong axis: each point's weights (a row) "
                   "must sum to 1."),
                answer=lambda d: (lambda E: E / E.sum(axis=0, keepdims=True))(
                    np.exp(d["X"] @ d["A"] + d["c"]))),
        Mistake(N_("the normalisation is missing: these are the exponentials, not weights that "
                   "sum to 1."),
                answer=lambda d: np.exp(d["X"] @ d["A"] + d["c"])),
    ),
)


def _mix_data(rng):
    W = _softmax(rng.standard_normal((6, 3)))
    return {"W": W, "F": rng.standard_normal((6, 3)), "b": float(rng.normal())}


EX2 = Exercise(
    id="10.2", kind="formula", chapter_notebook=NB,
    title=N_("The mixture's output"),
    statement=N_("Each row of `F` holds the $K = 3$ experts' outputs $f_k(x)$ at one point, each "
                 "row of `W` the gater's weights there. The mixture's output is $\\sum_k w_k(x) "
                 "f_k(x) + b$. Compute it at the 6 points."),
    answer_kind=N_("an array of 6 numbers"),
    make_data=_mix_data,
    solution="answer = (W * F).sum(axis=1) + b\n",
    expected=lambda d: (d["W"] * d["F"]).sum(1) + d["b"],
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("A weighted sum per point: multiply entrywise, sum each row."),
           N_("(W * F).sum(axis=1) + b: the gater's weights differ from point to point.")),
    mistakes=(
        Mistake(N_("the experts were averaged with equal weights: the gater's weights w_k(x) "
                   "decide how much each expert counts at each point."),
                answer=lambda d: d["F"].mean(1) + d["b"]),
        Mistake(N_("a matrix product mixes the points: each point's output uses only its own "
                   "row of W and of F."),
                detect=lambda a, d: np.shape(a) != (6,) and np.size(a) in (36, 9),
                example=lambda d: d["W"] @ d["F"].T),
    ),
)


def _mlp_data(rng):
    return {"X": rng.standard_normal((5, 4)), "W1": rng.standard_normal((4, 3)),
            "b1": rng.standard_normal(3), "w2": rng.standard_normal(3),
            "b2": float(rng.normal())}


def _mlp(d, bias=True):
    H = np.tanh(d["X"] @ d["W1"] + (d["b1"] if bias else 0))
    return H @ d["w2"] + d["b2"]


EX3 = Exercise(
    id="10.3", kind="formula", chapter_notebook=NB,
    title=N_("An MLP's forward pass"),
    statement=N_("A one-hidden-layer MLP (the margin MLP of Collobert's thesis) computes "
                 "$f(x) = w_2 \\cdot \\tanh(W_1^\\top x + b_1) + b_2$, with `W1` of shape 4 × 3 "
                 "(inputs × hidden units). Compute $f$ at the rows of `X`."),
    answer_kind=N_("an array of 5 numbers"),
    make_data=_mlp_data,
    solution="answer = np.tanh(X @ W1 + b1) @ w2 + b2\n",
    expected=_mlp,     # the statement's formula: the exercise is that formula
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Hidden layer first (a linear map, then tanh), then the output's linear map."),
           N_("H = tanh(X @ W1 + b1) is 5 × 3; f = H @ w2 + b2.")),
    mistakes=(
        Mistake(N_("the hidden layer's bias b1 is missing (it goes inside the tanh)."),
                answer=lambda d: _mlp(d, bias=False)),
        Mistake(N_("the tanh is missing: without it the network is linear."),
                answer=lambda d: (d["X"] @ d["W1"] + d["b1"]) @ d["w2"] + d["b2"]),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="10.q1", prompt=N_("Why does a mixture of SVMs train faster than one SVM on a large "
                              "set?"),
        choices=(
            Choice(N_("Each expert solves an SVM on a subset: the cost grows with the subsets' "
                      "size, not with the whole set's square."), True,
                   N_("Right: with experts of fixed size an iteration costs O(n) "
                      "(Collobert et al. 2002).")),
            Choice(N_("The experts use a cheaper kernel."), False,
                   N_("No: they use the same kernel on fewer points.")),
            Choice(N_("The gater removes the support vectors."), False,
                   N_("No: the gater assigns points to experts; it removes nothing.")),
        )),
    Question(
        id="10.q2", prompt=N_("What does the gater learn?"),
        choices=(
            Choice(N_("Which expert to trust where in input space."), True,
                   N_("Right: its softmax weights w_k(x) depend on x.")),
            Choice(N_("The experts' kernel widths."), False,
                   N_("No: the widths are the experts' hyper-parameters.")),
            Choice(N_("The labels of the test points."), False,
                   N_("No: it is trained on the training points' errors.")),
        )),
    Question(
        id="10.q3", kind="numeric",
        prompt=N_("An SVM's training cost grows about as n². Going from 10,000 to 60,000 points, "
                  "by what factor does it grow?"),
        value=36.0, tolerance=0.1,
        right=N_("Right: (60,000 / 10,000)² = 36."),
        wrong=N_("Not quite: square the ratio of the sizes.")),
)
