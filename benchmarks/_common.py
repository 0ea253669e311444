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


def machine():
    """The machine in words: the processor's name and the cores this process may use."""
    import os
    name = "unknown processor"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (not on Linux)
        cores = os.cpu_count() or 1
    return f"{cores}-core {name} machine"


def load_text(start, end):
    """The 1-minute load averages at the start and the end of a run, in words."""
    return f"load average {start:.1f} at the start, {end:.1f} at the end (os.getloadavg)"


def load_now():
    import os
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def save_table(path, *, title, setup, columns, rows, load):
    """Write one benchmark table as ``benchmarks/results``' other files are: title, benchmark,
    command (this run's, relative to the repository), date, machine, load, setup, columns and
    rows (strings).  Returns the path."""
    import datetime
    import json
    import sys
    root = Path(__file__).resolve().parent.parent
    out = {
        "title": title,
        "benchmark": str(Path(sys.argv[0]).resolve().relative_to(root)),
        "command": _repo_command(),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "load": load,
        "setup": setup,
        "columns": list(columns),
        "rows": [[str(c) for c in row] for row in rows],
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"[results file written: {path}]", flush=True)
    return path
