"""MLPs and margin models on Fashion-MNIST, upper-body garments {0, 2, 4, 6} vs the rest.

Four models trained on the first n training images (pixels / 255), tested on the 10,000
official test images, all with early stopping on 10% of the training set held out (patience 5
epochs, at most 50 epochs; the weights of the best validation epoch are kept):

* kernelnb ``MLPClassifier``: 100 tanh units, cross-entropy, plain per-example SGD (Cython).
* scikit-learn ``MLPClassifier``: 100 tanh units, solver 'sgd' (mini-batches of 200, momentum
  0.9), no L2 penalty, inputs standardised by a ``StandardScaler`` (inside the timed fit).
* kernelnb ``SimpleMLP`` (thesis Algorithm 8.2): 100 HardTanh units, beta = 10.
* kernelnb ``MarginPerceptron`` (thesis Algorithm 8.1): beta = 1.

Learning rates, beta and the hidden size were chosen on images 50,000-59,999 as a validation
set with n = 10,000 (kernelnb MLP lr 0.01; scikit-learn lr 0.1 with momentum 0.9, its best of
{0.01, 0.1} x {0, 0.9}; Simple MLP lr 0.001, beta 10 of beta in {1, 3, 10, 20, 30} and N in
{100, 200, 500}; margin Perceptron lr 0.001).  The kernelnb loops run on one thread; BLAS
(scikit-learn's mini-batch products, every model's prediction) is held to ``--blas-threads``
threads (default 1: a per-core comparison, and the one that stays meaningful on shared cores).

Usage: python benchmarks/bench_mlp.py [--n 10000 60000] [--max-epochs 50] [--seed 0]
                                      [--blas-threads 1]
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier as SkMLP
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from _common import fashion
from kernelnb.largescale import MarginPerceptron, MLPClassifier, SimpleMLP

UPPER = (0, 2, 4, 6)


def models(max_epochs, seed):
    common = dict(validation_fraction=0.1, n_iter_no_change=5, max_iter=max_epochs,
                  random_state=seed)
    return {
        "kernelnb MLPClassifier (100 tanh, CE, SGD)":
            MLPClassifier(n_hidden=100, learning_rate=0.01, **common),
        "scikit-learn MLPClassifier (100 tanh, sgd)":
            make_pipeline(StandardScaler(), SkMLP(
                hidden_layer_sizes=(100,), activation="tanh", solver="sgd", alpha=0.0,
                learning_rate_init=0.1, momentum=0.9, max_iter=max_epochs, early_stopping=True,
                validation_fraction=0.1, n_iter_no_change=5, random_state=seed)),
        "kernelnb SimpleMLP (100 HardTanh, beta 10)":
            SimpleMLP(n_hidden=100, beta=10.0, learning_rate=0.001, **common),
        "kernelnb MarginPerceptron (beta 1)":
            MarginPerceptron(beta=1.0, learning_rate=0.001, **common),
    }


def epochs_of(model):
    last = model[-1] if hasattr(model, "steps") else model
    return getattr(last, "n_iter_", None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10000, 60000])
    ap.add_argument("--max-epochs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args(argv)
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        run(args)


def run(args):
    X_all, y_all = fashion("train")
    Xt, yt = fashion("test")
    X_all = X_all.astype(np.float64)
    Xt = Xt.astype(np.float64)
    y_all = np.where(np.isin(y_all, UPPER), 1, -1)
    yt = np.where(np.isin(yt, UPPER), 1, -1)
    rows = []
    for n in args.n:
        X, y = X_all[:n], y_all[:n]
        for name, model in models(args.max_epochs, args.seed).items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                t = time.perf_counter()
                model.fit(X, y)
                fit = time.perf_counter() - t
            t = time.perf_counter()
            err = float(np.mean(model.predict(Xt) != yt))
            pred = time.perf_counter() - t
            rows.append(dict(n=n, name=name, fit=fit, pred=pred, err=err,
                             epochs=epochs_of(model)))
            print(f"  n={n} {name}: fit {fit:.1f} s, test error {100 * err:.2f}%", flush=True)
    print()
    print("Fashion-MNIST, {0, 2, 4, 6} vs the rest, 10,000 test images; early stopping on 10% "
          f"of the training set; BLAS threads: {args.blas_threads}")
    print("| n train | model | epochs | fit (s) | predict (s) | test error % "
          "| fit time: scikit-learn / this | error - scikit-learn (points) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ref = next(b for b in rows if b["n"] == r["n"] and b["name"].startswith("scikit"))
        ratio = "" if r is ref else f"{ref['fit'] / r['fit']:.2f}x"
        diff = "" if r is ref else f"{100 * (r['err'] - ref['err']):+.2f}"
        print(f"| {r['n']} | {r['name']} | {r['epochs']} | {r['fit']:.1f} | {r['pred']:.2f} "
              f"| {100 * r['err']:.2f} | {ratio} | {diff} |")


if __name__ == "__main__":
    main()
