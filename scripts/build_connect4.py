"""Build kernelnb's Connect-4 data file once: the UCI Connect-4 set, rebuilt offline.

    python scripts/build_connect4.py [--data-home DIR] [--install] [--verify N]

kernelnb enumerates the 67,557 positions itself (``kernelnb.datasets.connect4_positions``: every
8-ply position in which nobody has won and nobody can win with the next stone, one of each mirror
pair). Their game values (win / loss / draw for the first player under perfect play) need a
Connect-4 solver. This script uses ``bitbully`` (https://pypi.org/project/bitbully/, with its
opening books ``bitbully-databases``), which is licensed under the **GNU AGPL-3.0**. kernelnb is
BSD-3-licensed and does not depend on it: nothing in the ``kernelnb`` package imports it, and only
this stand-alone script, run by you, uses it. The values it writes are facts about the game; the
solver is only a tool to compute them.

With ``--install`` the solver is installed by pip into a temporary folder that is deleted at the
end (your Python environment is left as it was); without it, ``bitbully`` must be importable.

The values come from bitbully's 8-ply opening book through its solver (a few seconds for all the
positions); ``--verify N`` re-solves N random positions by full search without any book (about a
second each) and stops if one disagrees. The counts are checked against the published ones
(44,473 win, 16,635 loss, 6,449 draw), and the file, ``connect-4/connect-4.data.gz`` in the UCI
text format, is written into ``--data-home`` (default: ``$KERNELNB_DATA``, else
``~/.cache/kernelnb``), where ``kernelnb.datasets.load_connect4`` finds it.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from kernelnb.datasets.connect4 import CONNECT4_COUNTS, connect4_positions, save_connect4


def _import_solver(install):
    """bitbully's ``BitBully`` and ``Board``; installed into a temporary folder with ``install``."""
    tmp = None
    try:
        import bitbully  # noqa: F401
    except ImportError:
        if not install:
            sys.exit("The Connect-4 solver 'bitbully' (AGPL-3.0) is not installed. Run this script "
                     "with --install (pip puts it in a temporary folder, removed afterwards), or "
                     "`pip install bitbully` yourself.")
        tmp = tempfile.mkdtemp(prefix="bitbully-")
        print(f"installing bitbully (AGPL-3.0) into a temporary folder {tmp} ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", tmp,
                        "bitbully"], check=True)
        sys.path.insert(0, tmp)
    from bitbully import BitBully, Board
    return BitBully, Board, tmp


def _outcome(score):
    return "win" if score > 0 else "loss" if score < 0 else "draw"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-home", default=None,
                    help="data folder (default: $KERNELNB_DATA, else ~/.cache/kernelnb)")
    ap.add_argument("--install", action="store_true",
                    help="pip-install bitbully into a temporary folder for this run")
    ap.add_argument("--verify", type=int, default=10, metavar="N",
                    help="re-solve N random positions by full search, without book (default 10)")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    cells, moves = connect4_positions(return_moves=True)
    print(f"{cells.shape[0]:,} positions enumerated in {time.perf_counter() - t0:.1f} s", flush=True)

    BitBully, Board, tmp = _import_solver(args.install)
    try:
        agent = BitBully("8-ply")
        t0 = time.perf_counter()
        scores = np.empty(cells.shape[0], dtype=np.int64)
        for i, seq in enumerate(moves.tolist()):
            board = Board()
            if not board.play(seq):
                raise RuntimeError(f"bitbully refused the moves {seq} of position {i}")
            scores[i] = agent.null_window(board)
            if (i + 1) % 10000 == 0:
                print(f"  {i + 1:,} labelled ({time.perf_counter() - t0:.1f} s)", flush=True)
        outcome = np.array([_outcome(s) for s in scores])
        print(f"labelled in {time.perf_counter() - t0:.1f} s with bitbully's 8-ply book", flush=True)

        if args.verify > 0:
            searcher = BitBully(None)
            rng = np.random.RandomState(0)
            for i in rng.choice(cells.shape[0], size=min(args.verify, cells.shape[0]), replace=False):
                board = Board()
                board.play(moves[i].tolist())
                t1 = time.perf_counter()
                got = _outcome(searcher.null_window(board))
                print(f"  full search, position {i}: {got} ({time.perf_counter() - t1:.1f} s), "
                      f"book: {outcome[i]}", flush=True)
                if got != outcome[i]:
                    sys.exit(f"position {i}: the full search says {got}, the book {outcome[i]}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    print("outcome  ours    published")
    for k, v in CONNECT4_COUNTS.items():
        print(f"{k:8s} {int((outcome == k).sum()):6d}  {v:6d}")
    path = save_connect4(cells, outcome, data_home=args.data_home)   # checks counts and SHA-256
    print(f"written and checked: {path}")


if __name__ == "__main__":
    main()
