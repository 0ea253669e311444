"""K nearest neighbours: kernelnb's exact search against faiss-cpu's exact flat search
(IndexFlatL2), scikit-learn's brute force and scikit-learn-intelex's, all measured in this one
run, on one and on two threads.

Fashion-MNIST pixels / 255: ``--n-ref`` training images (default 10,000) searched by
``--n-query`` test images (default 2,000), K = ``--k`` (default 5), in float32 (``--dtype``).
Each method is timed from its raw data to the neighbours, building included: kernelnb's
``KNeighborsClassifier.fit`` + ``kneighbors`` (its first search prepares the reference set),
faiss's ``IndexFlatL2.add`` + ``search``, the scikit-learn estimators' ``fit`` + ``kneighbors``;
kernelnb's second search (the prepared rows kept) is timed too.  The methods alternate
``--repeat`` times and the best time of each is kept; ``/ faiss`` is the time over faiss's in
the same run and at the same threads, the ratio to read on a shared machine.  Beside each time:
the fraction of queries whose K neighbours (in order) are the exact ones (float64 distances,
ties to the smaller index; a float64 short list of 30 re-measured from the differences), and
the accuracy of the K neighbours' majority vote (ties to the smaller label), the same rule for
every method.

faiss-cpu and scikit-learn-intelex are optional peers: each is skipped with a note when it is
not installed.  ``--local`` adds the local methods built on the search (KNN's predict, HKNN and
CKNN), timed fit + predict, with faiss's search time of the same run beside them.

Usage::

    python benchmarks/bench_neighbors.py
    python benchmarks/bench_neighbors.py --threads 1 2 --repeat 5 --local \
        --results benchmarks/results/neighbors_fashion_mnist.json
"""
import argparse
import gc
import sys
import time

import numpy as np
from sklearn.neighbors import KNeighborsClassifier as SkKNN
from threadpoolctl import threadpool_limits

from _common import fashion, load_now, load_text, save_table
from kernelnb.neighbors import CKNNClassifier, HKNNClassifier, KNeighborsClassifier

try:
    import faiss
except ImportError:
    faiss = None
try:
    from sklearnex.neighbors import KNeighborsClassifier as SkxKNN
except ImportError:
    SkxKNN = None


def exact_neighbours(Q, R, K, short=30):
    """The K nearest by float64 distances re-measured from the differences, (distance, index)
    order, from a short list of ``short`` by the float64 product."""
    Q64, R64 = Q.astype(np.float64), R.astype(np.float64)
    out = np.empty((len(Q), K), dtype=np.int64)
    rn = (R64 ** 2).sum(1)
    for c in range(0, len(Q), 500):
        q = Q64[c:c + 500]
        D = (q ** 2).sum(1)[:, None] + rn[None] - 2 * q @ R64.T
        s = np.argpartition(D, short, axis=1)[:, :short]
        ex = ((q[:, None, :] - R64[s]) ** 2).sum(-1)
        order = np.lexsort((s, ex), axis=1)[:, :K]
        out[c:c + 500] = np.take_along_axis(s, order, 1)
    return out


def vote(y, idx, n_classes):
    counts = np.zeros((idx.shape[0], n_classes))
    np.add.at(counts, (np.arange(idx.shape[0])[:, None], y[idx]), 1.0)
    return np.argmax(counts, axis=1)


def timed(fn):
    gc.collect()
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def search_methods(R, y, Q, K, nt):
    """name -> function returning (indices, seconds of the second search or None)."""
    out = {}

    def ours():
        knn = KNeighborsClassifier(n_neighbors=K, n_jobs=nt).fit(R, y)
        idx = knn.kneighbors(Q)[1]
        return idx, knn

    out["kernelnb"] = ours
    if faiss is not None:
        R32, Q32 = np.ascontiguousarray(R, np.float32), np.ascontiguousarray(Q, np.float32)

        def flat():
            faiss.omp_set_num_threads(nt)
            index = faiss.IndexFlatL2(R.shape[1])
            index.add(R32)
            return index.search(Q32, K)[1].astype(np.int64), None

        out["faiss-cpu IndexFlatL2"] = flat
    out["scikit-learn (brute)"] = lambda: (
        SkKNN(K, algorithm="brute", n_jobs=nt).fit(R, y).kneighbors(Q)[1], None)
    if SkxKNN is not None:
        out["scikit-learn-intelex (brute)"] = lambda: (
            SkxKNN(K, algorithm="brute", n_jobs=nt).fit(R, y).kneighbors(Q)[1], None)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-ref", type=int, default=10000)
    ap.add_argument("--n-query", type=int, default=2000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--local", action="store_true", help="also KNN predict, HKNN and CKNN")
    ap.add_argument("--label", default="", help="a word for the kernelnb rows (e.g. a commit)")
    ap.add_argument("--results", default=None, metavar="FILE",
                    help="also write the table as a results file (JSON)")
    args = ap.parse_args(argv)
    load0 = load_now()
    print(f"# load average at start: {load0:.2f}", flush=True)
    if faiss is None:
        print("# faiss-cpu is not installed: its rows are skipped (pip install faiss-cpu)")
    if SkxKNN is None:
        print("# scikit-learn-intelex is not installed: its rows are skipped")
    X, yx = fashion("train")
    Xt, yt = fashion("test")
    R = np.ascontiguousarray(X[:args.n_ref], dtype=args.dtype)
    y = yx[:args.n_ref]
    Q = np.ascontiguousarray(Xt[:args.n_query], dtype=args.dtype)
    yq = yt[:args.n_query]
    K = args.k
    exact = exact_neighbours(Q, R, K)
    n_classes = int(y.max()) + 1
    tag = f" ({args.label})" if args.label else ""
    rows, local_rows = [], []
    for nt in args.threads:
        methods = search_methods(R, y, Q, K, nt)
        best, second, idxs = {}, {}, {}
        with threadpool_limits(limits=nt, user_api="blas"):
            for _ in range(max(1, args.repeat)):
                for name, fn in methods.items():       # alternating runs, best of each
                    (idx, keep), t = timed(fn)
                    best[name] = min(t, best.get(name, np.inf))
                    idxs[name] = idx
                    if keep is not None:
                        _, t2 = timed(lambda: keep.kneighbors(Q))
                        second[name] = min(t2, second.get(name, np.inf))
                    print(f"  done: {name} threads={nt} {t:.3f}s", file=sys.stderr, flush=True)
            base = best.get("faiss-cpu IndexFlatL2")
            for name in methods:
                t = best[name]
                same = np.mean(np.all(idxs[name] == exact, axis=1))
                acc = np.mean(vote(y, idxs[name], n_classes) == yq)
                ratio = f"{t / base:.2f}x" if base else ""
                label = name + (tag if name == "kernelnb" else "")
                rows.append([label, nt, f"{t:.3f}", f"{second[name]:.3f}" if name in second
                             else "", ratio,
                             f"{second[name] / base:.2f}x" if name in second and base else "",
                             f"{same:.4f}", f"{acc:.4f}"])
            if args.local:
                local = [("kernelnb KNN predict (fit + predict)",
                          lambda: KNeighborsClassifier(n_neighbors=K, n_jobs=nt).fit(R, y)),
                         ("kernelnb HKNN (K=10, lambda=10)",
                          lambda: HKNNClassifier(n_neighbors=10, weight_decay=10.0,
                                                 n_jobs=nt).fit(R, y)),
                         ("kernelnb CKNN (K=10)",
                          lambda: CKNNClassifier(n_neighbors=10, n_jobs=nt).fit(R, y))]
                for name, make in local:
                    tbest, acc = np.inf, None
                    for _ in range(max(1, args.repeat)):
                        pred, t = timed(lambda: make().predict(Q))
                        tbest = min(tbest, t)
                        acc = np.mean(pred == yq)
                    local_rows.append([name + tag, nt, f"{tbest:.3f}",
                                       f"{tbest / base:.2f}x" if base else "", f"{acc:.4f}"])
                    print(f"  done: {name} threads={nt} {tbest:.3f}s", file=sys.stderr,
                          flush=True)
    load1 = load_now()
    cols = ["method", "threads", "fit + search (s)", "second search (s)", "/ faiss",
            "second / faiss", "same neighbours as exact", "vote accuracy"]
    print()
    print(f"K={K} nearest neighbours of {args.n_query} Fashion-MNIST test images among "
          f"{args.n_ref} training images, {args.dtype}, best of {args.repeat}")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    lcols = ["method", "threads", "fit + predict (s)", "/ faiss search", "accuracy"]
    if local_rows:
        print()
        print("| " + " | ".join(lcols) + " |")
        print("|" + "---|" * len(lcols))
        for r in local_rows:
            print("| " + " | ".join(str(c) for c in r) + " |")
    print(f"# {load_text(load0, load1)}")
    if args.results:
        save_table(args.results,
                   title=f"K nearest neighbours on Fashion-MNIST ({args.n_ref} x {args.n_query}, "
                         f"K = {K}, {args.dtype})",
                   setup="wall-clock seconds from the raw data to the neighbours (building "
                         "included), best of alternating runs; '/ faiss' over faiss-cpu's "
                         "exact IndexFlatL2 in the same run at the same threads; neighbours "
                         "against the exact float64 ones, ties to the smaller index",
                   columns=cols, rows=rows + ([lcols] + local_rows if local_rows else []),
                   load=load_text(load0, load1))


if __name__ == "__main__":
    main()
