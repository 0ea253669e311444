"""Chapter 7, Manifold Parzen windows: local covariances, their principal directions, the density."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_

NB = "07_manifold_parzen_windows"


def _cov(d):
    """Vincent & Bengio 2003, Manifold Parzen: C_i = (1/k) sum over the k nearest neighbours
    x_j of x_i of (x_j - x_i)(x_j - x_i)^T (centred on x_i, not on the neighbours' mean)."""
    X, i, k = d["X"], d["i"], d["k"]
    dist = ((X - X[i]) ** 2).sum(1)
    dist[i] = np.inf
    nb = X[np.argsort(dist)[:k]] - X[i]
    return nb.T @ nb / k


def _spiral(rng):
    t = rng.uniform(0, 3 * np.pi, 60)
    X = np.column_stack([t * np.cos(t), t * np.sin(t)]) / 5 + 0.02 * rng.standard_normal((60, 2))
    return {"X": X, "i": int(rng.integers(60)), "k": 6}


EX1 = Exercise(
    id="07.1", kind="formula", chapter_notebook=NB,
    title=N_("A local covariance"),
    statement=N_("Manifold Parzen gives each training point $x_i$ the covariance of its $k$ "
                 "nearest neighbours around it: $C_i = \\frac1k \\sum_j (x_j - x_i)(x_j - "
                 "x_i)^\\top$ over the $k$ nearest $x_j \\ne x_i$. Compute it for point `i` of `X` "
                 "with `k` neighbours."),
    answer_kind=N_("a 2 × 2 array"),
    make_data=_spiral,
    solution=("d2 = ((X - X[i]) ** 2).sum(axis=1)\n"
              "d2[i] = np.inf\n"
              "D = X[np.argsort(d2)[:k]] - X[i]\n"
              "answer = D.T @ D / k\n"),
    expected=_cov,
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Find the k nearest other points, take their differences to x_i, average the "
              "outer products."),
           N_("Leave x_i out of its own neighbours, and centre on x_i (not on the neighbours' "
              "mean).")),
    mistakes=(
        Mistake(N_("the neighbours were centred on their own mean: Manifold Parzen centres "
                   "them on x_i."),
                answer=lambda d: (lambda D: D.T @ D / d["k"])(
                    (lambda nb: nb - nb.mean(0))(d["X"][np.argsort(
                        np.where(np.arange(len(d["X"])) == d["i"], np.inf,
                                 ((d["X"] - d["X"][d["i"]]) ** 2).sum(1)))[:d["k"]]]))),
        Mistake(N_("x_i is among its own neighbours (distance 0): leave it out."),
                answer=lambda d: (lambda nb: nb.T @ nb / d["k"])(
                    d["X"][np.argsort(((d["X"] - d["X"][d["i"]]) ** 2).sum(1))[:d["k"]]]
                    - d["X"][d["i"]])),
    ),
)


def _mp_cov(d, with_noise=True):
    C = d["C"]
    w, V = np.linalg.eigh(C)
    top = V[:, -d["m"]:]
    out = top @ np.diag(w[-d["m"]:]) @ top.T
    return out + d["sigma"] ** 2 * np.eye(len(C)) if with_noise else out


def _cov_data(rng):
    A = rng.standard_normal((3, 3))
    return {"C": A @ A.T, "m": 1, "sigma": float(rng.choice([0.1, 0.3]))}


EX2 = Exercise(
    id="07.2", kind="formula", chapter_notebook=NB,
    title=N_("Manifold Parzen's Gaussian"),
    statement=N_("Manifold Parzen keeps the `m` leading eigenvectors $v_j$ of a local covariance "
                 "`C` (eigenvalues $\\lambda_j$) and adds isotropic noise: $\\Sigma = \\sum_{j "
                 "\\le m} \\lambda_j v_j v_j^\\top + \\sigma^2 I$. Compute $\\Sigma$."),
    answer_kind=N_("a 3 × 3 array"),
    make_data=_cov_data,
    solution=("w, V = np.linalg.eigh(C)\n"
              "top = V[:, -m:]\n"
              "answer = top @ np.diag(w[-m:]) @ top.T + sigma ** 2 * np.eye(len(C))\n"),
    expected=_mp_cov,
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Eigen-decompose C, keep the m largest eigenvalues and their vectors, and add "
              "σ² on the diagonal."),
           N_("np.linalg.eigh returns the eigenvalues in ascending order: the leading ones are "
              "the last.")),
    mistakes=(
        Mistake(N_("the noise σ²I is missing: without it Σ is singular and the density "
                   "infinite on the plane of the directions."),
                answer=lambda d: _mp_cov(d, with_noise=False)),
        Mistake(N_("these are the smallest eigenvalues' directions: eigh sorts them in "
                   "ascending order, the leading ones are last."),
                answer=lambda d: (lambda w, V: V[:, :d["m"]] @ np.diag(w[:d["m"]])
                                  @ V[:, :d["m"]].T + d["sigma"] ** 2 * np.eye(len(d["C"])))(
                    *np.linalg.eigh(d["C"]))),
    ),
)


def _logpdf(d):
    from scipy.stats import multivariate_normal
    return float(multivariate_normal(mean=d["mu"], cov=d["S"]).logpdf(d["x"]))


def _gauss_data(rng):
    A = rng.standard_normal((3, 3))
    return {"S": A @ A.T + 0.5 * np.eye(3), "mu": rng.standard_normal(3),
            "x": rng.standard_normal(3)}


EX3 = Exercise(
    id="07.3", kind="formula", chapter_notebook=NB,
    title=N_("The log-density of one window"),
    statement=N_("Give $\\log \\mathcal N(x; \\mu, \\Sigma) = -\\frac12 (x - \\mu)^\\top "
                 "\\Sigma^{-1} (x - \\mu) - \\frac12 \\log\\det(2\\pi\\Sigma)$ for `x`, `mu`, `S` "
                 "($\\Sigma$), one window of the Manifold Parzen mixture."),
    answer_kind=N_("a number"),
    make_data=_gauss_data,
    solution=("r = x - mu\n"
              "sign, logdet = np.linalg.slogdet(2 * np.pi * S)\n"
              "answer = -0.5 * r @ np.linalg.solve(S, r) - 0.5 * logdet\n"),
    expected=_logpdf,
    same=close(rtol=1e-9, atol=1e-10),
    hints=(N_("A quadratic form with Σ⁻¹ and the log of the normalising constant."),
           N_("Use np.linalg.solve for Σ⁻¹r and np.linalg.slogdet(2πΣ) for the log-determinant "
              "(of 2πΣ, all three dimensions).")),
    mistakes=(
        Mistake(N_("the normalisation −½ log det(2πΣ) is missing."),
                answer=lambda d: float(-0.5 * (d["x"] - d["mu"]) @ np.linalg.solve(
                    d["S"], d["x"] - d["mu"]))),
        Mistake(N_("the 2π is missing from the determinant: it is det(2πΣ) = (2π)^d det Σ."),
                answer=lambda d: float(-0.5 * (d["x"] - d["mu"]) @ np.linalg.solve(
                    d["S"], d["x"] - d["mu"]) - 0.5 * np.linalg.slogdet(d["S"])[1])),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="07.q1", prompt=N_("Why does Manifold Parzen beat Parzen windows on data near a "
                              "curve?"),
        choices=(
            Choice(N_("Its Gaussians are elongated along the curve, so the mass stays near "
                      "it."), True,
                   N_("Right: each window follows the local tangent directions; Parzen's round "
                      "windows spread mass off the manifold.")),
            Choice(N_("It uses more training points."), False,
                   N_("No: the same points, one window each.")),
            Choice(N_("It has no width to choose."), False,
                   N_("No: σ², k and the number of directions are still chosen.")),
        )),
    Question(
        id="07.q2", prompt=N_("What does the noise term σ²I in each window's covariance do?"),
        choices=(
            Choice(N_("It keeps the covariance invertible and gives the windows thickness off "
                      "the manifold."), True,
                   N_("Right: with d directions only, Σ would be singular.")),
            Choice(N_("It makes the windows round."), False,
                   N_("No: the leading directions stay longer than σ.")),
            Choice(N_("It centres the windows."), False,
                   N_("No: each window is centred on its training point.")),
        )),
    Question(
        id="07.q3", kind="numeric",
        prompt=N_("In 3 dimensions, $\\log\\det(2\\pi I)$ equals $3 \\log 2\\pi$. Give it to two "
                  "decimals."),
        value=5.51, tolerance=0.01,
        right=N_("Right: 3 × log(2π) ≈ 3 × 1.8379 ≈ 5.51."),
        wrong=N_("Not quite: log(2π) ≈ 1.838; multiply by the dimension.")),
)
