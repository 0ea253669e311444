"""Table 3 of the KMP paper on the bundled UCI sets: 50 random splits, SVM vs KMP-mse vs KMP-tanh,
measured beside the published numbers (protocol and the choices the paper leaves open:
kernelnb.reproductions.vincent.kmp).

Usage: python benchmarks/bench_kmp_table3.py [--splits 50]
"""
import argparse
import time

from kernelnb.reproductions.vincent.kmp import format_table3, uci_table3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=50)
    ap.add_argument("--scaling", choices=["minmax", "standard"], default="minmax")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    res = uci_table3(n_splits=args.splits, scaling=args.scaling,
                     progress=lambda d, s: print(f"  {d}: split {s + 1}/{args.splits}", flush=True)
                     if (s + 1) % 10 == 0 else None)
    print()
    print(f"KMP paper Table 3, {args.splits} splits into three equal parts, features scaled "
          f"'{args.scaling}' on each training part ({time.perf_counter() - t:.0f} s)")
    print(format_table3(res))


if __name__ == "__main__":
    main()
