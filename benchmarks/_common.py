"""Helpers shared by the benchmark scripts."""
from pathlib import Path

from kernelnb.datasets import load_fashion_mnist


def fashion(kind):
    """Fashion-MNIST (``kind`` 'train' or 'test') where the loader finds it: the folder named by
    KERNELNB_DATA, else ~/.cache/kernelnb."""
    return load_fashion_mnist(kind)


def peer_svcs():
    """The peers' SVC classes, ``(scikit-learn's, scikit-learn-intelex's)``; None for one that is
    not installed."""
    try:
        from sklearn.svm import SVC as sk
    except ImportError:  # pragma: no cover
        sk = None
    try:
        from sklearnex.svm import SVC as skx
    except ImportError:
        skx = None
    return sk, skx


def add_results_option(parser):
    """``--results-dir``: the folder a benchmark writes its reproductions' results files into
    (the book reads them from ``docs/reproductions/results``)."""
    parser.add_argument(
        "--results-dir", default=None, metavar="DIR",
        help="also write each reproduced table as a results file (JSON: the protocol's output, "
             "with the date, machine, command and settings) into DIR; the book reads "
             "docs/reproductions/results")


def _repo_command():
    """This run's command line, paths relative to the repository's root (the file is committed:
    no path of this machine goes in it)."""
    import os
    import shlex
    import sys
    root = Path(__file__).resolve().parent.parent
    words = ["python", os.path.relpath(Path(sys.argv[0]).resolve(), root)]
    for arg in sys.argv[1:]:
        value = arg.split("=", 1)
        head, tail = (value[0] + "=", value[1]) if len(value) == 2 and arg.startswith("--") \
            else ("", arg)
        if os.path.isabs(tail) and Path(tail).resolve().is_relative_to(root):
            tail = os.path.relpath(Path(tail).resolve(), root)
        words.append(head + tail)
    return shlex.join(words)


def save_results(results_dir, table, protocol, settings, output, seconds):
    """Write one results file (:func:`kernelnb.reproductions.results.write_results`) when
    ``results_dir`` is set; the command recorded is this run's."""
    if not results_dir:
        return None
    from kernelnb.reproductions.results import write_results
    path = write_results(Path(results_dir) / f"{table}.json", output, table=table,
                         protocol=protocol, settings=settings, command=_repo_command(),
                         seconds=seconds)
    print(f"[results file written: {path}]", flush=True)
    return path
