"""Chapter 9, choosing kernel parameters by gradient: the kernel's derivative in σ, kernel ridge's
closed-form leave-one-out residuals, and a regressor chosen that way on real data."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss, sq_dists

NB = "09_choosing_kernel_parameters_by_gradient"


def _dk(d):
    from ...kernels import RBF
    # kernelnb gives dK/dlog sigma; dK/dsigma = (dK/dlog sigma) / sigma
    return np.asarray(RBF(sigma=d["sigma"]).gradient(d["X"], d["Z"])["log_sigma"]) / d["sigma"]


EX1 = Exercise(
    id="09.1", kind="formula", chapter_notebook=NB,
    title=N_("The Gaussian kernel's derivative in σ"),
    statement=N_("Gradient descent on a bound needs $\\partial K / \\partial \\sigma$. For "
                 "$K_{ij} = \\exp(-\\|x_i - z_j\\|^2 / (2\\sigma^2))$ between the rows of `X` and "
                 "`Z`, compute $\\partial K_{ij} / \\partial \\sigma$."),
    answer_kind=N_("a 6 × 4 array"),
    make_data=lambda rng: {"X": rng.standard_normal((6, 2)), "Z": rng.standard_normal((4, 2)),
                           "sigma": float(rng.choice([0.8, 1.2]))},
    solution=("D2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)\n"
              "answer = np.exp(-D2 / (2 * sigma ** 2)) * D2 / sigma ** 3\n"),
    expected=_dk,
    same=close(rtol=1e-7, atol=1e-10),
    hints=(N_("Differentiate the exponent −D²/(2σ²) in σ, and multiply by K (the chain rule)."),
           N_("∂/∂σ of −D²/(2σ²) is D²/σ³; so ∂K/∂σ = K · D²/σ³.")),
    mistakes=(
        Mistake(N_("this is the derivative in log σ (K·D²/σ²): in σ itself divide once more "
                   "by σ."),
                answer=lambda d: gauss(d["X"], d["Z"], d["sigma"]) * sq_dists(d["X"], d["Z"])
                / d["sigma"] ** 2),
        Mistake(N_("a factor 2: the derivative of −D²/(2σ²) is D²/σ³, not 2D²/σ³ or D²/(2σ³)."),
                detect=lambda a, d: any(np.allclose(np.asarray(a, float), f * _dk(d))
                                        for f in (2.0, 0.5)),
                example=lambda d: 2 * _dk(d)),
    ),
)


def _loo_data(rng):
    X = rng.uniform(-3, 3, size=(30, 1))
    return {"X": X, "y": np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(30), "sigma": 0.7,
            "lam": float(rng.choice([0.05, 0.5]))}


def _loo(d):
    from ...ridge import loo_residuals
    # kernelnb's residuals for each penalty given: one row, lam's
    return np.asarray(loo_residuals(gauss(d["X"], d["X"], d["sigma"]), d["y"], [d["lam"]]))[0]


def _loo_by_hand(d, divide=True):
    K = gauss(d["X"], d["X"], d["sigma"])
    H = K @ np.linalg.inv(K + d["lam"] * np.eye(len(K)))
    r = d["y"] - H @ d["y"]
    return r / (1 - np.diag(H)) if divide else r


EX2 = Exercise(
    id="09.2", kind="formula", chapter_notebook=NB,
    title=N_("Kernel ridge's leave-one-out residuals in closed form"),
    statement=N_("For kernel ridge regression (02.2) the hat matrix is $H = K(K + \\lambda "
                 "I)^{-1}$, and the leave-one-out residual of point $i$ is $(y_i - (Hy)_i) / "
                 "(1 - H_{ii})$: no refit needed. Compute them with the Gaussian kernel of width "
                 "`sigma` and $\\lambda$ = `lam`."),
    answer_kind=N_("an array of 30 residuals"),
    make_data=_loo_data,
    solution=("K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))\n"
              "H = K @ np.linalg.inv(K + lam * np.eye(len(X)))\n"
              "answer = (y - H @ y) / (1 - np.diag(H))\n"),
    expected=_loo,
    # cond(K + λI) ≤ 31/0.05 ≈ 600: the inverse and kernelnb's eigendecomposition agree to 1e-10
    same=close(rtol=1e-6, atol=1e-8),
    hints=(N_("The fitted values are H y; the residuals are divided by one minus the diagonal "
              "of H."),
           N_("H = K @ inv(K + λI); r_i = (y_i − (H y)_i) / (1 − H_ii).")),
    mistakes=(
        Mistake(N_("these are the training residuals: the leave-one-out residual divides each "
                   "by 1 − H_ii."),
                answer=lambda d: _loo_by_hand(d, divide=False)),
    ),
)


def _boston(rng):
    from ...datasets import load_boston
    X, y = load_boston()
    keep = rng.permutation(len(X))[:200]
    return {"X": np.asarray(X, float)[keep], "y": np.asarray(y, float)[keep]}


def _r2_cv(model, X, y, folds=5, seed=0):
    from sklearn.base import clone
    from sklearn.model_selection import KFold
    out = []
    for tr, te in KFold(folds, shuffle=True, random_state=seed).split(X):
        m = clone(model).fit(X[tr], y[tr])
        res = y[te] - m.predict(X[te])
        out.append(1 - res @ res / ((y[te] - y[te].mean()) ** 2).sum())
    return np.array(out)


_REFERENCES: dict = {}


def _reference(d):
    key = d["y"].tobytes()
    if key not in _REFERENCES:
        _REFERENCES.clear()
        _REFERENCES[key] = _reference_cv(d)
    return _REFERENCES[key]


def _reference_cv(d):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ...ridge import KernelRidge
    return _r2_cv(make_pipeline(StandardScaler(), KernelRidge(alpha=0.1, sigma=3.0)),
                  d["X"], d["y"])


def _judge(answer, d, ref):
    from sklearn.base import is_regressor
    if not is_regressor(answer):
        return (N_("the answer should be a regressor (it is fitted again on each fold)."), {})
    r2 = _r2_cv(answer, d["X"], d["y"])
    floor = ref.mean() - 2 * ref.std()
    if r2.mean() < floor:
        return (N_("its 5-fold R² is {r2}, below the reference's spread (at least {floor})."),
                {"r2": float(r2.mean()), "floor": float(floor)})
    return None


def _unscaled(a, d):
    from sklearn.pipeline import Pipeline
    return not isinstance(a, Pipeline) and _judge(a, d, _reference(d)) is not None


EX3 = Exercise(
    id="09.3", kind="data", chapter_notebook=NB,
    title=N_("Kernel ridge on the Boston housing data"),
    statement=N_("`X`, `y` are 200 districts of the Boston housing data (13 features, the "
                 "median value). Choose a kernel ridge regressor with kernelnb (`KernelRidgeCV` "
                 "chooses λ by the closed-form leave-one-out of 09.2; choose σ and the "
                 "features' scaling), and say why in a Markdown cell. The check cross-validates "
                 "it on your data against a reference's spread."),
    answer_kind=N_("a regressor (e.g. a pipeline ending in kernelnb's KernelRidgeCV)"),
    make_data=_boston,
    imports=("import numpy as np\nfrom sklearn.pipeline import make_pipeline\n"
             "from sklearn.preprocessing import StandardScaler\n"
             "from kernelnb.ridge import KernelRidgeCV\n"),
    solution=("answer = make_pipeline(StandardScaler(),\n"
              "                       KernelRidgeCV(alphas=(0.01, 0.1, 1.0), sigmas=(2.0, 3.0, 5.0)))\n"),
    expected=_reference,
    judge=_judge,
    hints=(N_("The 13 features have very different units (a rate, a count of rooms, a tax): "
              "standardise them before a Gaussian kernel."),
           N_("Standardised, the points are a few units apart: σ between 2 and 5, λ chosen by "
              "leave-one-out among 0.01 to 1.")),
    mistakes=(
        Mistake(N_("the features are not standardised: the largest (the tax, in the hundreds) "
                   "decides every distance, and the Gaussian kernel sees almost nothing else."),
                detect=_unscaled,
                example=lambda d: __import__("kernelnb.ridge", fromlist=["KernelRidge"])
                .KernelRidge(alpha=0.1, sigma=3.0)),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="09.q1", prompt=N_("Why tune σ by the gradient of a bound rather than by a grid?"),
        choices=(
            Choice(N_("With many parameters (one scale per feature) a grid is impossible; a "
                      "gradient costs about one SVM per step."), True,
                   N_("Right: Chapelle et al. 2002 tune hundreds of scaling factors this way.")),
            Choice(N_("The gradient always finds the global minimum."), False,
                   N_("No: the bounds are not convex in σ; it finds a local minimum.")),
            Choice(N_("A grid cannot be used with SVMs."), False,
                   N_("No: a grid works for one or two parameters.")),
        )),
    Question(
        id="09.q2", prompt=N_("Kernel ridge's leave-one-out residual is $r_i / (1 - H_{ii})$. "
                              "What does it cost for all n points?"),
        choices=(
            Choice(N_("One fit (one solve or eigendecomposition), not n."), True,
                   N_("Right: the hat matrix gives every leave-one-out residual at once.")),
            Choice(N_("n fits, one per point left out."), False,
                   N_("No: that is what the closed form avoids.")),
            Choice(N_("It cannot be computed exactly."), False,
                   N_("No: for a linear smoother it is exact.")),
        )),
    Question(
        id="09.q3", kind="numeric",
        prompt=N_("A training residual of 0.3 at a point with $H_{ii} = 0.4$: what is its "
                  "leave-one-out residual?"),
        value=0.5, tolerance=0.001,
        right=N_("Right: 0.3 / (1 − 0.4) = 0.5."),
        wrong=N_("Not quite: divide the residual by 1 − H_ii.")),
)
