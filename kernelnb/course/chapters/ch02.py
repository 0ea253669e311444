"""Chapter 2, kernels, the kernel trick and kernel ridge regression: exercises and quizzes."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss

NB = "02_kernels_kernel_ridge"


def _gram(d):
    from ...kernels import RBF
    return np.asarray(RBF(sigma=d["sigma"])(d["X"], d["Z"]))


EX1 = Exercise(
    id="02.1", kind="formula", chapter_notebook=NB,
    title=N_("A Gaussian kernel block"),
    statement=N_("Compute the kernel block $K_{ij} = \\exp(-\\|x_i - z_j\\|^2 / (2\\sigma^2))$ "
                 "between the rows $x_i$ of `X` (8 points) and the rows $z_j$ of `Z` (5 points)."),
    answer_kind=N_("an 8 × 5 array"),
    make_data=lambda rng: {"X": rng.standard_normal((8, 3)), "Z": rng.standard_normal((5, 3)),
                           "sigma": float(rng.choice([0.7, 1.0, 1.5]))},
    solution=("D2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)\n"
              "answer = np.exp(-D2 / (2 * sigma ** 2))\n"),
    expected=_gram,
    # kernelnb computes ‖x‖² + ‖z‖² − 2x·z, numpy the differences: they agree to ~1e-15
    # relative on O(1) data; 1e-7 is far below any mistake's effect
    same=close(rtol=1e-7, atol=1e-10),
    hints=(N_("One entry per pair (row of X, row of Z): the squared distance, then the "
              "exponential."),
           N_("D2[i, j] = Σ_k (X[i, k] − Z[j, k])², K = exp(−D2 / (2σ²)): rows for X, columns "
              "for Z.")),
    mistakes=(
        Mistake(N_("your kernel divides by σ² where the course's Gaussian kernel divides by "
                   "2σ²."),
                answer=lambda d: gauss(d["X"], d["Z"], d["sigma"], 1.0)),
    ),
)


def _ridge_data(rng):
    X = rng.uniform(-3, 3, size=(30, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(30)
    return {"X": X, "y": y, "sigma": 0.7, "lam": float(rng.choice([0.01, 0.1, 1.0])),
            "Xq": rng.uniform(-3, 3, size=(4, 1))}


def _ridge(d):
    from ...ridge import KernelRidge
    return KernelRidge(alpha=d["lam"], sigma=d["sigma"]).fit(d["X"], d["y"]).predict(d["Xq"])


EX2 = Exercise(
    id="02.2", kind="formula", chapter_notebook=NB,
    title=N_("Kernel ridge regression's closed form"),
    statement=N_("Kernel ridge regression minimises $\\sum_i (y_i - f(x_i))^2 + \\lambda "
                 "\\|f\\|^2$; its solution is $f(x) = \\sum_i \\alpha_i k(x_i, x)$ with "
                 "$\\alpha = (K + \\lambda I)^{-1} y$. With the Gaussian kernel of width "
                 "`sigma` and $\\lambda$ = `lam`, predict at the rows of `Xq`."),
    answer_kind=N_("an array of 4 predictions"),
    make_data=_ridge_data,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "alpha = np.linalg.solve(K + lam * np.eye(len(X)), y)\n"
              "Kq = np.exp(-((Xq[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "answer = Kq @ alpha\n"),
    expected=_ridge,
    # cond(K + λI) ≤ (30 + λ)/λ ≤ 3e3 at λ = 0.01: a solve loses at most ~4 digits of 16
    same=close(rtol=1e-7, atol=1e-8),
    hints=(N_("Solve the linear system (K + λI) α = y, then evaluate f at the queries with the "
              "kernel between the queries and the training points."),
           N_("alpha = np.linalg.solve(K + lam * np.eye(n), y); f(Xq) = K(Xq, X) @ alpha.")),
    mistakes=(
        Mistake(N_("the regulariser λI is missing: (K + λI)⁻¹, not K⁻¹."),
                answer=lambda d: gauss(d["Xq"], d["X"], d["sigma"]) @ np.linalg.lstsq(
                    gauss(d["X"], d["X"], d["sigma"]), d["y"], rcond=None)[0]),
        Mistake(N_("your kernel divides by σ² where the course's Gaussian kernel divides by "
                   "2σ²."),
                answer=lambda d: gauss(d["Xq"], d["X"], d["sigma"], 1.0) @ np.linalg.solve(
                    gauss(d["X"], d["X"], d["sigma"], 1.0) + d["lam"] * np.eye(len(d["X"])),
                    d["y"])),
    ),
)


def _poly(d):
    from ...kernels import Polynomial
    return np.asarray(Polynomial(degree=2, coef0=1.0)(d["X"], d["X"]))


def _psd_judge(answer, d, expected):
    K = np.asarray(answer, dtype=float)
    n = len(d["X"])
    if K.shape != (n, n):
        return (N_("a Gram matrix of the {n} points is {n} × {n}."), {"n": n})
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12):
        return (N_("a Gram matrix is symmetric: k(x, z) = k(z, x)."), {})
    low = float(np.linalg.eigvalsh(K).min())
    # eigenvalues of a PSD matrix computed in float64 may dip to -n·eps·‖K‖
    if low < -1e-9 * max(1.0, np.abs(K).max()) * n:
        return (N_("this matrix has a negative eigenvalue ({low}): it is not the Gram matrix "
                   "of any kernel."), {"low": low})
    if not np.allclose(K, expected, rtol=1e-9, atol=1e-9):
        return (N_("this matrix is positive semi-definite, but not the Gram matrix of "
                   "(x·z + 1)²."), {})
    return None


EX3 = Exercise(
    id="02.3", kind="formula", chapter_notebook=NB,
    title=N_("A polynomial Gram matrix, positive semi-definite"),
    statement=N_("Compute the Gram matrix $K_{ij} = (x_i \\cdot x_j + 1)^2$ of the rows of `X`. "
                 "The check verifies that it is symmetric and positive semi-definite, as any "
                 "kernel's Gram matrix is, and that it is this kernel's."),
    answer_kind=N_("a 10 × 10 array"),
    make_data=lambda rng: {"X": rng.standard_normal((10, 2))},
    solution="answer = (X @ X.T + 1.0) ** 2\n",
    expected=_poly,
    judge=_psd_judge,
    hints=(N_("One entry per pair of points: their dot product, plus one, squared."),
           N_("X @ X.T gives every dot product at once; add 1 to every entry and square each "
              "entry (not the matrix).")),
    mistakes=(
        Mistake(N_("you squared the matrix (a matrix product) instead of each entry: use ** 2 "
                   "on the entries."),
                answer=lambda d: (d["X"] @ d["X"].T + 1.0) @ (d["X"] @ d["X"].T + 1.0),
                detect=lambda a, d: np.allclose(np.asarray(a, float),
                                                (d["X"] @ d["X"].T + 1.0) @ (d["X"] @ d["X"].T
                                                                             + 1.0))),
        Mistake(N_("this is x·z² + 1 (the +1 outside the square) or (x·z)² + 1: the +1 goes "
                   "inside, (x·z + 1)²."),
                answer=lambda d: (d["X"] @ d["X"].T) ** 2 + 1.0,
                detect=lambda a, d: np.allclose(np.asarray(a, float),
                                                (d["X"] @ d["X"].T) ** 2 + 1.0)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="02.q1", prompt=N_("Which of these functions is not a valid (positive "
                              "semi-definite) kernel on every data set?"),
        choices=(
            Choice(N_("$k(x, z) = \\tanh(x \\cdot z - 1)$"), True,
                   N_("Right: the sigmoid kernel is not PSD in general; its Gram matrices can "
                      "have negative eigenvalues.")),
            Choice(N_("$k(x, z) = \\exp(-\\|x - z\\|^2 / (2\\sigma^2))$"), False,
                   N_("No: the Gaussian kernel is PSD for every σ > 0.")),
            Choice(N_("$k(x, z) = (x \\cdot z + 1)^3$"), False,
                   N_("No: sums and products of kernels are kernels, and so is x·z + 1.")),
        )),
    Question(
        id="02.q2", prompt=N_("In kernel ridge regression, what does $\\lambda \\to 0$ give "
                              "with a Gaussian kernel and distinct points?"),
        choices=(
            Choice(N_("An interpolant: f(x_i) = y_i at every training point."), True,
                   N_("Right: K is invertible, α = K⁻¹y and f passes through every label, "
                      "noise included.")),
            Choice(N_("The constant function equal to the mean of y."), False,
                   N_("No: that is λ → ∞ with an offset; with λ → ∞ alone f → 0.")),
            Choice(N_("A linear function."), False,
                   N_("No: the Gaussian kernel's functions are not linear, whatever λ.")),
        )),
    Question(
        id="02.q3", kind="numeric",
        prompt=N_("The polynomial kernel $(x \\cdot z + 1)^2$ on 2-D inputs is a dot product in "
                  "a feature space of how many dimensions?"),
        value=6.0, tolerance=0.01,
        right=N_("Right: 1, √2·x₁, √2·x₂, x₁², x₂², √2·x₁x₂: six monomials of degree ≤ 2."),
        wrong=N_("Not quite: count the monomials of degree at most 2 in two variables.")),
)
