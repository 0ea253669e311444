"""Active learning -- you are the oracle (Chapelle's thesis, chapter 8).

A 2-D toy whose labels are hidden: the learner (an RBF SVM) starts from two labelled points of
each class, and a strategy (:class:`kernelnb.unlabeled.ActiveLearner`: random, margin, GEM, fast
ratio, fast GEM) asks about one point of the pool at a time (a star).  The student answers with a
class button (any point can be labelled instead: click it first), or lets the true label answer
("true label"); the boundary and the test error against the number of labels follow.  "Replay"
runs random, margin, fast ratio and fast GEM from the same start with the true labels, for as
many queries, and draws their error curves beside the student's.

The lesson is the thesis's finding (section 8.7): none of the cleverer rules beats the margin
heuristic. It is about averages over many runs (the thesis: 100 trials); one run's curve jumps,
since while few points are labelled one label near the boundary can move it a lot, and the readout
says so when the last answers raised the error.
"""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from ...svm import SVC
from ...unlabeled import ActiveLearner
from ..viz import SURFACE_TRACES, decision_surface, plane_bounds, surface_data
from ..i18n import N_, _
from ._base import Dashboard, Lesson, log_slider, num, speaks, styled
from ..viz._figure_widget import FigureWidget
from ...datasets import make_toy
from ._toys import (BlankModel, add_toy_controls, click_problem, toy_name,
                    reset_noise_on_dataset_change)

__all__ = ["ActiveLearning"]

#: Trace order of the main chart: the decision surface's, then the pool, the query, the choice.
TRACES = SURFACE_TRACES + ("pool", "query", "selected")
#: Strategies offered, with their names in the page.
STRATEGY_NAMES = {"random": N_("random"), "margin": N_("margin"),
                  "fast_ratio": N_("fast ratio"), "fast_gem": N_("fast GEM"), "gem": "GEM"}
#: Strategies replayed (not exact GEM: it retrains two SVMs per candidate and query).
REPLAYED = ("random", "margin", "fast_ratio", "fast_gem")
N_TEST = 500
N_START = 2          # labelled points of each class at the start
#: Test error of the SVM trained on the whole pool with its true labels above which the classes
#: overlap (or σ does not fit the data): the regime of the thesis's experiments is a learner that
#: can fit the classes.
MAX_FULL_ERROR = 0.05
#: σ above this many times the median distance between the points is wider than the data: with
#: few labels the boundary is nearly a conic and the points nearest it say little about the bends.
MAX_SIGMA_SPREAD = 1.5
#: A rise of the test error (in [0, 1]) over the last answers that the readout explains.
JUMP = 0.02


class ActiveLearning(Dashboard):
    """Label the points an active learner asks about, and compare the strategies.

    Parameters
    ----------
    grid : int, default=50
        Resolution of the decision surface.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples`` (pool size), ``seed``,
        ``strategy``, ``C``, ``sigma``.

    Notes
    -----
    Actions (each redraws): :meth:`answer` (label the selected point, else the queried one),
    :meth:`answer_truly` (the true label answers the query, ``n`` times), :meth:`select_at` (a
    click), :meth:`replay`, :meth:`restart`.  :meth:`update` returns (and the readout shows)
    ``strategy``, ``n_labeled``, ``test_error``, ``wrong_answers`` (labels given that differ
    from the truth), ``query`` (pool index asked about), ``curves`` (error curves: ``'you'``
    and the replayed strategies), ``replay_<strategy>`` (the last error of each replayed
    strategy, nan before a replay) and ``full_pool_error`` (the test error of the SVM trained on
    the whole pool with its true labels: where it is large the classes overlap or σ does not fit
    the data, outside the regime of the thesis's experiments, :meth:`regime`).

    Examples
    --------
    >>> from kernelnb.lab.app import ActiveLearning
    >>> app = ActiveLearning(grid=15, n_samples=60)
    >>> stats = app.update(strategy="random")
    >>> stats["n_labeled"], stats["pool_left"]
    (4, 56)
    >>> app.answer_truly(3)["n_labeled"]
    7
    >>> app.answer(2)["error"]
    'label must be 0 or 1, got 2'
    """

    notebook = "active_learning"
    click_action = "select_at"
    click_label = N_("select the pool point nearest (x₁, x₂)")
    title = N_("Active learning — you are the oracle")
    purpose = N_("The learner asks for the label of one point at a time (star): answer it, or "
                 "click another point and label that, or let the true label answer. Replay "
                 "compares random, margin, GEM and the fast span-based rules from the same "
                 "start.")
    STATS = [
        ("strategy", N_("strategy"), "s"),
        ("n_labeled", N_("labelled points"), "d"),
        ("test_error", N_("test error"), ".1%"),
        ("wrong_answers", N_("answers that differ from the truth"), "d"),
    ]
    LESSON_APP = {"grid": 10}
    LESSONS = (Lesson(
        claim=N_("No cleverer rule beats the margin heuristic (ask about the point nearest the "
                 "boundary): on average over runs, after the same number of true labels its "
                 "test error is about that of the fast version-space ratio, no worse than "
                 "random questions' and below fast GEM's."),
        source=N_("Chapelle 2002, thesis §8.7"),
        holds=lambda s: (s["replay_margin"] <= s["replay_random"] + 0.02
                         and s["replay_margin"] <= s["replay_fast_gem"] - 0.02
                         and s["replay_margin"] <= s["replay_fast_ratio"] + 0.02),
        sweep={"sigma": (0.5, 1.0, 3.0), "noise": (0.0, 0.3)},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`): the
    #: strategies replayed (``lesson_stats``), one run per sample seed.
    BOOK_FIGURE = {
        "control": "seed",
        "figure": 1,
        "lesson_stats": True,
        "values": [0, 1, 2, 3, 4, 5, 6, 7],
        "readout": [("replay_random", "test error after the replay: random", ".1%"),
                    ("replay_margin", "margin", ".1%"),
                    ("replay_fast_ratio", "fast ratio", ".1%"),
                    ("replay_fast_gem", "fast GEM", ".1%")],
        "why": "The lesson is about averages over runs, and one run's curve jumps: each "
               "position is another run (another sample and start), with random, margin, fast "
               "ratio and fast GEM replayed from the same start with the true labels; the "
               "readout gives each one's last test error.",
    }

    def __init__(self, grid=50, **params):
        self.grid = grid
        self._data_key = None
        self._taught: list = []            # (pool index, label given)
        self._selected = None
        self._replay = {}
        super().__init__(**params)

    # -- widgets ---------------------------------------------------------------------------
    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=100, n_min=20, n_max=300)
        c["strategy"] = styled(widgets.ToggleButtons(
            options=[(_(STRATEGY_NAMES[s]), s) for s in STRATEGY_NAMES], value="margin",
            description=_("strategy")))
        c["strategy"].style.button_width = "104px"
        c["C"] = log_slider("C", 100.0, -1, 4, step=0.1,
                            tooltip=_("soft-margin penalty C (log scale)"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -1.5, 1, step=0.05, main=True,
                                tooltip=_("RBF width σ: k = exp(−‖x−y‖²/2σ²)"))
        self.buttons = {}
        for name, text, icon, action in (
                ("class0", _("class 0"), "circle", lambda _b: self.answer(0)),
                ("class1", _("class 1"), "circle", lambda _b: self.answer(1)),
                ("truth", _("true label"), "check", lambda _b: self.answer_truly()),
                ("truth5", _("true label ×5"), "forward", lambda _b: self.answer_truly(5)),
                ("replay", _("replay"), "play", lambda _b: self.replay()),
                ("restart", _("restart"), "undo", lambda _b: self.restart())):
            b = widgets.Button(description=text, icon=icon, layout=widgets.Layout(width="150px"))
            b.on_click(action)
            self.buttons[name] = b
        X, y = make_toy("moons", 100, noise=0.2, random_state=0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, binary=True)
        fig.add_trace(go.Scatter(uid="pool", meta="pool", name=_("unlabelled"), x=[], y=[],
                                 mode="markers", marker=dict(size=6, color="#9e9e9e"),
                                 hoverinfo="x+y"))
        fig.add_trace(go.Scatter(uid="query", meta="query", name=_("asked"), x=[], y=[],
                                 mode="markers", marker=dict(symbol="star", size=18,
                                                             color="#ffb300",
                                                             line=dict(width=1.5,
                                                                       color="black")),
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(uid="selected", meta="selected", name=_("your choice"), x=[],
                                 y=[], mode="markers",
                                 marker=dict(symbol="circle-open", size=20, color="#b00020",
                                             line=dict(width=2.5)), hoverinfo="skip"))
        fig.update_layout(height=520, uirevision="keep", clickmode="event")
        self.fig = FigureWidget(fig)
        for k in (0, TRACES.index("pool"), TRACES.index("class0"), TRACES.index("class1")):
            self.fig.data[k].on_click(self._on_click)
        curve = go.Figure()
        curve.add_trace(go.Scatter(uid="you", name=_("you"), x=[], y=[], mode="lines+markers",
                                   line=dict(width=3, color="black")))
        for s in REPLAYED:
            curve.add_trace(go.Scatter(uid=s, name=_(STRATEGY_NAMES[s]), x=[], y=[],
                                       mode="lines"))
        curve.update_layout(height=300, xaxis_title=_("labels given"),
                            yaxis_title=_("test error"),
                            yaxis_tickformat=".0%", uirevision="keep",
                            margin=dict(l=70, r=20, t=30, b=60))
        self.curve = FigureWidget(curve)
        self.figures = [self.fig, self.curve]

    def _control_rows(self):
        c, b = self.controls, self.buttons
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("learner") + "</b>"), c["strategy"], c["C"], c["sigma"],
                widgets.HTML("<b>" + _("your answer") + "</b>"),
                widgets.HBox([b["class0"], b["class1"]]),
                widgets.HBox([b["truth"], b["truth5"]]),
                widgets.HBox([b["replay"], b["restart"]])]

    # -- data ------------------------------------------------------------------------------
    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            X, y = np.asarray(X, float), np.asarray(y)
            classes = np.unique(y)
            if classes.size != 2:
                raise ValueError(_("the active-learning dashboard needs a two-class data set"))
            rng = np.random.RandomState(key[3] + 7919)
            start = np.r_[rng.permutation(np.flatnonzero(y == classes[0]))[:N_START],
                          rng.permutation(np.flatnonzero(y == classes[1]))[:N_START]]
            rest = np.setdiff1d(np.arange(len(y)), start)
            Xt, yt = make_toy(key[0], N_TEST, noise=key[1], random_state=key[3] + 1)
            self._d = dict(X0=X[start], y0=y[start], pool=X[rest], truth=y[rest],
                           Xt=np.asarray(Xt, float), yt=np.asarray(yt), classes=classes)
            self._full_key = None
            Xa = np.vstack([X[start], X[rest]])
            self._spread = float(np.median(np.sqrt(
                np.sum((Xa[:, None, :] - Xa[None, :, :]) ** 2, axis=-1))[np.triu_indices(
                    len(Xa), 1)]))
            self._bounds = plane_bounds(X, padding=0.15)
            self._taught, self._selected, self._replay = [], None, {}
            self._data_key = key
        return self._d

    def _learner(self, p, strategy):
        d = self._d
        est = SVC(C=float(p["C"]), sigma=float(p["sigma"]), precision="float64", n_jobs=1)
        return ActiveLearner(est, strategy=strategy, random_state=int(p["seed"])).fit(
            d["X0"], d["y0"], X_unlabeled=d["pool"], X_val=d["Xt"], y_val=d["yt"])

    # -- actions ---------------------------------------------------------------------------
    @speaks
    def answer(self, label):
        """Label the selected point (a click), else the point the learner asks about, with
        class ``label`` (0 or 1: the first or second class of the data set)."""
        if label not in (0, 1):
            msg = _("{name} must be {a} or {b}, got {value}").format(name="label", a=0, b=1,
                                                                      value=repr(label))
            self.show_error(msg)
            return {"error": msg}
        target = self._selected if self._selected is not None else self.last_stats.get("query")
        if target is None:
            msg = _("no point left to ask about: the pool is empty")
            self.show_error(msg)
            return {"error": msg}
        self._taught.append((int(target), self._d["classes"][label]))
        self._selected = None
        return self.update()

    def clicks_state(self):
        """The answers given, ``[[pool index, 0 or 1], ...]`` (kept by the page).

        Returns
        -------
        list
        """
        classes = list(self._d["classes"]) if getattr(self, "_d", None) else []
        return [[int(i), classes.index(lab)] for i, lab in self._taught if lab in classes]

    def restore_clicks(self, state):
        """Give again the answers of :meth:`clicks_state` (points of this pool, labels 0 or 1)
        and refit once.

        Parameters
        ----------
        state : list
            ``[[pool index, 0 or 1], ...]``.

        Returns
        -------
        int
            The answers restored.
        """
        n, classes = self._d["pool"].shape[0], self._d["classes"]
        kept, seen = [], set()
        for entry in state:
            if (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)
                    and not isinstance(entry[0], bool) and 0 <= entry[0] < n
                    and entry[1] in (0, 1) and not isinstance(entry[1], bool)
                    and entry[0] not in seen):
                seen.add(entry[0])
                kept.append((entry[0], classes[entry[1]]))
        if kept:
            self._taught, self._selected = kept, None
            self.update()
        return len(kept)

    @speaks
    def answer_truly(self, n=1):
        """Let the true label answer the learner's query, ``n`` times."""
        p = self.params()
        self._data(p)
        al = self._learner(p, p["strategy"])
        self._replay_taught(al)
        n = int(min(max(int(n), 0), al.remaining_.size))
        for _step in range(n):
            i = al.query()
            al.teach(i, self._d["truth"][i])
            self._taught.append((i, self._d["truth"][i]))
        self._selected = None
        return self.update()

    @speaks
    def select_at(self, x, y):
        """Select the unlabelled pool point nearest to (x, y) (a click); the next answer labels
        it instead of the queried point.  A bad click is refused with a message."""
        problem = click_problem(x, y, self._bounds)
        if problem is not None:
            msg = _("click ignored: {why}").format(why=problem)
            self.show_error(msg)
            return {"error": msg}
        left = self._remaining()
        if left.size == 0:
            return self.last_stats
        P = self._d["pool"][left]
        self._selected = int(left[np.argmin((P[:, 0] - float(x)) ** 2
                                            + (P[:, 1] - float(y)) ** 2)])
        return self.update()

    @speaks
    def replay(self):
        """Run every strategy from the same start with the true labels, for as many queries as
        were answered (at least 10), and draw their error curves."""
        p = self.params()
        self._data(p)
        n = int(min(max(len(self._taught), 10), self._d["pool"].shape[0]))
        curves = {}
        for s in REPLAYED:
            al = self._learner(p, s)
            for _step in range(n):
                i = al.query()
                al.teach(i, self._d["truth"][i])
            curves[s] = al.error_curve_
        self._replay = curves
        return self.update()

    def lesson_stats(self, params):
        """The lesson's numbers at ``params``: the strategies replayed from the same start with
        the true labels (:meth:`replay`), inside the regime; the update's numbers outside.

        Parameters
        ----------
        params : dict
            Control values.

        Returns
        -------
        dict
        """
        stats = self.update(raise_errors=True, **params)
        return stats if stats["regime"] else self.replay()

    def lesson_done(self, params):
        """Back at ``params``, with every answer and replay forgotten.

        Parameters
        ----------
        params : dict
            The control values before the lesson's sweep.
        """
        self.update(**params)
        self.restart()

    @speaks
    def restart(self):
        """Forget every answer (same data, same start)."""
        self._taught, self._selected, self._replay = [], None, {}
        return self.update()

    def _remaining(self):
        taught = {i for i, _ in self._taught}
        return np.array([i for i in range(self._d["pool"].shape[0]) if i not in taught],
                        dtype=int)

    def _replay_taught(self, al):
        for i, lab in self._taught:
            al.teach(int(i), lab)

    # -- work ------------------------------------------------------------------------------
    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        if given & {"C", "sigma", "strategy"}:
            self._replay = {}
        return params

    def _full_pool_error(self, p):
        """Test error of the SVM trained on the start and the whole pool with true labels."""
        key = (self._data_key, float(p["C"]), float(p["sigma"]))
        if key != self._full_key:
            d = self._d
            est = SVC(C=float(p["C"]), sigma=float(p["sigma"]), precision="float64", n_jobs=1)
            est.fit(np.vstack([d["X0"], d["pool"]]), np.r_[d["y0"], d["truth"]])
            self._full_error = float(np.mean(est.predict(d["Xt"]) != d["yt"]))
            self._full_key = key
        return self._full_error

    def _compute(self, p):
        d = self._data(p)
        al = self._learner(p, p["strategy"])
        self._replay_taught(al)
        query = al.query() if al.remaining_.size else None
        surface = surface_data(al.estimator_, al.X_labeled_, al.y_labeled_, grid=self.grid,
                               bounds=self._bounds, binary=True)
        wrong = sum(int(lab != d["truth"][i]) for i, lab in self._taught)
        curves = {"you": al.error_curve_.tolist(),
                  **{s: c.tolist() for s, c in self._replay.items()}}
        stats = dict(strategy=_(STRATEGY_NAMES[p["strategy"]]), n_labeled=int(al.y_labeled_.size),
                     test_error=float(al.error_curve_[-1]), wrong_answers=wrong,
                     pool_left=int(al.remaining_.size), query=query, curves=curves,
                     full_pool_error=self._full_pool_error(p),
                     **{f"replay_{k}": float(self._replay[k][-1]) if k in self._replay
                        else float("nan") for k in REPLAYED})
        return dict(surface=surface, pool=d["pool"][al.remaining_],
                    query=None if query is None else d["pool"][query],
                    selected=None if self._selected is None else d["pool"][self._selected],
                    p=p, stats=stats)

    def _render(self, r):
        s, p = r["surface"], r["p"]
        fig = self.fig
        for k, uid in enumerate(SURFACE_TRACES):
            fig.data[k].update(s[uid])
        fig.data[TRACES.index("pool")].update(x=r["pool"][:, 0], y=r["pool"][:, 1])
        for name in ("query", "selected"):
            pt = r[name]
            fig.data[TRACES.index(name)].update(x=[] if pt is None else [pt[0]],
                                                y=[] if pt is None else [pt[1]])
        xmin, xmax, ymin, ymax = s["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        fig.layout.title.text = _("{dataset}: {strategy} asks about the star; SVM C = {C}, σ = "
                                  "{sigma}").format(dataset=toy_name(p["dataset"]),
                                                    strategy=_(STRATEGY_NAMES[p["strategy"]]),
                                                    C=num(p["C"], ".3g"),
                                                    sigma=num(p["sigma"], ".3g"))
        curves = r["stats"]["curves"]
        for tr, key in zip(self.curve.data, ("you",) + REPLAYED):
            c = curves.get(key)
            tr.update(x=[] if c is None else list(range(len(c))), y=[] if c is None else c)
        # errors are in [0, 1]: from 0 to a little above the largest (at least 10 %), and the
        # labels from 0, instead of plotly's range around a single point (negative errors)
        errs = [float(v) for c in curves.values() if c is not None for v in c
                if np.isfinite(v)]
        self.curve.layout.yaxis.range = [0.0, 1.1 * max([0.1] + errs)]
        self.curve.layout.xaxis.range = [-0.3, max([5] + [len(c) for c in curves.values()
                                                    if c is not None])]
        stats = dict(r["stats"])
        you = curves["you"]
        notes = []
        if len(you) > 1:
            # the rise over the last answers (the last ×5 at most), against the best before them
            k = max(0, len(you) - 6)
            before, now = float(np.min(you[k:-1])), float(you[-1])
            if now > before + JUMP:
                notes.append(_(
                    "The last answers raised the test error from {before} % to {now} %: while "
                    "few points are labelled, one label near the boundary can move it a lot, so "
                    "a single run's curve jumps; the strategies are compared on average over "
                    "runs (replay other sample seeds).").format(
                        before=num(100 * before, ".1f"), now=num(100 * now, ".1f")))
        stats["_html"] = "".join(f'<div class="kernelnb-lesson">{html.escape(n)}</div>'
                                 for n in notes)
        replayed = [f"{_(STRATEGY_NAMES[k])} {num(100 * stats[f'replay_{k}'], '.1f')} %"
                    for k in REPLAYED if k in self._replay]
        stats["_details"] = (
            _("unlabelled points left: {n}; test error of the SVM trained on the whole pool "
              "with its true labels: {pct} %").format(
                  n=stats["pool_left"], pct=num(100 * stats["full_pool_error"], ".1f"))
            + ("; " + _("replay, last test errors: {errors}").format(errors=", ".join(replayed))
               if replayed else ""))
        return stats

    def regime(self, params, stats):
        """Notes where even the SVM trained on the whole pool with its true labels errs on
        more than :data:`MAX_FULL_ERROR` of the test points (the classes overlap or σ does not
        fit the data, and the points nearest the boundary are mostly noise; the thesis's
        experiments, section 8.7, have classes a learner can separate), or where σ is wider
        than the data (:data:`MAX_SIGMA_SPREAD` times the median distance between points).

        Parameters
        ----------
        params : dict
            The control values of the update.
        stats : dict
            The numbers it computed.

        Returns
        -------
        list of str
            Plain-words notes; empty inside the regime.
        """
        notes = []
        sigma = float(params["sigma"])
        if sigma > MAX_SIGMA_SPREAD * self._spread:
            notes.append(_("σ = {sigma} is wider than the data (median distance between points "
                           "{spread}): with few labels the boundary is nearly a conic, and the "
                           "points nearest it say little about the classes' bends").format(
                               sigma=num(sigma, ".3g"), spread=num(self._spread, ".2f")))
        full = stats["full_pool_error"]
        if full <= MAX_FULL_ERROR:
            return notes
        return notes + [_(
            "even with every pool label the SVM errs on {pct} % of the test points (σ = {sigma}, "
            "noise {noise}): the classes overlap or σ does not fit them, so the points nearest "
            "the boundary are mostly noise and asking about them need not beat random "
            "questions").format(pct=num(100 * full, ".1f"), sigma=num(float(params["sigma"]), ".3g"),
                                noise=num(float(params["noise"]), ".2g"))]
