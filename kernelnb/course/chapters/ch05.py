"""Chapter 5, Kernel Matching Pursuit: the greedy step, the residual, back-fitting."""
from __future__ import annotations

import numpy as np

from .._exercise import Exercise, Mistake, close
from ..quizzes import Choice, Question
from ._common import N_, gauss

NB = "05_kernel_matching_pursuit"


def _dictionary(rng):
    # drawn again until the normalised choice differs from the raw one (the mistake is visible)
    for _attempt in range(50):
        d = _draw(rng)
        if _step(d, False)[0] != _step(d)[0]:
            return d
    return d


def _draw(rng):
    X = rng.uniform(-2, 2, size=(25, 1))
    centres = rng.uniform(-2, 2, size=(8, 1))
    # columns of unequal norms (widths differ), so that the normalised choice differs from the raw
    D = np.column_stack([gauss(X, centres[j:j + 1], s)[:, 0] * w for j, (s, w) in
                         enumerate(zip(rng.uniform(0.2, 1.0, 8), rng.uniform(0.5, 3.0, 8)))])
    r = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(25)
    return {"D": D, "r": r}


def _step(d, normalised=True):
    """Mallat & Zhang's matching pursuit step (Vincent & Bengio 2002, eq. 3): the column
    maximising |<d_j, r>| / ||d_j||, its coefficient <d_j, r> / ||d_j||^2."""
    D, r = d["D"], d["r"]
    dots = D.T @ r
    norms2 = (D ** 2).sum(0)
    j = int(np.argmax(np.abs(dots) / np.sqrt(norms2) if normalised else np.abs(dots)))
    return j, dots[j] / norms2[j]


EX1 = Exercise(
    id="05.1", kind="formula", chapter_notebook=NB,
    title=N_("Kernel Matching Pursuit's greedy step"),
    statement=N_("The columns $d_j$ of `D` are candidate basis functions evaluated at the "
                 "training points, `r` the current residual. Matching pursuit picks the column "
                 "$j$ maximising $|\\langle d_j, r\\rangle| / \\|d_j\\|$ and its coefficient "
                 "$\\beta = \\langle d_j, r\\rangle / \\|d_j\\|^2$. Give $(j, \\beta)$."),
    answer_kind=N_("two numbers (j, β)"),
    make_data=_dictionary,
    solution=("dots = D.T @ r\n"
              "norms2 = (D ** 2).sum(axis=0)\n"
              "j = int(np.argmax(np.abs(dots) / np.sqrt(norms2)))\n"
              "answer = (j, dots[j] / norms2[j])\n"),
    expected=lambda d: np.array(_step(d), dtype=float),
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("The best column is the one most correlated with the residual, once each "
              "column's length is taken out."),
           N_("Divide |D.T @ r| by the columns' norms before the argmax; β divides by the "
              "squared norm.")),
    mistakes=(
        Mistake(N_("the column's norm is missing from the choice: a long column wins only by "
                   "its length. Divide |⟨d_j, r⟩| by ‖d_j‖."),
                answer=lambda d: np.array(_step(d, normalised=False), dtype=float)),
    ),
)

EX2 = Exercise(
    id="05.2", kind="formula", chapter_notebook=NB,
    title=N_("The residual after a step"),
    statement=N_("With the step $(j, \\beta)$ of 05.1 on the same kind of data, give the new "
                 "residual $r - \\beta d_j$, and check that it is orthogonal to $d_j$."),
    answer_kind=N_("an array of 25 numbers"),
    make_data=_dictionary,
    solution=("dots = D.T @ r\n"
              "norms2 = (D ** 2).sum(axis=0)\n"
              "j = int(np.argmax(np.abs(dots) / np.sqrt(norms2)))\n"
              "answer = r - dots[j] / norms2[j] * D[:, j]\n"),
    expected=lambda d: d["r"] - _step(d)[1] * d["D"][:, _step(d)[0]],
    same=close(rtol=1e-9, atol=1e-12),
    hints=(N_("Remove from the residual its projection on the chosen column."),
           N_("r_new = r − β d_j; then D[:, j] @ r_new is 0 up to rounding.")),
    mistakes=(
        Mistake(N_("a sign: the projection is subtracted from the residual, r − β d_j."),
                answer=lambda d: d["r"] + _step(d)[1] * d["D"][:, _step(d)[0]]),
    ),
)


def _backfit(d):
    return np.linalg.lstsq(d["D"][:, d["chosen"]], d["y"], rcond=None)[0]


EX3 = Exercise(
    id="05.3", kind="formula", chapter_notebook=NB,
    title=N_("Back-fitting the weights"),
    statement=N_("Back-fitting KMP re-solves all the weights of the chosen basis functions at "
                 "each step: the least-squares fit of `y` on the columns `chosen` of `D`. Give "
                 "the weights."),
    answer_kind=N_("an array of one weight per chosen column"),
    make_data=lambda rng: {**_dictionary(rng), "y": rng.standard_normal(25),
                           "chosen": sorted(rng.choice(8, 3, replace=False).tolist())},
    solution="answer = np.linalg.lstsq(D[:, chosen], y, rcond=None)[0]\n",
    expected=_backfit,
    # 3 columns of 25 rows, conditioning O(10): least squares to ~1e-14
    same=close(rtol=1e-8, atol=1e-10),
    hints=(N_("All the chosen weights at once: a linear least-squares problem."),
           N_("np.linalg.lstsq(D[:, chosen], y) solves it; fitting each column alone is not "
              "the same when the columns are not orthogonal.")),
    mistakes=(
        Mistake(N_("each weight was fitted alone (⟨d_j, y⟩ / ‖d_j‖²): the columns are not "
                   "orthogonal, so they must be fitted together."),
                answer=lambda d: np.array([d["D"][:, j] @ d["y"] / (d["D"][:, j] ** 2).sum()
                                           for j in d["chosen"]])),
    ),
)

EXERCISES = (EX1, EX2, EX3)

QUIZZES = (
    Question(
        id="05.q1", prompt=N_("What does KMP's back-fitting do that basic matching pursuit does "
                              "not?"),
        choices=(
            Choice(N_("It re-optimises every weight chosen so far at each step."), True,
                   N_("Right: basic pursuit freezes earlier weights; back-fitting solves the "
                      "least squares on all chosen functions.")),
            Choice(N_("It removes basis functions that were chosen earlier."), False,
                   N_("No: the chosen functions stay; only their weights change.")),
            Choice(N_("It chooses several functions per step."), False,
                   N_("No: one function per step, as in basic pursuit.")),
        )),
    Question(
        id="05.q2", prompt=N_("Why can KMP give a sparser model than an SVM?"),
        choices=(
            Choice(N_("The number of basis functions is chosen directly, not implied by the "
                      "support vectors."), True,
                   N_("Right: KMP stops after N functions (chosen by validation); an SVM keeps "
                      "every point with α > 0.")),
            Choice(N_("It uses a different kernel."), False,
                   N_("No: both can use the same Gaussian kernel.")),
            Choice(N_("It has no regularisation."), False,
                   N_("No: stopping early is its regularisation.")),
        )),
    Question(
        id="05.q3", kind="numeric",
        prompt=N_("After a matching-pursuit step, what is $\\langle d_j, r_{new} \\rangle$ for "
                  "the column $d_j$ just chosen?"),
        value=0.0, tolerance=1e-9,
        right=N_("Right: the new residual is orthogonal to the column it was projected on."),
        wrong=N_("Not quite: r_new = r − β d_j with β = ⟨d_j, r⟩ / ‖d_j‖²; compute ⟨d_j, r_new⟩.")),
)
