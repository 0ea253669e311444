"""Collobert's Table 7.1 and Figs. 7.1-7.6 in kind, and the mixture experiments of ch. 6-7.

R. Collobert, *Large Scale Machine Learning*, PhD thesis, Université Paris VI, 2004, ch. 7:
training error (no validation) of four models -- MLP+MSE, MLP+Tanh+MSE, MLP+CE (500 hidden units
in the thesis) and a MoE+MSE with slightly fewer parameters -- on Forest and Connect-4, and the
factors that make the Hessian block-diagonal, averaged over the training set along training:
``P(y|x)P(-y|x)`` (CE), ``|c(z)|`` (tanh output + MSE), ``g_i g_j`` (mixture); MSE has none.

Here (``--tables 71``): Connect-4 ("win" against the rest, the thesis's 126-input coding; rebuilt
offline, skipped with a message when its cache is missing), Fashion-MNIST (upper-body garments
{0, 2, 4, 6} against the rest) and ``kernelnb.datasets.make_large_problem``; Forest is not
available offline.  Sizes that run in minutes on two shared cores: ``--n`` training examples,
MLPs of ``--hidden`` units (default 100, not 500), a mixture of 5 experts of 10 hidden units with
a 25-unit gater (fewer parameters than the MLP, as in the thesis), ``--epochs`` epochs.  The
learning rate of each model is the one of {0.003, 0.01, 0.03, 0.1} with the lowest training error
after ``--pilot-epochs`` epochs on the first 2,000 examples (the thesis chose every
hyper-parameter but the hidden size "to maximize the training performance").  Each model is
trained by :func:`kernelnb.largescale.hessian_study`, which also records the block norms of the
total Hessian (6 units / experts, 128 examples) after every epoch.  Beside it, the time of one
epoch of kernelnb's MLP+CE and of scikit-learn's ``MLPClassifier`` doing the same thing
(solver 'sgd', batch_size=1, no momentum, no penalty, tanh), in the same process.

``--tables mix``: the mixtures on held-out data -- one MLP+CE, the soft mixtures (MoE+MSE,
MoE+CE likelihood) and the hard mixture of SVMs (``MixtureSVC``, global gater), test error and
fit time; early stopping on 10 % of the training set for the MLP and the soft mixtures.
``--tables reg``: ``MixtureSVR`` against one kernelnb ``SVR``, scikit-learn's ``SVR`` and the soft
``MixtureOfExpertsRegressor`` on Friedman #1 (generated) and the bundled Boston housing set.

Run: ``python benchmarks/bench_table71.py`` (about 15 minutes), ``--quick`` (n = 2,000);
``--results-dir docs/reproductions/results`` also writes Table 7.1's results file for the book.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_results_option, fashion, save_results  # noqa: E402

from kernelnb.datasets import load_boston, make_large_problem  # noqa: E402
from kernelnb.kernels import gamma_from_sigma, scale_sigma  # noqa: E402
from kernelnb.largescale import (  # noqa: E402
    MixtureOfExpertsClassifier, MixtureOfExpertsRegressor, MixtureSVC, MixtureSVR, MLPClassifier,
    hessian_study)
from kernelnb.largescale.hessian import STUDY_MODELS  # noqa: E402
from kernelnb.reproductions.collobert.hessian import PUBLISHED_TABLE_7_1  # noqa: E402
from kernelnb.svm import SVC, SVR  # noqa: E402

UPPER = (0, 2, 4, 6)
MODELS = [("MLP+MSE", "mlp_squared"), ("MLP+Tanh+MSE", "mlp_tanh_squared"),
          ("MLP+CE", "mlp_cross_entropy"), ("MoE+MSE", "moe_squared")]
#: Collobert (2004), Table 7.1: training error % (Forest, Connect-4), MLPs of 500 hidden units
PUBLISHED = PUBLISHED_TABLE_7_1
LRS = (0.003, 0.01, 0.03, 0.1)
MOE_SIZES = dict(n_experts=5, n_hidden=10, gater_n_hidden=25)


def load(name, n, n_test, seed):
    """``(X, y, Xt, yt)`` with 0/1 labels, or None when the data are missing."""
    rng = np.random.default_rng(seed)
    if name == "connect4":
        from kernelnb.datasets import load_connect4
        try:
            X, y = load_connect4(target="win")
        except FileNotFoundError as e:
            print(f"[connect4 skipped: {e}]")
            return None
        p = rng.permutation(X.shape[0])
        X, y = X[p].astype(np.float64), np.asarray(y)[p].astype(int)
        return X[:n], y[:n], X[n:n + n_test], y[n:n + n_test]
    if name == "fashion":
        X, y = fashion("train")
        Xt, yt = fashion("test")
        p = rng.permutation(X.shape[0])[:n]
        return (X[p].astype(np.float64), np.isin(y[p], UPPER).astype(int),
                Xt[:n_test].astype(np.float64), np.isin(yt[:n_test], UPPER).astype(int))
    X, y = make_large_problem(n + n_test, random_state=seed)
    X = X.astype(np.float64)
    return X[:n], y[:n], X[n:], y[n:]


def model_params(kind, hidden):
    return dict(MOE_SIZES) if kind.startswith("moe") else {"n_hidden": hidden}


def pilot_lr(kind, X, y, hidden, epochs, seed):
    """The learning rate of LRS with the lowest training error after a few epochs."""
    cls, fixed = STUDY_MODELS[kind]
    m = min(2000, X.shape[0])
    best = None
    for lr in LRS:
        est = cls(**model_params(kind, hidden), **fixed, learning_rate=lr, max_iter=epochs,
                  n_iter_no_change=epochs + 1, tol=0.0, random_state=seed)
        try:
            err = 1 - est.fit(X[:m], y[:m]).score(X[:m], y[:m])
        except ValueError:                     # diverged
            continue
        if best is None or err < best[0]:
            best = (err, lr)
    return best[1]


def table71(name, data, args):
    X, y = data[0], data[1]
    print(f"\n=== Table 7.1 in kind: {name}, n = {X.shape[0]}, d = {X.shape[1]}, "
          f"{args.epochs} epochs, no validation ===")
    studies = {}
    for label, kind in MODELS:
        lr = pilot_lr(kind, X, y, args.hidden, args.pilot_epochs, args.seed)
        t0 = time.perf_counter()
        st = hessian_study(kind, X, y, args.epochs, n_factor_samples=None, n_block_samples=128,
                           max_blocks=6, random_state=args.seed, learning_rate=lr,
                           **model_params(kind, args.hidden))
        studies[label] = (st, lr, time.perf_counter() - t0)
    print(f"{'model':<14}{'params':>8}{'lr':>7}{'train err %':>13}{'best %':>8}{'time s':>8}"
          f"{'Forest (pub.)':>15}{'Connect-4 (pub.)':>18}")
    for label, (st, lr, t) in studies.items():
        pf, pc = PUBLISHED[label]
        print(f"{label:<14}{st.n_parameters:>8}{lr:>7g}{100 * st.train_error[-1]:>13.2f}"
              f"{100 * st.train_error.min():>8.2f}{t:>8.1f}{pf:>15.1f}{pc:>18.1f}")
    marks = sorted({1, 2, max(1, args.epochs // 4), max(1, args.epochs // 2), args.epochs})
    print("Fig 7.1 in kind -- training error % after epoch " + ", ".join(map(str, marks)))
    for label, (st, _, _) in studies.items():
        print(f"  {label:<14}" + " ".join(f"{100 * st.train_error[e - 1]:6.2f}" for e in marks))
    print("Hessian factors (mean over the training set) after the same epochs")
    for label, (st, _, _) in studies.items():
        print(f"  {label:<14}" + " ".join(f"{st.factor[e - 1]:6.4f}" for e in marks)
              + f"   [{st.factor_name}]")
    print("Off-diagonal / diagonal mean block norm of the total Hessian (6 units or experts, "
          "128 examples)")
    for label, (st, _, _) in studies.items():
        print(f"  {label:<14}" + " ".join(f"{st.offdiag_ratio[e - 1]:6.3f}" for e in marks))
    args.t71_out[name] = {
        label: {"n": int(X.shape[0]), "n_parameters": int(st.n_parameters), "learning_rate": lr,
                "seconds": t, "train_error": st.train_error, "factor": st.factor,
                "factor_name": st.factor_name, "offdiag_ratio": st.offdiag_ratio}
        for label, (st, lr, t) in studies.items()}
    if not args.no_sklearn:
        compare_sklearn(X, y, studies["MLP+CE"][1], args)


def fig72(name, data, args):
    """Fig. 7.2 in kind: the training error of MLP+MSE against the number of hidden units, each
    size with its pilot-chosen learning rate and the same epochs.  The thesis: it does not go
    down with more units (under-fitting by the optimiser, not by the model)."""
    X, y = data[0], data[1]
    cls, fixed = STUDY_MODELS["mlp_squared"]
    print(f"\n=== Fig. 7.2 in kind: {name}, MLP+MSE, n = {X.shape[0]}, {args.epochs} epochs, "
          "no validation ===")
    print(f"{'hidden':>7}{'lr':>7}{'train err %':>13}{'time s':>8}")
    for h in args.fig72_hidden:
        lr = pilot_lr("mlp_squared", X, y, h, args.pilot_epochs, args.seed)
        t0 = time.perf_counter()
        est = cls(n_hidden=h, **fixed, learning_rate=lr, max_iter=args.epochs,
                  n_iter_no_change=args.epochs + 1, tol=0.0, random_state=args.seed).fit(X, y)
        err = 1 - est.score(X, y)
        print(f"{h:>7}{lr:>7g}{100 * err:>13.2f}{time.perf_counter() - t0:>8.1f}", flush=True)


def compare_sklearn(X, y, lr, args):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier as SkMLP
    from sklearn.preprocessing import StandardScaler

    E = args.sklearn_epochs
    ours = MLPClassifier(n_hidden=args.hidden, learning_rate=lr, max_iter=E,
                         n_iter_no_change=E + 1, tol=0.0, random_state=args.seed).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    sk = SkMLP(hidden_layer_sizes=(args.hidden,), activation="tanh", solver="sgd",
               batch_size=1, learning_rate_init=lr, momentum=0.0, alpha=0.0, max_iter=E,
               tol=0.0, n_iter_no_change=E + 1, shuffle=True, random_state=args.seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk.fit(Xs, y)
    t_sk = time.perf_counter() - t0
    e_sk = 1 - sk.score(Xs, y)
    print(f"MLP+CE, {args.hidden} tanh units, per-example SGD, lr {lr:g}, {E} epochs "
          f"(same process): kernelnb {ours.fit_time_ / E:.3f} s/epoch, train err "
          f"{100 * (1 - ours.score(X, y)):.2f} %; scikit-learn MLPClassifier(batch_size=1) "
          f"{t_sk / E:.3f} s/epoch, train err {100 * e_sk:.2f} %; time ratio sklearn/kernelnb "
          f"{t_sk / ours.fit_time_:.1f}")


def mixtures(name, data, args):
    X, y, Xt, yt = data
    print(f"\n=== Mixtures on {name}: n = {X.shape[0]}, test {Xt.shape[0]} "
          f"(test error %, fit time s) ===")
    es = dict(validation_fraction=0.1, n_iter_no_change=5, max_iter=args.epochs,
              random_state=args.seed)
    K_svm = max(2, X.shape[0] // 1500)
    rows = [
        (f"one MLP+CE ({args.hidden} units)",
         MLPClassifier(n_hidden=args.hidden, learning_rate=0.01, **es)),
        ("MoE+MSE (5 x 10 units, gater 25)",
         MixtureOfExpertsClassifier(loss="squared", learning_rate=0.01, **MOE_SIZES, **es)),
        ("MoE+CE likelihood (same sizes)",
         MixtureOfExpertsClassifier(loss="cross_entropy", learning_rate=0.01, **MOE_SIZES,
                                    **es)),
        (f"MixtureSVC ({K_svm} SVMs, global gater)",
         MixtureSVC(SVC(C=10.0, sigma="scale"), n_experts=K_svm, max_iter=3, n_jobs=2,
                    random_state=args.seed)),
    ]
    for label, est in rows:
        t0 = time.perf_counter()
        est.fit(X, y)
        t = time.perf_counter() - t0
        print(f"  {label:<46}{100 * (1 - est.score(Xt, yt)):8.2f}{t:9.1f}")


def regression(args):
    from sklearn.datasets import make_friedman1
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR as SkSVR

    n = args.n_reg
    Xf, yf = make_friedman1(n + 5000, 10, noise=1.0, random_state=args.seed)
    Xb, yb = load_boston()
    p = np.random.default_rng(args.seed).permutation(Xb.shape[0])
    sets = [("Friedman #1 (generated)", Xf[:n], yf[:n], Xf[n:], yf[n:]),
            ("Boston housing (bundled)", Xb[p[:400]], yb[p[:400]], Xb[p[400:]], yb[p[400:]])]
    for name, X, y, Xt, yt in sets:
        sc = StandardScaler().fit(X)
        X, Xt = sc.transform(X), sc.transform(Xt)
        m, s = y.mean(), y.std()
        sigma = float(scale_sigma(X))
        K = max(2, X.shape[0] // 1000)
        print(f"\n=== Regression: {name}, n = {X.shape[0]}, test {Xt.shape[0]}, C = 10, "
              f"epsilon = 0.1 (in target std units), sigma = {sigma:.3g} ===")
        print(f"  {'model':<46}{'test MSE':>10}{'R^2':>8}{'time s':>8}")
        rows = [
            ("kernelnb SVR", lambda: SVR(C=10.0, epsilon=0.1, sigma=sigma), True),
            ("scikit-learn SVR", lambda: SkSVR(C=10.0, epsilon=0.1,
                                               gamma=gamma_from_sigma(sigma)), True),
            (f"MixtureSVR ({K} SVRs, global gater)",
             lambda: MixtureSVR(SVR(C=10.0, epsilon=0.1, sigma=sigma), n_experts=K, max_iter=3,
                                client="serial", random_state=args.seed), False),
            ("MixtureSVR (uniform gater)",
             lambda: MixtureSVR(SVR(C=10.0, epsilon=0.1, sigma=sigma), gater="uniform",
                                n_experts=K, client="serial", random_state=args.seed), False),
            ("MixtureOfExpertsRegressor (5 x 10, gater 25)",
             lambda: MixtureOfExpertsRegressor(**MOE_SIZES, learning_rate=0.01,
                                               validation_fraction=0.1, max_iter=100,
                                               random_state=args.seed), False),
        ]
        for label, make, standardise in rows:
            t0 = time.perf_counter()
            if standardise:
                est = make().fit(X, (y - m) / s)
                pred = est.predict(Xt) * s + m
            else:
                est = make().fit(X, y)
                pred = est.predict(Xt)
            t = time.perf_counter() - t0
            mse = float(np.mean((pred - yt) ** 2))
            print(f"  {label:<46}{mse:>10.3f}{1 - mse / np.var(yt):>8.3f}{t:>8.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--n-fashion", type=int, default=5000)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--n-reg", type=int, default=5000)
    ap.add_argument("--hidden", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--pilot-epochs", type=int, default=3)
    ap.add_argument("--sklearn-epochs", type=int, default=3)
    ap.add_argument("--datasets", default="connect4,fashion,synthetic")
    ap.add_argument("--tables", default="71,72,mix,reg", help="71, 72 (Fig. 7.2), mix, reg")
    ap.add_argument("--fig72-hidden", type=int, nargs="+", default=[10, 25, 50, 100, 200],
                    help="hidden sizes of Fig. 7.2's MLP+MSE")
    ap.add_argument("--no-sklearn", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    add_results_option(ap)
    args = ap.parse_args()
    args.t71_out, t0 = {}, time.perf_counter()
    if args.quick:
        args.n, args.n_fashion, args.n_test, args.n_reg = 2000, 1000, 2000, 2000
        args.epochs, args.hidden = 10, 50
    tables = args.tables.split(",")
    for name in args.datasets.split(","):
        n = args.n_fashion if name == "fashion" else args.n
        data = load(name, n, args.n_test, args.seed)
        if data is None:
            continue
        if "71" in tables:
            table71(name, data, args)
        if "72" in tables:
            fig72(name, data, args)
        if "mix" in tables:
            mixtures(name, data, args)
    if args.t71_out:
        save_results(args.results_dir, "collobert-table-7-1",
                     "kernelnb.largescale.hessian_study (benchmarks/bench_table71.py: table71)",
                     {"datasets": list(args.t71_out), "n": args.n, "n_fashion": args.n_fashion,
                      "hidden": args.hidden, "moe": MOE_SIZES, "epochs": args.epochs,
                      "pilot_epochs": args.pilot_epochs, "learning_rates": LRS,
                      "seed": args.seed}, args.t71_out, time.perf_counter() - t0)
    if "reg" in tables:
        regression(args)


if __name__ == "__main__":
    main()
