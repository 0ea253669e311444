"""KMP one-vs-rest with one N per class against every class run to the largest N.

Vincent & Bengio's Table 9.1 protocol gives each class's KMP the number of support vectors of
that class's SVM.  ``KMPClassifier(n_basis=[N_1, ..., N_k])`` stops each one-vs-rest path at its
own N; before, one ``n_basis = max N_c`` ran every class to the largest and the smaller models
were read off the paths (same predictions, more time).  Data: scikit-learn's digits (1000
training points, the rest for the test, pixels / 16) or Fashion-MNIST (``--fashion``, 3000
points, through ``KERNELNB_DATA``); sigma and C fixed; times in the same process.

Usage: python benchmarks/bench_kmp_ovr.py [--fashion]
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_digits

from kernelnb.datasets import load_fashion_mnist
from kernelnb.kmp import KMPClassifier
from kernelnb.svm import SVC


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fashion", action="store_true")
    args = ap.parse_args(argv)
    if args.fashion:
        X, y = load_fashion_mnist("train", n_samples=4000, random_state=0)
        X = X.astype(np.float64)
        n_train, sigma = 3000, 3.0
    else:
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        n_train, sigma = 1000, 2.0
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    classes = np.unique(ytr)
    t0 = time.perf_counter()
    n_sv = [len(SVC(C=10.0, sigma=sigma).fit(Xtr, np.where(ytr == c, 1, -1)).support_)
            for c in classes]
    t_svm = time.perf_counter() - t0
    t0 = time.perf_counter()
    old = KMPClassifier(n_basis=max(n_sv), sigma=sigma).fit(Xtr, ytr)
    old.set_n_basis(n_sv)
    t_old = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = KMPClassifier(n_basis=n_sv, sigma=sigma).fit(Xtr, ytr)
    t_new = time.perf_counter() - t0
    same = np.allclose(old.decision_function(Xte), new.decision_function(Xte))
    print(f"N per class (SVM #SV): {n_sv}")
    print(f"SVMs (10 one-vs-rest) {t_svm:6.2f} s | KMP to max N {t_old:6.2f} s "
          f"({t_old / t_svm:4.1f}x SVM) | KMP per-class N {t_new:6.2f} s ({t_new / t_svm:4.1f}x SVM)"
          f" | same decision values: {same} | test error "
          f"{100 * np.mean(new.predict(Xte) != yte):.2f} %")


if __name__ == "__main__":
    main()
