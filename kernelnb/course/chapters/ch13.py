"""Chapter 13, learning with unlabelled data: the cluster kernel's step transfer, a graph
Laplacian, the random walk's transition matrix."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss

NB = "13_learning_with_unlabeled_data"


def _step_kernel(d, largest=True):
    """Chapelle, Weston & Schölkopf 2002, the cluster kernel with the step transfer: the
    eigenvalues of the r largest set to 1, the others to 0: K~ = V_r V_r^T."""
    w, V = np.linalg.eigh(gauss(d["X"], d["X"], d["sigma"]))
    top = V[:, -d["r"]:] if largest else V[:, :d["r"]]
    return top @ top.T


def _two_blobs(rng):
    X = np.vstack([rng.normal(-1.5, 0.4, size=(8, 2)), rng.normal(1.5, 0.4, size=(8, 2))])
    return {"X": X, "sigma": 0.8, "r": 2}


EX1 = Exercise(
    id="13.1", kind="formula", chapter_notebook=NB,
    title=N_("The cluster kernel's step transfer"),
    statement=N_("The cluster kernel (Chapelle, Weston & Schölkopf 2002) changes the spectrum of "
                 "the Gaussian Gram matrix $K = V \\Lambda V^\\top$ of labelled and unlabelled "
                 "points: the step transfer sets the `r` largest eigenvalues to 1 and the others "
                 "to 0. Compute $\\tilde K = V_r V_r^\\top$ for the rows of `X`."),
    answer_kind=N_("a 16 × 16 array"),
    make_data=_two_blobs,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "w, V = np.linalg.eigh(K)\n"
              "Vr = V[:, -r:]\n"
              "answer = Vr @ Vr.T\n"),
    expected=_step_kernel,
    # a projector onto the leading eigenvectors: well defined when the eigengap is clear
    # (two blobs, r = 2), to ~1e-10
    same=close(rtol=1e-6, atol=1e-8),
    hints=(N_("Eigen-decompose K, keep the eigenvectors of the r largest eigenvalues, and "
              "build the projector on them."),
           N_("np.linalg.eigh sorts eigenvalues in ascending order: the r largest are the last "
              "r columns.")),
    mistakes=(
        Mistake(N_("these are the r smallest eigenvalues' eigenvectors: eigh sorts them in "
                   "ascending order, the largest are the last."),
                answer=lambda d: _step_kernel(d, largest=False)),
    ),
)


def _affinity(d):
    W = gauss(d["X"], d["X"], d["sigma"])
    np.fill_diagonal(W, 0.0)
    return W


EX2 = Exercise(
    id="13.2", kind="formula", chapter_notebook=NB,
    title=N_("A graph Laplacian"),
    statement=N_("Build the graph of the points with Gaussian affinities $W_{ij} = \\exp(-\\|x_i "
                 "- x_j\\|^2 / (2\\sigma^2))$ for $i \\ne j$ and $W_{ii} = 0$, the degrees $D = "
                 "\\mathrm{diag}(\\sum_j W_{ij})$, and give the Laplacian $L = D - W$."),
    answer_kind=N_("a 16 × 16 array"),
    make_data=_two_blobs,
    solution=("W = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "np.fill_diagonal(W, 0.0)\n"
              "answer = np.diag(W.sum(axis=1)) - W\n"),
    expected=lambda d: np.diag(_affinity(d).sum(1)) - _affinity(d),
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Degrees are the rows' sums of W; the Laplacian's rows then sum to 0."),
           N_("Zero W's diagonal first (no self-loops); L = diag(W.sum(1)) − W.")),
    mistakes=(
        Mistake(N_("a sign: the Laplacian is D − W (positive semi-definite), not W − D."),
                answer=lambda d: _affinity(d) - np.diag(_affinity(d).sum(1))),
    ),
)


def _walk(d):
    W = _affinity(d)
    return W / W.sum(1, keepdims=True)


EX3 = Exercise(
    id="13.3", kind="formula", chapter_notebook=NB,
    title=N_("The random walk's transition matrix"),
    statement=N_("The random-walk view of the same graph (13.2): from point $i$ the walk goes to "
                 "$j$ with probability $P_{ij} = W_{ij} / \\sum_k W_{ik}$. Give $P = D^{-1} W$; "
                 "its rows sum to 1."),
    answer_kind=N_("a 16 × 16 array"),
    make_data=lambda rng: {**_two_blobs(rng), "sigma": 1.2},
    solution=("W = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "np.fill_diagonal(W, 0.0)\n"
              "answer = W / W.sum(axis=1, keepdims=True)\n"),
    expected=_walk,
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Each row of W, divided by its own sum."),
           N_("D⁻¹W divides the rows: W / W.sum(axis=1, keepdims=True); W D⁻¹ would divide the "
              "columns.")),
    mistakes=(
        Mistake(N_("the columns were normalised (W D⁻¹): a transition matrix's rows sum to 1."),
                answer=lambda d: _affinity(d) / _affinity(d).sum(0, keepdims=True)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="13.q1", prompt=N_("What assumption lets unlabelled points help a classifier?"),
        choices=(
            Choice(N_("The cluster assumption: points in the same cluster tend to share a "
                      "label."), True,
                   N_("Right: the boundary should then pass through low-density regions.")),
            Choice(N_("That unlabelled points are all of one class."), False,
                   N_("No: they carry no labels; only their positions are used.")),
            Choice(N_("That there are more labelled than unlabelled points."), False,
                   N_("No: typically there are far fewer labels.")),
        )),
    Question(
        id="13.q2", prompt=N_("Why is a graph Laplacian's smallest eigenvalue 0?"),
        choices=(
            Choice(N_("Its rows sum to 0, so the vector of ones is an eigenvector of "
                      "eigenvalue 0."), True,
                   N_("Right: L 1 = D 1 − W 1 = 0; one zero eigenvalue per connected "
                      "component.")),
            Choice(N_("Because W has a zero diagonal."), False,
                   N_("No: the reason is the rows' sums.")),
            Choice(N_("It is not: L is positive definite."), False,
                   N_("No: L is only positive semi-definite.")),
        )),
    Question(
        id="13.q3", kind="numeric",
        prompt=N_("A graph of 16 points in two components that do not touch: how many zero "
                  "eigenvalues has its Laplacian?"),
        value=2.0, tolerance=0.01,
        right=N_("Right: one per connected component; their eigenvectors are the components' "
                 "indicators, what clustering reads."),
        wrong=N_("Not quite: count the connected components.")),
)
