"""Semi-supervised explorer: a few labeled points among many unlabeled ones, the plain SVM on the
labeled points against the SVM with a cluster kernel built from all of them (Chapelle's thesis
section 7.4.4, :class:`kernelnb.unlabeled.ClusterKernel`), optionally the transductive SVM; and
the spectrum of ``L = D^(−1/2) K D^(−1/2)`` before and after the transfer function.

The labeled points are the first ``n_labeled`` of each class in the (shuffled) sample; the error
is measured on the unlabeled points (their hidden labels).

The default transfer is the step at ``r = 2``: the representation of Ng, Jordan and Weiss that
section 7.4.3 explains, one direction per cluster, two clusters on the moons. The thesis's
poly-step ``√λ`` / ``λ²`` (7.11) was made for a spectrum that falls fast (its text data:
``λ₂ = 0.073``); on the moons at σ = 0.1 the eigenvalues beyond the cut-off stay near 1
(``λ₃ ≈ 0.995``), so ``λ²`` hardly damps them and the kernel keeps the directions along each moon:
averaged over sample seeds 0–4 its error with 2 labels per class is about 25 %, against about 1 %
for the step (:meth:`SemiSupervisedExplorer.regime` says so on the page).

A third model can be drawn beside them (the ``compare`` control): the transductive SVM, the SVM
with the low-density penalty (section 7.3, :class:`kernelnb.unlabeled.LowDensitySVC`), the
shortest-path kernel (7.4.2, :class:`kernelnb.unlabeled.ShortestPathKernel`, on the graph of the
``n_neighbors`` nearest neighbours) or the spectral representation of Ng, Jordan and Weiss
(7.4.3, :class:`kernelnb.unlabeled.SpectralKernel`, with ``r`` eigenvectors).  The last two are
linear SVMs on the kernel's coordinates (:class:`kernelnb.unlabeled.ClusterKernelSVC`).  The
low-density SVM stops its L-BFGS descent after :data:`LDS_MAX_ITER` iterations so that an update
stays fast: on the moons at the defaults, sample seeds 0–4, its error after 50 iterations is
within 2 points of the error after 1000.  The shortest-path kernel's clipped negative
eigenvalues stay under 0.1 % of its spectrum on every toy here; the regime notes say when the
neighbour graph leaves unlabeled points without a path to a labeled one and when σ is so small
that many of them lie beyond 3σ along the graph from every labeled point.
"""
from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np

from ...datasets import make_toy
from ...svm import SVC
from ...unlabeled import (TRANSFER_FUNCTIONS, ClusterKernel, ClusterKernelSVC, LowDensitySVC,
                          ShortestPathKernel, SpectralKernel)
from ..viz import boundaries_figure, decision_grid, plane_bounds
from ..i18n import N_, _, ngettext
from ._base import Dashboard, Lesson, log_slider, num, styled
from ..viz._figure_widget import FigureWidget
from ._toys import BlankModel, add_toy_controls, reset_noise_on_dataset_change

__all__ = ["SemiSupervisedExplorer"]

#: The fitted models, in the chart's order (the third is the one ``compare`` chooses).
MODELS = (N_("SVM (labeled only)"), N_("cluster kernel"), "third")
#: The third model: ``compare`` value -> (its name on the page, its key in the stats).
COMPARE = {"none": (N_("none"), None),
           "tsvm": (N_("TSVM (slow)"), "tsvm"),
           "lds": (N_("low-density SVM"), "lds"),
           "shortest_path": (N_("shortest path"), "shortest_path"),
           "spectral": (N_("spectral (NJW)"), "spectral")}
#: The transfer functions of the cluster kernel as the page names them (msgids).
TRANSFER_LABELS = {"linear": N_("linear"), "step": N_("step"), "linear-step": N_("linear-step"),
                   "polynomial": N_("polynomial"), "poly-step": N_("poly-step")}
#: L-BFGS iterations the low-density SVM is given here (the estimator's default is 200).
LDS_MAX_ITER = 50
#: Share of the unlabeled points beyond 3σ along the graph from every labeled point above which
#: the shortest-path kernel is too local to carry the labels along the clusters.
MAX_FAR = 0.1
#: Share of the shortest-path kernel's spectrum clipped (negative) above which the SVM no longer
#: uses the kernel of the text.
MAX_NEGATIVE = 0.05
#: Number of eigenvalues drawn in the spectrum.
N_SPECTRUM = 40
#: A gap in the spectrum after r: (1 − λ_{r+1}) / (1 − λ_r) at least this (section 7.4.3: with r
#: well separated clusters the first r eigenvalues are near 1 and the next one clearly below).
MIN_GAP = 3.5
#: Share of the transferred spectrum beyond r above which φ does not concentrate the kernel on
#: the r leading directions.
MAX_TAIL = 0.5
#: Share of the points a leading eigenvector must spread over (its participation ratio
#: ``1 / (n Σ uᵢ⁴)``) to describe a cluster, not a few isolated points.
MIN_SPREAD = 0.1


def labeled_indices(y, n_per_class):
    """The first ``n_per_class`` indices of each class of ``y`` (in order of the sample)."""
    y = np.asarray(y)
    return np.sort(np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in np.unique(y)]))


class SemiSupervisedExplorer(Dashboard):
    """SVM against the cluster-kernel SVM with few labeled points and many unlabeled ones.

    Parameters
    ----------
    grid : int, default=70
        Resolution of the boundary grid.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``n_labeled``
        (per class), ``sigma``, ``C``, ``transfer``, ``r``, ``p``, ``q``, ``t``, ``compare``
        (the third model: 'none', 'tsvm', 'lds', 'shortest_path' or 'spectral') and
        ``n_neighbors`` (of the shortest-path kernel's graph).

    Notes
    -----
    :meth:`update` returns ``error_svm``, ``error_cluster`` and the third model's
    ``error_tsvm``, ``error_lds``, ``error_shortest_path`` or ``error_spectral``: errors on the
    unlabeled points; for the low-density SVM ``lds_iter`` (its L-BFGS iterations); for the
    shortest-path kernel ``negative_mass`` (the share of its spectrum clipped), ``no_path`` (the
    unlabeled points with no path to a labeled one) and ``far`` (the share of the unlabeled
    points farther than 3σ along the graph from every labeled one); ``lambda2`` (the second
    eigenvalue of L), ``gap`` (the spectrum's gap after r, ``(1 − λ_{r+1}) / (1 − λ_r)``),
    ``tail`` (the share of ``φ(λ)`` beyond r), ``spread`` (the least share of the points one of
    the eigenvectors 2…r spreads over, its participation ratio), ``walk`` (``(λ₃ / λ₂)^t``) and
    ``fit_time_ms``. :meth:`regime` notes a setting where the cluster assumption the kernel
    relies on does not hold at that σ and r, or where the third model leaves its text.

    Examples
    --------
    >>> from kernelnb.lab.app import SemiSupervisedExplorer
    >>> app = SemiSupervisedExplorer(grid=20, n_samples=100)
    >>> stats = app.update(n_labeled=2)
    >>> app.figures[0].layout.title.text
    '4 labeled, 96 unlabeled; σ = 0.1, C = 100, φ = step, r = 2'
    >>> stats["error_cluster"] < stats["error_svm"]
    True
    >>> app.update(transfer="poly-step")["regime"][0][:8]
    'φ keeps '
    >>> stats = app.update(transfer="step", compare="spectral")
    >>> stats["error_spectral"] < stats["error_svm"]
    True
    """

    notebook = "semi_supervised"
    title = N_("Semi-supervised explorer")
    purpose = N_("Two labeled points per class and hundreds unlabeled: the cluster kernel "
                 "(Chapelle) keeps the r leading eigenvectors of the RBF graph, one per cluster, "
                 "and labels whole clusters; move r, σ and the transfer and watch the boundary "
                 "and the spectrum.")
    STATS = [
        ("error_svm", N_("SVM (labeled only): error on the unlabeled"), ".1%"),
        ("error_cluster", N_("cluster kernel: error on the unlabeled"), ".1%"),
        ("error_tsvm", N_("TSVM: error on the unlabeled"), ".1%"),
        ("error_lds", N_("low-density SVM: error on the unlabeled"), ".1%"),
        ("lds_iter", (N_("low-density SVM: L-BFGS steps (≤ {n}, for speed)"),
                      {"n": LDS_MAX_ITER}), "d"),
        ("error_shortest_path", N_("shortest path: error on the unlabeled"), ".1%"),
        ("error_spectral", N_("spectral (NJW): error on the unlabeled"), ".1%"),
    ]
    LESSON_APP = {"grid": 20}
    LESSONS = (Lesson(
        claim=N_("When the points form clusters and the cut-off r is their number, the cluster "
                 "kernel labels whole clusters from one or two labels per class: far fewer "
                 "errors than the SVM that sees the labeled points alone."),
        source=N_("Chapelle 2002, thesis §7.4.3–7.4.4"),
        holds=lambda s: s["error_cluster"] < s["error_svm"] - 0.05,
        sweep={"n_labeled": (1, 2, 10), "r": (2, 3), "sigma": (0.05, 0.1, 0.5),
               "noise": (0.0, 0.1, 0.3), "C": (0.1, 100.0)},
        seeds=(0, 1, 2)),)

    #: The lesson of each third model, shown under the readout when it is drawn. The tests check
    #: the low-density and spectral ones with the lesson harness; the shortest-path one over
    #: its ``sweep`` at the settings without a note on the shortest-path kernel (its σ range is
    #: where the cluster kernel's own notes say the RBF graph shows no two clusters).
    THIRD_LESSONS = {
        "lds": Lesson(
            claim=N_("Where a clear low-density gap separates the classes (moons with little "
                     "noise) and σ ≥ 0.1, the low-density penalty moves the boundary into the "
                     "gap: far fewer errors than the SVM on the labeled points alone, its "
                     "start."),
            source=N_("Chapelle 2002, thesis §7.3"),
            holds=lambda s: s["error_lds"] < s["error_svm"] - 0.05,
            sweep={"noise": (0.0, 0.05), "n_labeled": (1, 10), "sigma": (0.1, 0.3)},
            seeds=(0, 1, 2), setting={"compare": "lds", "noise": 0.05}),
        "spectral": Lesson(
            claim=N_("The spectral map of Ng, Jordan and Weiss (the r leading eigenvectors of "
                     "L, each point's row normalised) labels whole clusters as the step transfer "
                     "does: far fewer errors than the SVM on the labeled points alone."),
            source=N_("Chapelle 2002, thesis §7.4.3"),
            holds=lambda s: s["error_spectral"] < s["error_svm"] - 0.05,
            sweep={"n_labeled": (1, 10), "sigma": (0.05, 0.1), "noise": (0.0, 0.1)},
            seeds=(0, 1, 2), setting={"compare": "spectral"}),
        "shortest_path": Lesson(
            claim=N_("Once σ is wide enough for the paths along a cluster (no note above), the "
                     "shortest-path kernel labels whole moons from one or two labels per class: "
                     "far fewer errors than the SVM on the labeled points alone, even at a σ "
                     "where the RBF graph shows no two clusters."),
            source=N_("Chapelle 2002, thesis §7.4.2"),
            holds=lambda s: s["error_shortest_path"] < s["error_svm"] - 0.05,
            sweep={"sigma": (0.3, 0.5), "n_labeled": (1, 2), "noise": (0.0, 0.1)},
            seeds=(0, 1, 2), setting={"compare": "shortest_path"}),
    }

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n_labeled",
        "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "why": "The lesson is that the cluster kernel labels whole clusters from one or two "
               "labels per class: the labels per class go from 1 to 10, the boundary of the SVM "
               "that sees the labelled points alone beside the cluster kernel's, and the "
               "readout gives both errors on the unlabelled points.",
    }

    @classmethod
    def all_lessons(cls):
        """The cluster kernel's lesson, then each third model's (shown when it is drawn).

        Returns
        -------
        tuple of Lesson
        """
        return tuple(cls.LESSONS) + tuple(cls.THIRD_LESSONS.values())

    def __init__(self, grid=70, **params):
        self.grid = grid
        self._data_key = None
        self._kernel_key = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=300, n_min=40, n_max=600)
        c["n_labeled"] = styled(widgets.IntSlider(value=2, min=1, max=10,
                                                  description=_("labels/class")),
                                tooltip=_("labeled points per class"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.1, -1.5, 0.5, step=0.05)
        c["C"] = log_slider("C", 100.0, -1, 3, step=0.1)
        c["transfer"] = styled(widgets.Dropdown(
            options=[(_(TRANSFER_LABELS.get(t, t)), t) for t in TRANSFER_FUNCTIONS],
            value="step", description=_("transfer φ")))
        c["r"] = styled(widgets.IntSlider(value=2, min=1, max=N_SPECTRUM,
                                          description=_("cut-off r")))
        c["r"].add_class("kernelnb-main-slider")
        c["p"] = styled(widgets.FloatSlider(value=0.5, min=0.1, max=4.0, step=0.1,
                                            description="p (i ≤ r)"))
        c["q"] = styled(widgets.FloatSlider(value=2.0, min=0.1, max=10.0, step=0.1,
                                            description="q (i > r)"))
        c["t"] = styled(widgets.IntSlider(value=5, min=1, max=30, description="t (λ^t)"))
        c["compare"] = styled(widgets.Dropdown(
            options=[(_(label), key) for key, (label, _k) in COMPARE.items()], value="none",
            description=_("method")),
            tooltip=_("TSVM (Joachims); low-density SVM (thesis §7.3); shortest-path kernel "
                      "(§7.4.2); spectral map of Ng, Jordan and Weiss (§7.4.3, r eigenvectors)"))
        c["n_neighbors"] = styled(widgets.IntSlider(value=10, min=2, max=30,
                                                    description=_("k (graph)")),
                                  tooltip=_("neighbours of each point in the shortest-path "
                                            "graph"))
        X = np.array([[-1.0, -1.0], [1.0, 1.0]])
        self._bounds = plane_bounds(X, padding=0.1)
        fig = boundaries_figure({m: BlankModel() for m in MODELS}, X, np.array([0, 1]), grid=2,
                                bounds=self._bounds)
        fig.add_scatter(x=[], y=[], mode="markers", name=_("unlabeled"), uid="unlabeled",
                        marker=dict(color="rgba(120,120,120,0.35)", size=4))
        for d in fig.data[:2]:
            d.marker.size = 13
        fig.update_layout(height=520, title=dict(text=_("Semi-supervised explorer")),
                          margin=dict(l=70))
        self.fig = FigureWidget(fig)
        spec = FigureWidget()
        spec.add_scatter(x=[], y=[], mode="lines+markers", name="λᵢ (L)", uid="before")
        spec.add_scatter(x=[], y=[], mode="lines+markers", name="φ(λᵢ)", uid="after",
                         line=dict(dash="dash"))
        spec.update_layout(height=300, title=dict(text=_("Spectrum of L before / after φ")),
                           xaxis=dict(title=dict(text=_("index i"))),
                           yaxis=dict(title=dict(text=_("eigenvalue")), rangemode="tozero"),
                           margin=dict(l=60, r=120, t=40, b=60))
        self.spectrum = spec
        self.figures = [self.fig, self.spectrum]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"], c["n_labeled"],
                widgets.HTML("<b>" + _("kernel") + "</b>"), c["sigma"], c["C"], c["transfer"],
                c["r"], c["p"], c["q"], c["t"],
                widgets.HTML("<b>" + _("third model") + "</b>"), c["compare"],
                c["n_neighbors"]]

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        tr = params["transfer"]
        self.controls["r"].disabled = tr in ("linear", "polynomial")
        self.controls["p"].disabled = tr != "poly-step"
        self.controls["q"].disabled = tr != "poly-step"
        self.controls["t"].disabled = tr != "polynomial"
        self.controls["n_neighbors"].disabled = params["compare"] != "shortest_path"
        return params

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            self._sample = (np.asarray(X, float), np.asarray(y))
            self._bounds = plane_bounds(self._sample[0], padding=0.1)
            self._data_key = key
        return self._sample

    def _compute(self, p):
        if p["transfer"] not in TRANSFER_FUNCTIONS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="transfer", names=TRANSFER_FUNCTIONS, value=repr(p["transfer"])))
        if p["compare"] not in COMPARE:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="compare", names=list(COMPARE), value=repr(p["compare"])))
        X, y = self._data(p)
        L = labeled_indices(y, int(p["n_labeled"]))
        U = np.setdiff1d(np.arange(len(y)), L)
        sigma, C = float(p["sigma"]), float(p["C"])
        t0 = time.perf_counter()
        r = int(p["r"])
        # a step needs only r eigenpairs; one more gives the gap after r, and the chart shows
        # N_SPECTRUM of them
        k = min(len(y), max(r + 1, N_SPECTRUM)) if p["transfer"] in ("step", "linear-step") \
            else None
        emb = ClusterKernel(sigma=sigma, transfer=p["transfer"], r=r, p=float(p["p"]),
                            q=float(p["q"]), t=int(p["t"]), n_components=k)
        models = {MODELS[0]: SVC(sigma=sigma, C=C, precision="float64").fit(X[L], y[L]),
                  MODELS[1]: ClusterKernelSVC(emb, C=C).fit(X[L], y[L], X_unlabeled=X[U])}
        third = p["compare"]
        self.check_time()
        if third == "tsvm":
            from ...unlabeled import TransductiveSVC
            models[MODELS[2]] = TransductiveSVC(C=C, sigma=sigma).fit(X[L], y[L],
                                                                    X_unlabeled=X[U])
        elif third == "lds":
            models[MODELS[2]] = LowDensitySVC(C=C, sigma=sigma, max_iter=LDS_MAX_ITER).fit(
                X[L], y[L], X_unlabeled=X[U])
        elif third == "shortest_path":
            # ShortestPathKernel.fit refuses a k not below the number of points, naming it
            models[MODELS[2]] = ClusterKernelSVC(
                ShortestPathKernel(n_neighbors=int(p["n_neighbors"]), sigma=sigma), C=C).fit(
                X[L], y[L], X_unlabeled=X[U])
        elif third == "spectral":
            models[MODELS[2]] = ClusterKernelSVC(SpectralKernel(sigma=sigma, n_components=r),
                                                 C=C).fit(X[L], y[L], X_unlabeled=X[U])
        ms = 1e3 * (time.perf_counter() - t0)
        self.check_time()
        grids = {m: decision_grid(model, self._bounds, self.grid) for m, model in models.items()}
        errors = {m: float(np.mean(model.predict(X[U]) != y[U])) for m, model in models.items()}
        ck = models[MODELS[1]].embedding_
        lam, phi = ck.eigenvalues_, ck.transferred_
        gap = (1.0 - lam[r]) / max(1.0 - lam[r - 1], 1e-12) if lam.shape[0] > r else np.inf
        tail = float(phi[r:].sum() / phi.sum()) if phi.sum() > 0 else 0.0
        # how many points each of the eigenvectors 2..r spreads over (participation ratio)
        lead = ck.eigenvectors_[:, 1:max(r, 2)]
        spread = float(np.min(1.0 / (lead.shape[0] * np.sum(lead ** 4, axis=0))))
        return dict(p=p, X=X, y=y, L=L, U=U, grids=grids, errors=errors,
                    eig=lam[:N_SPECTRUM], phi=phi[:N_SPECTRUM], ms=ms, gap=float(gap),
                    tail=tail, spread=spread, lam_r=lam[r - 1:r + 1],
                    third=self._third_numbers(p, models, X, L, U))

    @staticmethod
    def _third_numbers(p, models, X, L, U):
        """The numbers the readout and the regime notes need about the third model."""
        model = models.get(MODELS[2])
        if p["compare"] == "lds":
            return dict(lds_iter=int(model.n_iter_) - 1)
        if p["compare"] == "shortest_path":
            emb = model.embedding_
            # the kernel was fitted on the labeled points first, then the unlabeled ones
            d2 = emb.distances_[:len(L), len(L):].min(axis=0)
            return dict(negative_mass=float(emb.negative_mass_),
                        no_path=int(np.sum(np.isinf(d2))),
                        far=float(np.mean(d2 > (3.0 * float(p["sigma"])) ** 2)))
        return {}

    def _render(self, r):
        fig, X, y, L, U = self.fig, r["X"], r["y"], r["L"], r["U"]
        classes = np.unique(y)
        for k in range(2):
            pts = X[L][y[L] == classes[k]]
            fig.data[k].x, fig.data[k].y = pts[:, 0], pts[:, 1]
            fig.data[k].name = _("labeled class {c} ({n})").format(c=classes[k], n=pts.shape[0])
        fig.data[4].name = _(COMPARE[r["p"]["compare"]][0])
        for i, m in enumerate(MODELS):
            tr = fig.data[2 + i]
            if m in r["grids"]:
                xs, ys, Z = r["grids"][m]
                tr.x, tr.y, tr.z = xs, ys, Z
                tr.visible = True
            else:
                tr.visible = False
        un = fig.data[2 + len(MODELS)]
        un.x, un.y = X[U, 0], X[U, 1]
        xmin, xmax, ymin, ymax = self._bounds
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        p = r["p"]
        cut = f", r = {int(p['r'])}" if p["transfer"] not in ("linear", "polynomial") else ""
        fig.layout.title.text = _("{labeled} labeled, {unlabeled} unlabeled; σ = {sigma}, C = "
                                  "{C}, φ = {transfer}{cut}").format(
                                      labeled=len(L), unlabeled=len(U),
                                      sigma=num(p["sigma"], ".3g"), C=num(p["C"], ".3g"),
                                      transfer=_(TRANSFER_LABELS.get(p["transfer"],
                                                                     p["transfer"])), cut=cut)
        idx = np.arange(1, r["eig"].shape[0] + 1)
        self.spectrum.data[0].x, self.spectrum.data[0].y = idx, r["eig"]
        self.spectrum.data[1].x, self.spectrum.data[1].y = idx, r["phi"]
        e = r["errors"]
        lam2 = float(r["eig"][1]) if r["eig"].shape[0] > 1 else float("nan")
        self._lam_r = r["lam_r"]
        eig = r["eig"]
        walk = (float((eig[2] / eig[1]) ** int(r["p"]["t"])) if eig.shape[0] > 2 and eig[1] > 0
                else 0.0)
        details = _("second eigenvalue of L: λ₂ = {lam2}; gap after r: (1 − λ_(r+1)) / (1 − "
                    "λ_r) = {gap}; share of φ beyond r: {tail} %; least spread of the "
                    "eigenvectors 2…r: {spread} % of the points; fit time {ms} ms").format(
                        lam2=num(lam2, ".4f"), gap=num(r["gap"], ".3g"),
                        tail=num(100 * r["tail"], ".1f"), spread=num(100 * r["spread"], ".1f"),
                        ms=num(r["ms"], ".0f"))
        key = COMPARE[r["p"]["compare"]][1]
        third = {f"error_{key}": e[MODELS[2]], **r["third"]} if MODELS[2] in e else {}
        if "far" in third:
            details += "; " + _("shortest path: clipped negative eigenvalues {neg} % of the "
                                "spectrum, {far} % of the unlabeled points beyond 3σ along the "
                                "graph from every labeled point, {k} without a path").format(
                                    neg=num(100 * third["negative_mass"], ".2f"),
                                    far=num(100 * third["far"], ".1f"), k=third["no_path"])
        lesson = self.THIRD_LESSONS.get(r["p"]["compare"])
        if lesson is not None:
            third["_html"] = lesson.html(_(COMPARE[r["p"]["compare"]][0]))
        return dict(error_svm=e[MODELS[0]], error_cluster=e[MODELS[1]], **third,
                    lambda2=lam2, gap=r["gap"],
                    tail=r["tail"], spread=r["spread"], fit_time_ms=r["ms"],
                    walk=walk,
                    _details=details)

    def regime(self, params, stats):
        """Notes where the setting leaves the cluster assumption of section 7.4.3: a linear
        transfer (no change to K), r = 1 (only the constant eigenvector), a transfer that keeps
        most of its weight beyond r (or a random walk too short to spread over a cluster), a σ at
        which a few isolated points make a cluster of their own, no gap in the spectrum after
        r (the points do not form r clusters at this σ); and where the third model leaves its
        text: the spectral map with r = 1 or without a gap after r, a shortest-path graph that
        leaves unlabeled points without a path to a labeled one, a σ at which most unlabeled
        points lie beyond 3σ along the graph from every labeled one, a large clipped negative
        mass.

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
        return self._cluster_notes(params, stats) + self._third_notes(params, stats)

    def _cluster_notes(self, params, stats):
        """The notes on the cluster kernel (see :meth:`regime`)."""
        notes = []
        tr, r = params["transfer"], int(params["r"])
        if tr == "linear":
            return [_("the linear transfer leaves K unchanged: the cluster kernel is the plain "
                      "RBF kernel, only built from more points; choose the step or the "
                      "poly-step")]
        if tr != "polynomial" and r == 1:
            notes.append(_("r = 1 keeps only the first eigenvector, which is constant over a "
                           "connected graph: the kernel cannot tell the clusters apart"))
        if tr in ("poly-step", "linear-step") and stats["tail"] > MAX_TAIL:
            lam = self._lam_r
            notes.append(_("φ keeps {pct} % of its weight beyond r = {r}: the eigenvalues there "
                           "are still close to 1 (λ_(r+1) = {lam}), so the kernel keeps the "
                           "directions inside each cluster; choose the step, a larger q or a "
                           "larger σ").format(pct=num(100 * stats["tail"], ".1f"), r=r,
                                              lam=num(lam[-1], ".3f")))
        if tr == "polynomial" and stats["walk"] > MAX_TAIL:
            notes.append(_("after t = {t} steps the third eigenvalue still weighs {pct} % of the "
                           "second ((λ₃ / λ₂)^t): the random walk has not spread over each "
                           "cluster yet; raise t").format(t=int(params["t"]),
                                                          pct=num(100 * stats["walk"], ".1f")))
        if stats["spread"] < MIN_SPREAD:
            notes.append(_("a leading eigenvector of L lives on {pct} % of the points: at σ = "
                           "{sigma} a few isolated points form a cluster of their own and take "
                           "the place of a class's cluster").format(
                               pct=num(100 * stats["spread"], ".1f"),
                               sigma=num(float(params["sigma"]), ".3g")))
        elif tr != "polynomial" and r > 1 and stats["gap"] < MIN_GAP:
            lam = self._lam_r
            notes.append(_("no gap in the spectrum after r = {r} (λ_r = {lo}, λ_(r+1) = {hi}): at "
                           "this σ and noise the points do not form {r} clusters, so the cut-off "
                           "splits a cluster or joins two").format(r=r, lo=num(lam[0], ".4f"),
                                                                   hi=num(lam[-1], ".4f")))
        return notes

    def _third_notes(self, params, stats):
        """The notes on the third model (see :meth:`regime`)."""
        notes = []
        third, r, tr = params["compare"], int(params["r"]), params["transfer"]
        sigma = float(params["sigma"])
        # the cluster kernel's notes on r already speak for the spectral map when they are shown
        r_noted = tr not in ("linear", "polynomial")
        if third == "spectral" and not r_noted:
            if r == 1:
                notes.append(_("the spectral map with r = 1 keeps only the constant "
                               "eigenvector: every point gets the same coordinates"))
            elif stats["gap"] < MIN_GAP and stats["spread"] >= MIN_SPREAD:
                lam = self._lam_r
                notes.append(_("no gap in the spectrum after r = {r} (λ_r = {lo}, λ_(r+1) = {hi}): "
                               "the spectral map's {r} eigenvectors do not describe r clusters "
                               "at this σ").format(r=r, lo=num(lam[0], ".4f"),
                                                    hi=num(lam[-1], ".4f")))
        if third == "shortest_path":
            k = int(params["n_neighbors"])
            if stats["no_path"]:
                n = stats["no_path"]
                notes.append(ngettext(
                    "the graph of the {k} nearest neighbours falls apart: {n} unlabeled point "
                    "has no path to a labeled one, so the shortest-path kernel gives them the "
                    "bias alone; raise k",
                    "the graph of the {k} nearest neighbours falls apart: {n} unlabeled points "
                    "have no path to a labeled one, so the shortest-path kernel gives them the "
                    "bias alone; raise k", n).format(k=k, n=n))
            if stats["far"] > MAX_FAR:
                notes.append(_("{pct} % of the unlabeled points lie farther than 3σ along the "
                               "graph from every labeled point: at σ = {sigma} the shortest-path "
                               "kernel barely reaches them (a path's squared hops add up); raise "
                               "σ").format(pct=num(100 * stats["far"], ".0f"),
                                           sigma=num(sigma, ".3g")))
            if stats["negative_mass"] > MAX_NEGATIVE:
                notes.append(_("{pct} % of the shortest-path kernel's spectrum is negative and "
                               "was clipped: the SVM uses the nearest positive kernel, not the "
                               "text's").format(pct=num(100 * stats["negative_mass"], ".1f")))
        return notes
