"""Chapter 6, local hyperplane nearest neighbours (HKNN): the distance to a local hyperplane."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_

NB = "06_local_hyperplane_nearest_neighbours"


def _hyperplane(d, lam=None):
    """Vincent & Bengio 2002 (HKNN), eq. 4-5: the distance from x to the affine hull of the K
    neighbours, with the weight decay lam ||alpha||^2 on the hull's coordinates."""
    N, x = d["N"], d["x"]
    lam = d.get("lam", 0.0) if lam is None else lam
    c = N.mean(0)
    V = (N - c).T
    if lam == 0:   # V has rank K - 1: the least-squares solution
        alpha = np.linalg.lstsq(V, x - c, rcond=None)[0]
    else:
        alpha = np.linalg.solve(V.T @ V + lam * np.eye(V.shape[1]), V.T @ (x - c))
    return float(np.sum((x - c - V @ alpha) ** 2) + lam * alpha @ alpha)


EX1 = Exercise(
    id="06.1", kind="formula", chapter_notebook=NB,
    title=N_("The distance to a local hyperplane"),
    statement=N_("The rows of `N` are the $K = 3$ nearest neighbours of `x` in one class (in "
                 "5 dimensions). Give the squared distance from `x` to their affine hull, "
                 "$\\min_\\alpha \\|x - \\bar c - V\\alpha\\|^2$, where $\\bar c$ is their mean "
                 "and the columns of $V$ are $c_k - \\bar c$."),
    answer_kind=N_("a number"),
    make_data=lambda rng: {"N": rng.standard_normal((3, 5)), "x": rng.standard_normal(5)},
    solution=("c = N.mean(axis=0)\n"
              "V = (N - c).T\n"
              "alpha = np.linalg.lstsq(V, x - c, rcond=None)[0]\n"
              "answer = float(np.sum((x - c - V @ alpha) ** 2))\n"),
    expected=lambda d: _hyperplane(d, 0.0),
    # V has rank K - 1 = 2: lstsq and the regularised solve at lam = 0 agree to ~1e-12
    same=close(rtol=1e-7, atol=1e-10),
    hints=(N_("The hull is the mean plus any combination of the differences to the mean: a "
              "least-squares problem in α."),
           N_("Solve V α ≈ x − c̄ by least squares (V is 5 × 3 of rank 2), then the residual's "
              "squared norm.")),
    mistakes=(
        Mistake(N_("this is the distance to the neighbours' mean, not to the hyperplane through "
                   "them: the hull's directions V are missing."),
                answer=lambda d: float(np.sum((d["x"] - d["N"].mean(0)) ** 2))),
        Mistake(N_("this is the distance to the nearest neighbour, as k-NN measures it."),
                answer=lambda d: float(np.min(np.sum((d["N"] - d["x"]) ** 2, axis=1)))),
    ),
)

EX2 = Exercise(
    id="06.2", kind="formula", chapter_notebook=NB,
    title=N_("The local hyperplane with weight decay"),
    statement=N_("HKNN penalises far reaches of the hyperplane: it minimises $\\|x - \\bar c - "
                 "V\\alpha\\|^2 + \\lambda \\|\\alpha\\|^2$. With $K = 4$ neighbours `N` of `x` "
                 "and $\\lambda$ = `lam`, give the minimum's value (the penalised squared "
                 "distance)."),
    answer_kind=N_("a number"),
    make_data=lambda rng: {"N": rng.standard_normal((4, 6)), "x": rng.standard_normal(6),
                           "lam": float(rng.choice([0.1, 1.0, 10.0]))},
    solution=("c = N.mean(axis=0)\n"
              "V = (N - c).T\n"
              "alpha = np.linalg.solve(V.T @ V + lam * np.eye(V.shape[1]), V.T @ (x - c))\n"
              "answer = float(np.sum((x - c - V @ alpha) ** 2) + lam * alpha @ alpha)\n"),
    expected=_hyperplane,
    same=close(rtol=1e-8, atol=1e-10),
    hints=(N_("A ridge regression of x − c̄ on the columns of V."),
           N_("α = (VᵀV + λI)⁻¹ Vᵀ(x − c̄); the value includes the penalty λ‖α‖².")),
    mistakes=(
        Mistake(N_("this is the distance without weight decay (λ = 0, as in 06.1): the "
                   "hyperplane then reaches as far as it likes."),
                answer=lambda d: _hyperplane(d, 0.0)),
        Mistake(N_("the penalty term is missing from the value: α minimises the penalised "
                   "distance, and its value includes λ‖α‖²."),
                answer=lambda d: (lambda c, V: (lambda a: float(np.sum((d["x"] - c - V @ a)
                                                                      ** 2)))(
                    np.linalg.solve(V.T @ V + d["lam"] * np.eye(V.shape[1]), V.T @ (d["x"] - c))))(
                    d["N"].mean(0), (d["N"] - d["N"].mean(0)).T)),
    ),
)


def _hknn_data(rng):
    from ...datasets import make_toy
    X, y = make_toy("moons", 80, noise=0.2, random_state=int(rng.integers(2 ** 31 - 1)))
    d = {"X": np.asarray(X, float), "y": np.asarray(y), "K": 4, "lam": 0.1}
    # queries on which HKNN and k-NN disagree somewhere, so that k-NN's answer is recognised
    for _attempt in range(20):
        d["Xq"] = rng.uniform(-1, 2, size=(6, 2))
        if not np.array_equal(_knn_votes(d), _hknn_by_hand(d, d["lam"])):
            break
    return d


def _hknn(d):
    from ...neighbors import HKNNClassifier
    return HKNNClassifier(n_neighbors=d["K"], weight_decay=d["lam"]).fit(
        d["X"], d["y"]).predict(d["Xq"]).astype(float)


def _hknn_by_hand(d, lam):
    out = []
    for q in d["Xq"]:
        best = None
        for label in np.unique(d["y"]):
            P = d["X"][d["y"] == label]
            N = P[np.argsort(((P - q) ** 2).sum(1))[:d["K"]]]
            dist = _hyperplane({"N": N, "x": q}, lam)
            if best is None or dist < best[0]:
                best = (dist, label)
        out.append(best[1])
    return np.array(out, dtype=float)


EX3 = Exercise(
    id="06.3", kind="formula", chapter_notebook=NB,
    title=N_("HKNN's decision"),
    statement=N_("HKNN gives a query the class whose local hyperplane (through its `K` nearest "
                 "neighbours of that class, weight decay `lam` as in 06.2) is nearest. Classify "
                 "the rows of `Xq` with the training set `X`, `y`."),
    answer_kind=N_("an array of 6 labels"),
    make_data=_hknn_data,
    solution=("def dist(N, q):\n"
              "    c = N.mean(axis=0); V = (N - c).T\n"
              "    a = np.linalg.solve(V.T @ V + lam * np.eye(V.shape[1]), V.T @ (q - c))\n"
              "    return np.sum((q - c - V @ a) ** 2) + lam * a @ a\n"
              "labels = np.unique(y)\n"
              "answer = []\n"
              "for q in Xq:\n"
              "    near = [X[y == l][np.argsort(((X[y == l] - q) ** 2).sum(1))[:K]] for l in labels]\n"
              "    answer.append(labels[np.argmin([dist(N, q) for N in near])])\n"),
    expected=_hknn,
    same=close(rtol=0, atol=0),
    hints=(N_("For each class: its K nearest neighbours of the query, their hyperplane, the "
              "penalised distance; the smallest distance wins."),
           N_("Neighbours are looked for within each class separately, not among all points.")),
    mistakes=(
        Mistake(N_("these are the k-nearest-neighbour votes among all points: HKNN compares one "
                   "local hyperplane per class."),
                detect=lambda a, d: not np.array_equal(_knn_votes(d), _hknn(d))
                and np.array_equal(np.asarray(a, float), _knn_votes(d)),
                example=lambda d: _knn_votes(d)),
    ),
)


def _knn_votes(d):
    out = []
    for q in d["Xq"]:
        idx = np.argsort(((d["X"] - q) ** 2).sum(1))[:d["K"]]
        vals, counts = np.unique(d["y"][idx], return_counts=True)
        out.append(vals[np.argmax(counts)])
    return np.array(out, dtype=float)


EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="06.q1", prompt=N_("What does the local hyperplane of HKNN fill in that k-NN "
                              "does not see?"),
        choices=(
            Choice(N_("The points of the class's local manifold between and around its "
                      "neighbours."), True,
                   N_("Right: Vincent & Bengio's idea: the neighbours span a local linear "
                      "approximation of the manifold.")),
            Choice(N_("The labels of the unlabelled points."), False,
                   N_("No: HKNN is supervised; it uses labelled neighbours only.")),
            Choice(N_("The kernel's feature space."), False,
                   N_("No: the hyperplane lives in input space (a kernel version exists).")),
        )),
    Question(
        id="06.q2", prompt=N_("Why does HKNN add a weight decay λ‖α‖²?"),
        choices=(
            Choice(N_("So that the hyperplane does not extend too far from the neighbours."),
                   True, N_("Right: without it the hyperplane is infinite, and a far point "
                            "can be close to it.")),
            Choice(N_("To make the distance faster to compute."), False,
                   N_("No: the cost is a small linear solve either way.")),
            Choice(N_("To choose K."), False,
                   N_("No: K is chosen separately, e.g. by validation.")),
        )),
    Question(
        id="06.q3", kind="numeric",
        prompt=N_("K = 3 neighbours in general position in 10 dimensions: what is the dimension "
                  "of their affine hull?"),
        value=2.0, tolerance=0.01,
        right=N_("Right: K points span an affine subspace of dimension K − 1."),
        wrong=N_("Not quite: two points span a line (dimension 1); three, a plane.")),
)
