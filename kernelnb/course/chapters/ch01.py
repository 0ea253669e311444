"""Chapter 1, nearest neighbours, Parzen windows and Nadaraya-Watson: exercises and quizzes."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss, sq_dists

NB = "01_knn_parzen_nadaraya_watson"


def _regression(rng):
    X = rng.uniform(-3, 3, size=(40, 1))
    y = np.sin(X[:, 0]) + 0.2 * rng.standard_normal(40)
    return {"X": X, "y": y, "sigma": float(rng.choice([0.3, 0.5, 0.8])),
            "Xq": rng.uniform(-2.5, 2.5, size=(6, 1))}


def _nw(d):
    from ...neighbors import NadarayaWatsonRegressor
    return NadarayaWatsonRegressor(sigma=d["sigma"]).fit(d["X"], d["y"]).predict(d["Xq"])


EX1 = Exercise(
    id="01.1", kind="formula", chapter_notebook=NB,
    title=N_("The Nadaraya–Watson estimator"),
    statement=N_("Compute the Nadaraya–Watson estimate $\\hat f(x) = \\sum_i k(x, x_i) y_i / "
                 "\\sum_i k(x, x_i)$ with the Gaussian kernel $k(x, x') = \\exp(-\\|x - x'\\|^2 "
                 "/ (2\\sigma^2))$ at the rows of `Xq`, from the sample `X`, `y`."),
    answer_kind=N_("an array of 6 numbers"),
    make_data=_regression,
    solution=("W = np.exp(-((Xq[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "answer = W @ y / W.sum(axis=1)\n"),
    expected=_nw,
    # a ratio of sums of 40 positive terms: kernelnb's and numpy's agree to rounding (1e-12);
    # 1e-8 leaves room for a different order of summation
    same=close(rtol=1e-8, atol=1e-10),
    hints=(N_("Weight each training label by the kernel between the query and that training "
              "point, then divide by the sum of the weights."),
           N_("W[q, i] = exp(-‖Xq[q] − X[i]‖² / (2σ²)); the estimate is (W @ y) / W.sum(axis=1).")),
    mistakes=(
        Mistake(N_("the normalisation is missing: divide the weighted sum by the sum of the "
                   "weights Σ_i k(x, x_i)."),
                answer=lambda d: gauss(d["Xq"], d["X"], d["sigma"]) @ d["y"]),
        Mistake(N_("your kernel divides by σ² where the course's Gaussian kernel divides by "
                   "2σ²."),
                answer=lambda d: (lambda W: W @ d["y"] / W.sum(1))(
                    gauss(d["Xq"], d["X"], d["sigma"], 1.0))),
    ),
)


def _density(rng):
    X = rng.standard_normal((50, 2)) * [1.0, 0.5]
    return {"X": X, "sigma": float(rng.choice([0.3, 0.4, 0.6])),
            "Xq": rng.uniform(-1.5, 1.5, size=(5, 2))}


def _parzen(d):
    from ...neighbors import ParzenDensity
    return np.exp(ParzenDensity(sigma=d["sigma"]).fit(d["X"]).score_samples(d["Xq"]))


EX2 = Exercise(
    id="01.2", kind="formula", chapter_notebook=NB,
    title=N_("The Parzen window density"),
    statement=N_("Compute the Parzen window estimate of the density, $\\hat p(x) = \\frac1n "
                 "\\sum_i \\mathcal N(x; x_i, \\sigma^2 I)$, at the rows of `Xq` from the 2-D "
                 "sample `X` ($\\mathcal N$ the Gaussian density, normalised: "
                 "$(2\\pi\\sigma^2)^{-d/2} \\exp(-\\|x - x_i\\|^2 / (2\\sigma^2))$)."),
    answer_kind=N_("an array of 5 densities"),
    make_data=_density,
    solution=("n, dim = X.shape\n"
              "D2 = ((Xq[:, None, :] - X[None, :, :]) ** 2).sum(-1)\n"
              "answer = np.exp(-D2 / (2 * sigma ** 2)).mean(axis=1) / (2 * np.pi * sigma ** 2) ** (dim / 2)\n"),
    expected=_parzen,
    same=close(rtol=1e-8, atol=1e-12),
    hints=(N_("Average the Gaussian bumps centred on the sample's points, each a density that "
              "integrates to 1."),
           N_("In d = 2 dimensions the Gaussian's constant is 1 / (2πσ²); the mean over the n "
              "points gives the 1/n.")),
    mistakes=(
        Mistake(N_("the Gaussian's normalisation (2πσ²)^(-d/2) is missing: without it the "
                   "estimate does not integrate to 1."),
                answer=lambda d: gauss(d["Xq"], d["X"], d["sigma"]).mean(1)),
        Mistake(N_("you summed the bumps instead of averaging them: the 1/n is missing."),
                answer=lambda d: gauss(d["Xq"], d["X"], d["sigma"]).sum(1)
                / (2 * np.pi * d["sigma"] ** 2)),
    ),
)


def _loo(d, leave_out=True):
    X, s = d["X"], d["sigma"]
    n, dim = X.shape
    K = gauss(X, X, s) / (2 * np.pi * s ** 2) ** (dim / 2)
    if leave_out:
        np.fill_diagonal(K, 0.0)
        return float(np.mean(np.log(K.sum(1) / (n - 1))))
    return float(np.mean(np.log(K.sum(1) / n)))


def _loo_expected(d):
    from ...neighbors import ParzenDensity
    X = d["X"]
    # kernelnb's density of each point fitted on the others: the reference
    scores = [ParzenDensity(sigma=d["sigma"]).fit(np.delete(X, i, 0)).score_samples(X[i:i + 1])[0]
              for i in range(len(X))]
    return float(np.mean(scores))


EX3 = Exercise(
    id="01.3", kind="formula", chapter_notebook=NB,
    title=N_("Parzen's leave-one-out log-likelihood"),
    statement=N_("The width of a Parzen window can be chosen by the leave-one-out "
                 "log-likelihood $\\frac1n \\sum_i \\log \\hat p_{-i}(x_i)$, where $\\hat p_{-i}$ "
                 "is the Parzen estimate (as in 01.2) from every point but $x_i$. Compute it for "
                 "the sample `X` and width `sigma`."),
    answer_kind=N_("a number"),
    make_data=lambda rng: {"X": rng.standard_normal((40, 2)),
                           "sigma": float(rng.choice([0.3, 0.5, 0.7]))},
    solution=("n, dim = X.shape\n"
              "K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "K /= (2 * np.pi * sigma ** 2) ** (dim / 2)\n"
              "np.fill_diagonal(K, 0.0)\n"
              "answer = np.mean(np.log(K.sum(axis=1) / (n - 1)))\n"),
    expected=_loo_expected,
    same=close(rtol=1e-8, atol=1e-10),
    hints=(N_("Leave x_i out of its own estimate: its own bump is the largest term and would "
              "favour ever smaller σ."),
           N_("Zero the diagonal of the normalised kernel matrix, and divide each row's sum by "
              "n − 1, not n.")),
    mistakes=(
        Mistake(N_("each point is still in its own estimate (its bump is on the diagonal): that "
                   "is the training likelihood, which grows without end as σ shrinks."),
                answer=lambda d: _loo(d, leave_out=False)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="01.q1", prompt=N_("As the Parzen width $\\sigma$ tends to 0, the training "
                              "log-likelihood of the Parzen estimate…"),
        choices=(
            Choice(N_("grows without bound."), True,
                   N_("Right: each point's own bump becomes a spike of height ∝ σ^(−d); hence "
                      "leave-one-out.")),
            Choice(N_("tends to its best value, the true density's."), False,
                   N_("No: it overfits; the true density is approached only by a σ that shrinks "
                      "slowly as n grows.")),
            Choice(N_("stays the same."), False,
                   N_("No: the heights of the bumps depend on σ.")),
        )),
    Question(
        id="01.q2", prompt=N_("In the Nadaraya–Watson estimator, what happens far from every "
                              "training point with a Gaussian kernel?"),
        choices=(
            Choice(N_("The estimate tends to the label of the nearest training point."), True,
                   N_("Right: the weights are normalised, and the nearest point's weight "
                      "dominates all others far away.")),
            Choice(N_("The estimate tends to 0."), False,
                   N_("No: that would be the unnormalised sum; the ratio of two small numbers "
                      "stays finite.")),
            Choice(N_("The estimate tends to the mean of the labels."), False,
                   N_("No: that is what a very large σ gives, not a far query.")),
        )),
    Question(
        id="01.q3", kind="numeric",
        prompt=N_("A k-nearest-neighbour classifier with k = 5 on two classes: among the 5 "
                  "nearest neighbours of x, 2 are of class A. What fraction (in %) of the votes "
                  "goes to class B?"),
        value=60.0, tolerance=0.5,
        right=N_("Right: 3 of the 5 neighbours, 60 %: x is classified B."),
        wrong=N_("Not quite: count the neighbours that are not of class A, out of 5.")),
)
