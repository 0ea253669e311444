"""Chapter 11, prior knowledge I: the kernel PCA map (a centred Gram matrix, the projections on
the leading components) and vicinal risk's widths."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss, sq_dists

NB = "11_prior_knowledge_vicinal_kpca"


def _centre(K):
    n = len(K)
    H = np.eye(n) - np.ones((n, n)) / n
    return H @ K @ H


def _kdata(rng):
    X = rng.standard_normal((12, 2))
    return {"X": X, "sigma": 1.0}


EX1 = Exercise(
    id="11.1", kind="formula", chapter_notebook=NB,
    title=N_("The centred Gram matrix"),
    statement=N_("Kernel PCA works on the Gram matrix of the points centred in feature space: "
                 "$\\tilde K = HKH$ with $H = I - \\frac1n \\mathbf 1 \\mathbf 1^\\top$. Compute "
                 "it for the Gaussian kernel of width `sigma` on the rows of `X`."),
    answer_kind=N_("a 12 × 12 array"),
    make_data=_kdata,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "n = len(X)\n"
              "H = np.eye(n) - np.ones((n, n)) / n\n"
              "answer = H @ K @ H\n"),
    expected=lambda d: _centre(gauss(d["X"], d["X"], d["sigma"])),
    same=close(rtol=1e-8, atol=1e-12),
    hints=(N_("Centring in feature space subtracts the mean row and the mean column of K and "
              "adds back the overall mean."),
           N_("H K H with H = I − 1/n: both sides, so that the rows and the columns of the "
              "result sum to 0.")),
    mistakes=(
        Mistake(N_("only one side was centred (H K or K H): the rows and the columns of the "
                   "centred matrix must both sum to 0."),
                detect=lambda a, d: any(np.allclose(np.asarray(a, float), M) for M in (
                    (lambda K, H: H @ K)(gauss(d["X"], d["X"], d["sigma"]),
                                         np.eye(12) - 1 / 12),
                    (lambda K, H: K @ H)(gauss(d["X"], d["X"], d["sigma"]),
                                         np.eye(12) - 1 / 12))),
                example=lambda d: (np.eye(12) - 1 / 12) @ gauss(d["X"], d["X"], d["sigma"])),
        Mistake(N_("the matrix is not centred: kernel PCA needs the points centred in feature "
                   "space."),
                answer=lambda d: gauss(d["X"], d["X"], d["sigma"])),
    ),
)


def _first_component(d):
    w, V = np.linalg.eigh(_centre(gauss(d["X"], d["X"], d["sigma"])))
    return np.sqrt(w[-1]) * V[:, -1]


def _pc_judge(answer, d, expected):
    a = np.asarray(answer, dtype=float)
    if a.shape != expected.shape:
        return (N_("the answer should hold one projection per point, {n} numbers."),
                {"n": len(expected)})
    # an eigenvector's sign is arbitrary: either sign is right
    if np.allclose(a, expected, rtol=1e-6, atol=1e-9) or \
            np.allclose(a, -expected, rtol=1e-6, atol=1e-9):
        return None
    return (N_("this is not the projection on the first component (up to its sign)."), {})


EX2 = Exercise(
    id="11.2", kind="formula", chapter_notebook=NB,
    title=N_("Projections on the first kernel principal component"),
    statement=N_("With $\\tilde K = V \\Lambda V^\\top$ (11.1), the training points' "
                 "coordinates on the first kernel principal component are $\\sqrt{\\lambda_1} "
                 "v_1$. Compute them (either sign of $v_1$ is right)."),
    answer_kind=N_("an array of 12 numbers"),
    make_data=_kdata,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "n = len(X)\n"
              "H = np.eye(n) - np.ones((n, n)) / n\n"
              "w, V = np.linalg.eigh(H @ K @ H)\n"
              "answer = np.sqrt(w[-1]) * V[:, -1]\n"),
    expected=_first_component,
    judge=_pc_judge,
    hints=(N_("Eigen-decompose the centred Gram matrix; the first component is the one of the "
              "largest eigenvalue."),
           N_("np.linalg.eigh sorts the eigenvalues in ascending order: take the last, and "
              "scale the unit eigenvector by √λ.")),
    mistakes=(
        Mistake(N_("the unit eigenvector is not scaled: the coordinates are √λ₁ v₁."),
                detect=lambda a, d: _pc_judge(np.asarray(a, float) * np.sqrt(np.linalg.eigvalsh(
                    _centre(gauss(d["X"], d["X"], d["sigma"])))[-1]), d,
                    _first_component(d)) is None,
                example=lambda d: _first_component(d) / np.linalg.norm(_first_component(d))),
        Mistake(N_("this is the component of the smallest eigenvalue: eigh sorts them in "
                   "ascending order."),
                detect=lambda a, d: _pc_judge(a, d, (lambda w, V: np.sqrt(max(w[0], 0)) * V[:, 0])(
                    *np.linalg.eigh(_centre(gauss(d["X"], d["X"], d["sigma"]))))) is None or
                _pc_judge(a, d, np.linalg.eigh(_centre(gauss(d["X"], d["X"], d["sigma"])))[1][:, 0]
                          ) is None,
                example=lambda d: np.linalg.eigh(_centre(gauss(d["X"], d["X"], d["sigma"])))[1][:, 0]),
    ),
)


def _widths(d, include_self=False):
    """Vicinal risk's widths (Chapelle et al. 2000): each point's mean distance to its k
    nearest neighbours, times a factor."""
    D = np.sqrt(sq_dists(d["X"], d["X"]))
    if not include_self:
        np.fill_diagonal(D, np.inf)
    return np.sort(D, axis=1)[:, :d["k"]].mean(1) * d["factor"]


EX3 = Exercise(
    id="11.3", kind="formula", chapter_notebook=NB,
    title=N_("Vicinal risk's widths"),
    statement=N_("Vicinal risk spreads each training point $x_i$ over a Gaussian vicinity whose "
                 "width is `factor` times its mean distance to its `k` nearest other points. "
                 "Compute the widths for the rows of `X`."),
    answer_kind=N_("an array of 15 widths"),
    make_data=lambda rng: {"X": rng.standard_normal((15, 2)), "k": 3,
                           "factor": float(rng.choice([0.5, 1.0]))},
    solution=("D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))\n"
              "np.fill_diagonal(D, np.inf)\n"
              "answer = np.sort(D, axis=1)[:, :k].mean(axis=1) * factor\n"),
    expected=_widths,
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("For each point: the distances to the others, the k smallest, their mean."),
           N_("Put the diagonal (each point's distance to itself, 0) out of the way before "
              "sorting.")),
    mistakes=(
        Mistake(N_("each point counts itself among its neighbours (distance 0): the widths "
                   "come out too small."),
                answer=lambda d: _widths(d, include_self=True)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="11.q1", prompt=N_("What does vicinal risk minimisation replace each training point "
                              "with?"),
        choices=(
            Choice(N_("A density around it (a vicinity), over which the loss is averaged."),
                   True, N_("Right: Chapelle, Weston, Bottou & Vapnik 2000: the empirical "
                            "distribution is smoothed by vicinities.")),
            Choice(N_("Its nearest neighbour's label."), False,
                   N_("No: the labels stay; the inputs are spread.")),
            Choice(N_("A support vector."), False,
                   N_("No: every point gets a vicinity, support vector or not.")),
        )),
    Question(
        id="11.q2", prompt=N_("Why must the Gram matrix be centred before kernel PCA?"),
        choices=(
            Choice(N_("PCA finds the directions of largest variance about the mean, so the "
                      "points must have mean zero in feature space."), True,
                   N_("Right: without centring the first component points at the mean.")),
            Choice(N_("To make it positive semi-definite."), False,
                   N_("No: K is already PSD; centring keeps it PSD.")),
            Choice(N_("To normalise the kernel's values to [0, 1]."), False,
                   N_("No: centring subtracts means; it does not rescale.")),
        )),
    Question(
        id="11.q3", kind="numeric",
        prompt=N_("n = 10 points: how many non-zero eigenvalues can a centred Gram matrix have, "
                  "at most?"),
        value=9.0, tolerance=0.01,
        right=N_("Right: centring removes one dimension (the rows sum to 0): at most n − 1."),
        wrong=N_("Not quite: the vector of ones is always in the centred matrix's null space.")),
)
