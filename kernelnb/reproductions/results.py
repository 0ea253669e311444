"""Results files: a reproduction's output at full size, written by a benchmark with its provenance.

A protocol too slow to run while the book is built (the text's number of runs or splits, data
that only ``KERNELNB_DATA`` holds) is run once by its benchmark, which writes what the protocol
returned to a JSON file beside the date, the machine, the command and the settings; the book
(its Sphinx extension, ``docs/_ext/kernelnb_book``) reads that file and never retypes a number.

A file holds one object::

    {"format": 1, "table": ..., "protocol": ..., "settings": {...}, "command": ...,
     "date": ..., "seconds": ..., "machine": {...}, "kernelnb": ..., "output": ...}

``output`` is the protocol's return value made JSON-ready by :func:`to_json` (arrays as lists,
dictionary keys as strings, numbers of numpy as Python's, NaN and infinities as ``null``).
"""
from __future__ import annotations

import datetime
import json
import math
import os
import platform
from pathlib import Path

import numpy as np

__all__ = ["RESULTS_FORMAT", "to_json", "machine_info", "write_results", "read_results"]

#: The version of the file layout written by :func:`write_results`.
RESULTS_FORMAT = 1
_REQUIRED = ("format", "table", "protocol", "settings", "command", "date", "machine", "output")


def to_json(obj):
    """``obj`` made JSON-ready: what :func:`json.dumps` writes and reads back unchanged.

    Parameters
    ----------
    obj : object
        Nested dicts, lists, tuples, numpy arrays and scalars, numbers, strings, None.

    Returns
    -------
    object
        Dicts with string keys (``str`` of the key: ``10`` becomes ``"10"``), lists (tuples and
        arrays too), Python numbers (a float that is NaN or infinite becomes None), strings,
        booleans and None.

    Raises
    ------
    TypeError
        For an object of another type (it would not survive the round trip).
    """
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_json(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if obj is None or isinstance(obj, str):
        return obj
    raise TypeError(f"to_json: cannot store an object of type {type(obj).__name__} "
                    f"({obj!r:.80}) in a results file")


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info():
    """The machine a results file was computed on, as the file records it.

    Returns
    -------
    dict
        ``system`` (``platform.platform()``), ``cpu`` (the processor's model name),
        ``cores`` (``os.cpu_count()``), ``python`` (its version), ``numpy`` (its version) and
        ``load`` (the 1-minute load average when the run started, None where unknown).
    """
    try:
        load = round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        load = None
    return {"system": platform.platform(), "cpu": _cpu_model(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__, "load": load}


def write_results(path, output, *, table, protocol, settings, command, seconds=None,
                  machine=None):
    """Write a reproduction's output and its provenance to a results file.

    Parameters
    ----------
    path : str or os.PathLike
        The file written (its folder is made if missing).
    output : object
        What the protocol returned (made JSON-ready by :func:`to_json`).
    table : str
        The table it reproduces, as the book names it (e.g. ``"kmp-table-9-2"``).
    protocol : str
        The function that computed it, e.g.
        ``"kernelnb.reproductions.vincent.kmp.delve_table"``.
    settings : dict
        The settings it ran with (sizes, runs, data), JSON-ready.
    command : str
        The command that wrote the file, relative to the repository's root (e.g.
        ``"python benchmarks/bench_kmp_tables.py --results-dir docs/reproductions/results"``).
    seconds : float or None, default=None
        The wall time of the protocol.
    machine : dict or None, default=None
        The machine (default :func:`machine_info`, taken now).

    Returns
    -------
    pathlib.Path
        The file written.
    """
    import kernelnb
    for name, value in (("table", table), ("protocol", protocol), ("command", command)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"write_results: {name} must be a non-empty string, got {value!r}")
    if not isinstance(settings, dict):
        raise ValueError(f"write_results: settings must be a dict, got {type(settings).__name__}")
    record = {
        "format": RESULTS_FORMAT, "table": table, "protocol": protocol,
        "settings": to_json(settings), "command": command,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": None if seconds is None else round(float(seconds), 1),
        "machine": to_json(machine if machine is not None else machine_info()),
        "kernelnb": kernelnb.__version__, "output": to_json(output),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path


def read_results(path):
    """Read a results file written by :func:`write_results`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    dict
        The record (see the module docstring).

    Raises
    ------
    ValueError
        When the file is not JSON, is of another format version or lacks a field.
    """
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"results file {path.name}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise ValueError(f"results file {path.name}: expected an object, got "
                         f"{type(record).__name__}")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"results file {path.name}: missing field(s) {', '.join(missing)}")
    if record["format"] != RESULTS_FORMAT:
        raise ValueError(f"results file {path.name}: format {record['format']!r}, this kernelnb "
                         f"reads format {RESULTS_FORMAT}")
    return record
