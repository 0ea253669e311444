"""The book's speed page and Binder link, generated when the book is built, never typed.

Two directives:

``kernelnb-benchmarks``
    One table per result file of ``benchmarks/results/*.json`` (newest first), each under its
    title with its provenance: the date, the machine, the load, the command that measured it and
    what the numbers are (``setup``). A result file holds one object with the keys of
    :data:`KEYS`, written by a benchmark (``benchmarks/_common.py``'s ``save_table``); a file that
    lacks one fails the build, naming the file and the key.

``kernelnb-binder-link``
    The Binder launch link of this repository, opening the gallery: the book's
    ``kernelnb_binder_url`` (``KERNELNB_BINDER_URL``), else derived from the clone's
    ``git remote get-url origin`` when it is a GitHub repository (:func:`binder_url`), else a
    sentence saying how to set it.

The derived Binder URL also becomes ``kernelnb_binder_url`` for the dashboards' pages, so every
Binder link of a book built from a GitHub clone points at that clone's repository.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

#: What every result file says.
KEYS = ("title", "benchmark", "command", "date", "machine", "load", "setup", "columns", "rows")

_GITHUB = re.compile(r"^(?:https?://|ssh://git@|git@)github\.com[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def binder_url(remote: str | None) -> str:
    """The mybinder.org launch URL of a GitHub remote (``''`` for any other remote).

    Parameters
    ----------
    remote : str or None
        What ``git remote get-url origin`` prints: ``https://github.com/OWNER/REPO(.git)``,
        ``git@github.com:OWNER/REPO(.git)`` or ``ssh://git@github.com/OWNER/REPO``.

    Returns
    -------
    str
        ``https://mybinder.org/v2/gh/OWNER/REPO/HEAD``, or ``''``.
    """
    match = _GITHUB.match((remote or "").strip())
    if not match:
        return ""
    owner, repo = match.groups()
    return f"https://mybinder.org/v2/gh/{owner}/{repo}/HEAD"


def origin_remote(root: Path = ROOT) -> str:
    """``git remote get-url origin`` of the checkout, ``''`` without git or without a remote."""
    try:
        out = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root,
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def read_results(folder: Path = RESULTS) -> list[dict]:
    """The result files of ``folder``, newest first (then by name), each with its ``file``.

    Raises
    ------
    ValueError
        For a file that is not JSON, lacks a key of :data:`KEYS`, or has a row that is not a
        list of cells (a row may have fewer cells than the columns, e.g. a second table's
        header: the table pads it).
    """
    results = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ValueError(f"{path.name}: not a JSON result file ({exc})") from None
        missing = [k for k in KEYS if k not in data]
        if missing:
            raise ValueError(f"{path.name}: a result file needs {', '.join(missing)}")
        bad = [i for i, row in enumerate(data["rows"]) if not isinstance(row, list) or not row]
        if bad or not data["rows"]:
            raise ValueError(f"{path.name}: rows {bad} are not lists of cells")
        results.append({**data, "file": path.name})
    results.sort(key=lambda d: d["file"])
    results.sort(key=lambda d: d["date"], reverse=True)
    return results


def _machine(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{v}" for v in value.values() if v)
    return str(value)


def _table(columns, rows):
    table = nodes.table(classes=["kernelnb-speed"])
    width = max([len(columns), *(len(r) for r in rows)])
    columns = list(columns) + [""] * (width - len(columns))
    rows = [list(r) + [""] * (width - len(r)) for r in rows]
    group = nodes.tgroup(cols=width)
    table += group
    group += [nodes.colspec(colwidth=1) for _ in columns]

    def row_of(cells):
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=str(cell))
            row += entry
        return row

    head = nodes.thead()
    head += row_of(columns)
    body = nodes.tbody()
    for r in rows:
        body += row_of(r)
    group += [head, body]
    return table


class BenchmarksDirective(Directive):
    """``kernelnb-benchmarks``: the tables of ``benchmarks/results/``."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        try:
            results = read_results()
        except ValueError as exc:
            raise self.error(f"kernelnb-benchmarks: {exc}")
        env.note_dependency(str(RESULTS))
        out = []
        for data in results:
            env.note_dependency(str(RESULTS / data["file"]))
            section = nodes.section(ids=[nodes.make_id(f"speed-{data['file'][:-5]}")])
            # commands and options keep their "--" and quotes (Sphinx's smart quotes would make
            # en dashes and curly quotes of them)
            section["support_smartquotes"] = False
            section += nodes.title(text=data["title"])
            section += nodes.paragraph(text=data["setup"])
            section += _table(data["columns"], data["rows"])
            provenance = nodes.paragraph(classes=["kernelnb-provenance"])
            provenance += nodes.Text(f"Measured {data['date']} on {_machine(data['machine'])}, "
                                     f"load {data['load']}, by ")
            provenance += nodes.literal(text=data["command"])
            provenance += nodes.Text(f" ({data['file']}).")
            section += provenance
            out.append(section)
        return out


class BinderLinkDirective(Directive):
    """``kernelnb-binder-link``: this repository's Binder launch link, or how to set it."""

    has_content = False

    def run(self):
        url = self.state.document.settings.env.config.kernelnb_binder_url
        para = nodes.paragraph()
        if url:
            target = f"{url.rstrip('/')}?urlpath=kernelnb/"
            para += nodes.Text("This repository on Binder: ")
            para += nodes.reference(text=target, refuri=target)
            para += nodes.Text(".")
        else:
            para += nodes.Text("This book was built from a clone without a GitHub remote, so it "
                               "has no Binder link: set KERNELNB_BINDER_URL (or the clone's "
                               "origin) before building.")
        return [para]


def _derive_binder(app, config):
    if not getattr(config, "kernelnb_binder_url", ""):
        config.kernelnb_binder_url = binder_url(origin_remote())


def setup(app):
    if "kernelnb_binder_url" not in app.config.values:     # kernelnb_book declares it too
        app.add_config_value("kernelnb_binder_url", os.environ.get("KERNELNB_BINDER_URL", ""),
                             "env")
    app.connect("config-inited", _derive_binder)
    app.add_directive("kernelnb-benchmarks", BenchmarksDirective)
    app.add_directive("kernelnb-binder-link", BinderLinkDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
