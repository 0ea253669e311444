"""Semi-supervised explorer: a few labeled points among many unlabeled ones, the plain SVM on the
labeled points against the SVM with a cluster kernel built from all of them (Chapelle's thesis
section 7.4.4, :class:`kernelnb.unlabeled.ClusterKernel`), optionally the transductive SVM; and
the spectrum of ``L = D^{-1/2} K D^{-1/2}`` before and after the transfer function.

The labeled points are the first ``n_labeled`` of each class in the sample; the error is
measured on the unlabeled points (their hidden labels).
"""
from __future__ import annotations

import time

import numpy as np
import ipywidgets as widgets
from ._plotly import FigureWidget

from ...datasets import make_toy
from ...svm import SVC
from ...unlabeled import TRANSFER_FUNCTIONS, ClusterKernel, ClusterKernelSVC
from ..viz import boundaries_figure, decision_grid, plane_bounds
from ._base import Dashboard, log_slider, styled
from ._toys import BlankModel, add_toy_controls, reset_noise_on_dataset_change

__all__ = ["SemiSupervisedExplorer"]

#: The fitted models, in the chart's order.
MODELS = ("SVM (labeled only)", "cluster kernel", "TSVM")
#: Number of eigenvalues drawn in the spectrum.
N_SPECTRUM = 40


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
        (per class), ``sigma``, ``C``, ``transfer``, ``r``, ``p``, ``q``, ``t``,
        ``show_tsvm``.

    Notes
    -----
    :meth:`update` returns ``error_svm``, ``error_cluster``, ``error_tsvm`` (nan when hidden):
    errors on the unlabeled points; ``lambda2`` (the second eigenvalue of L) and
    ``fit_time_ms``.

    Examples
    --------
    >>> from kernelnb.lab.app import SemiSupervisedExplorer
    >>> app = SemiSupervisedExplorer(grid=20, n_samples=100)
    >>> stats = app.update(n_labeled=2)
    >>> app.figures[0].layout.title.text
    '4 labeled, 96 unlabeled; σ = 0.1, C = 100, φ = poly-step'
    >>> stats["error_cluster"] < stats["error_svm"]
    True
    """

    notebook = "semi_supervised"
    gallery_order = 27
    title = "Semi-supervised explorer"
    purpose = ("Two labeled points per class and hundreds unlabeled: the cluster kernel "
               "(Chapelle) reshapes the RBF kernel along the clusters; move r, p and q and watch "
               "the boundary and the spectrum.")
    STATS = [
        ("error_svm", "SVM (labeled only): error on the unlabeled", ".1%"),
        ("error_cluster", "cluster kernel: error on the unlabeled", ".1%"),
        ("error_tsvm", "TSVM: error on the unlabeled", ".1%"),
        ("lambda2", "second eigenvalue of L", ".3f"),
        ("fit_time_ms", "fit time (ms)", ".0f"),
    ]

    def __init__(self, grid=70, **params):
        self.grid = grid
        self._data_key = None
        self._kernel_key = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=300, n_min=40, n_max=600)
        c["n_labeled"] = styled(widgets.IntSlider(value=2, min=1, max=10,
                                                  description="labeled / class"))
        c["sigma"] = log_slider("σ (RBF)", 0.1, -1.5, 0.5, step=0.05)
        c["C"] = log_slider("C", 100.0, -1, 3, step=0.1)
        c["transfer"] = styled(widgets.Dropdown(options=list(TRANSFER_FUNCTIONS),
                                                value="poly-step", description="transfer φ"))
        c["r"] = styled(widgets.IntSlider(value=2, min=1, max=N_SPECTRUM, description="cut-off r"))
        c["r"].add_class("kernelnb-main-slider")
        c["p"] = styled(widgets.FloatSlider(value=0.5, min=0.1, max=4.0, step=0.1,
                                            description="p (i ≤ r)"))
        c["q"] = styled(widgets.FloatSlider(value=2.0, min=0.1, max=10.0, step=0.1,
                                            description="q (i > r)"))
        c["t"] = styled(widgets.IntSlider(value=5, min=1, max=30, description="t (λ^t)"))
        c["show_tsvm"] = styled(widgets.Checkbox(value=False, description="also the TSVM (slow)",
                                                 indent=False))
        X = np.array([[-1.0, -1.0], [1.0, 1.0]])
        self._bounds = plane_bounds(X, padding=0.1)
        fig = boundaries_figure({m: BlankModel() for m in MODELS}, X, np.array([0, 1]), grid=2,
                                bounds=self._bounds)
        fig.add_scatter(x=[], y=[], mode="markers", name="unlabeled", uid="unlabeled",
                        marker=dict(color="rgba(120,120,120,0.35)", size=4))
        for d in fig.data[:2]:
            d.marker.size = 13
        fig.update_layout(height=520, title=dict(text="Semi-supervised explorer"))
        self.fig = FigureWidget(fig)
        spec = FigureWidget()
        spec.add_scatter(x=[], y=[], mode="lines+markers", name="λ_i (L)", uid="before")
        spec.add_scatter(x=[], y=[], mode="lines+markers", name="φ(λ_i)", uid="after")
        spec.update_layout(height=300, title=dict(text="Spectrum of L before / after φ"),
                           xaxis=dict(title=dict(text="index i")),
                           yaxis=dict(title=dict(text="eigenvalue"), rangemode="tozero"),
                           margin=dict(l=50, r=10, t=40, b=40))
        self.spectrum = spec
        self.figures = [self.fig, self.spectrum]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"], c["n_labeled"],
                widgets.HTML("<b>kernel</b>"), c["sigma"], c["C"], c["transfer"], c["r"],
                c["p"], c["q"], c["t"], c["show_tsvm"]]

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        tr = params["transfer"]
        self.controls["r"].disabled = tr in ("linear", "polynomial")
        self.controls["p"].disabled = tr != "poly-step"
        self.controls["q"].disabled = tr != "poly-step"
        self.controls["t"].disabled = tr != "polynomial"
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
            raise ValueError(f"transfer must be one of {TRANSFER_FUNCTIONS}, got "
                             f"{p['transfer']!r}")
        X, y = self._data(p)
        L = labeled_indices(y, int(p["n_labeled"]))
        U = np.setdiff1d(np.arange(len(y)), L)
        sigma, C = float(p["sigma"]), float(p["C"])
        t0 = time.perf_counter()
        emb = ClusterKernel(sigma=sigma, transfer=p["transfer"], r=int(p["r"]),
                            p=float(p["p"]), q=float(p["q"]), t=int(p["t"]))
        models = {MODELS[0]: SVC(sigma=sigma, C=C, precision="float64").fit(X[L], y[L]),
                  MODELS[1]: ClusterKernelSVC(emb, C=C).fit(X[L], y[L], X_unlabeled=X[U])}
        if p["show_tsvm"]:
            from ...unlabeled import TransductiveSVC
            self.check_time()
            models[MODELS[2]] = TransductiveSVC(C=C, sigma=sigma).fit(X[L], y[L],
                                                                    X_unlabeled=X[U])
        ms = 1e3 * (time.perf_counter() - t0)
        self.check_time()
        grids = {m: decision_grid(model, self._bounds, self.grid) for m, model in models.items()}
        errors = {m: float(np.mean(model.predict(X[U]) != y[U])) for m, model in models.items()}
        ck = models[MODELS[1]].embedding_
        return dict(p=p, X=X, y=y, L=L, U=U, grids=grids, errors=errors,
                    eig=ck.eigenvalues_[:N_SPECTRUM], phi=ck.transferred_[:N_SPECTRUM], ms=ms)

    def _render(self, r):
        fig, X, y, L, U = self.fig, r["X"], r["y"], r["L"], r["U"]
        classes = np.unique(y)
        for k in range(2):
            pts = X[L][y[L] == classes[k]]
            fig.data[k].x, fig.data[k].y = pts[:, 0], pts[:, 1]
            fig.data[k].name = f"labeled class {classes[k]} ({pts.shape[0]})"
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
        fig.layout.title.text = (f"{len(L)} labeled, {len(U)} unlabeled; σ = {p['sigma']:.3g}, "
                                 f"C = {p['C']:.3g}, φ = {p['transfer']}")
        idx = np.arange(1, r["eig"].shape[0] + 1)
        self.spectrum.data[0].x, self.spectrum.data[0].y = idx, r["eig"]
        self.spectrum.data[1].x, self.spectrum.data[1].y = idx, r["phi"]
        e = r["errors"]
        return dict(error_svm=e[MODELS[0]], error_cluster=e[MODELS[1]],
                    error_tsvm=e.get(MODELS[2], float("nan")),
                    lambda2=float(r["eig"][1]) if r["eig"].shape[0] > 1 else float("nan"),
                    fit_time_ms=r["ms"])
