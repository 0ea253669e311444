"""The reproductions' pages of the book (``kernelnb_book._reproductions``) and the results
files they read (``kernelnb.reproductions.results``): a published number stands next to the
number the protocol computes, never a typed one, and a results file's provenance is shown."""
import dataclasses
import datetime
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from kernelnb_book import _reproductions as R
from kernelnb.reproductions.results import read_results, to_json, write_results

RESULTS = Path(__file__).resolve().parents[3] / "docs" / "reproductions" / "results"


def _rows(markdown):
    """The cells of every Markdown table row of ``markdown``, a blank first cell (a row of the
    group above) filled with the one above it."""
    rows = []
    for line in markdown.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not cells[0] and rows:
                cells[0] = rows[-1][0]
            rows.append(cells)
    return rows


# -- results files ----------------------------------------------------------------------------

def test_to_json_round_trips_and_refuses_other_objects():
    value = {10: np.arange(3, dtype=np.int64), "a": (np.float32(0.5), np.nan, np.inf),
             "b": {"c": np.bool_(True), "d": None, "e": [np.float64(2.25)]}}
    out = to_json(value)
    assert json.loads(json.dumps(out)) == out
    assert out == {"10": [0, 1, 2], "a": [0.5, None, None],
                   "b": {"c": True, "d": None, "e": [2.25]}}
    with pytest.raises(TypeError, match="object"):
        to_json({"x": object()})


def test_write_results_records_provenance(tmp_path):
    output = {"mean": {20: np.array([0.1, 0.2])}}
    path = write_results(tmp_path / "sub" / "t.json", output, table="t",
                         protocol="kernelnb.reproductions.x.f",
                         settings={"n_runs": 3, "sizes": (10, 20)},
                         command="python benchmarks/bench_x.py --results-dir d", seconds=1.26)
    record = read_results(path)
    assert record["table"] == "t" and record["protocol"] == "kernelnb.reproductions.x.f"
    assert record["settings"] == {"n_runs": 3, "sizes": [10, 20]}
    assert record["command"] == "python benchmarks/bench_x.py --results-dir d"
    assert record["seconds"] == 1.3
    assert record["output"] == {"mean": {"20": [0.1, 0.2]}}
    when = datetime.datetime.fromisoformat(record["date"])
    assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600
    assert record["machine"]["cores"] == os.cpu_count()
    assert record["machine"]["cpu"] and record["machine"]["system"]


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("command"), "missing field.*command"),
    (lambda r: r.update(format=99), "format 99"),
])
def test_read_results_refuses_a_bad_file(tmp_path, change, message):
    path = write_results(tmp_path / "t.json", {}, table="t", protocol="p", settings={},
                         command="c")
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=message):
        read_results(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        read_results(path)


def test_write_results_names_a_bad_argument(tmp_path):
    with pytest.raises(ValueError, match="command must be a non-empty string"):
        write_results(tmp_path / "t.json", {}, table="t", protocol="p", settings={},
                      command="")


# -- the table specifications -----------------------------------------------------------------

def test_every_table_has_its_numbers_from_a_protocol():
    assert len({r.key for r in R.REPRODUCTIONS}) == len(R.REPRODUCTIONS)
    for spec in R.REPRODUCTIONS:
        assert spec.source in R.SOURCES, spec.key
        assert spec.build is not None or spec.results, spec.key
        if spec.build is not None:
            assert callable(spec.compute), spec.key
            assert spec.build_says, spec.key
        if spec.results:
            assert "--results-dir docs/reproductions/results" in spec.command, spec.key
    # every source text has a page
    assert {r.source for r in R.REPRODUCTIONS} == set(R.SOURCES)


def test_committed_results_files_render():
    """Every table that only a benchmark computes has its committed results file, and every
    committed file belongs to a table, is readable and renders."""
    by_key = {r.key: r for r in R.REPRODUCTIONS}
    for spec in R.REPRODUCTIONS:
        if spec.build is None:
            assert (RESULTS / f"{spec.key}.json").is_file(), f"{spec.key}: no results file"
    for path in sorted(RESULTS.glob("*.json")):
        assert path.stem in by_key, f"{path.name} belongs to no table"
        spec = by_key[path.stem]
        assert spec.results, f"{path.name}: {spec.key} does not read a results file"
        report = R.reproduction_report(spec, RESULTS)
        assert report["origin"] == "results"
        text = "\n".join(R.table_markdown(spec, report))
        assert report["record"]["command"] in text
        assert report["record"]["date"][:10] in text
        assert any("published" in cell for row in _rows(text) for cell in row), spec.key
        assert not report["record"]["command"].startswith("python /"), "an absolute path"


# -- computed numbers come from the protocol ----------------------------------------------------

def test_kmp_table3_shows_the_protocols_numbers_beside_the_published_ones():
    from kernelnb.reproductions.vincent.kmp import TABLE3_PUBLISHED, uci_table3
    settings = {"datasets": ["breast_cancer", "sonar"], "n_splits": 2, "max_basis": 30,
                "max_basis_tanh": 10, "scaling": "minmax", "random_state": 3}
    spec = dataclasses.replace(dict((r.key, r) for r in R.REPRODUCTIONS)["kmp-table-3"],
                               build=settings)
    result = R.compute(spec.key, settings)
    assert result["settings"]["n_splits"] == 2 and result["cpu_seconds"] > 0
    report = R.reproduction_report(spec, "/nonexistent", result)
    assert report["origin"] == "build"
    text = "\n".join(R.table_markdown(spec, report))
    assert "Computed when this book was built" in text and "n_splits=2" in text
    rows = _rows(text)
    from kernelnb._threads import blas_single_thread
    with blas_single_thread():                  # as compute() runs it: the same sums
        reference = uci_table3(**settings)      # the protocol, called independently
    for name, label in (("breast_cancer", "breast cancer"), ("sonar", "Sonar")):
        for key, method in (("svm", "SVM"), ("mse", "KMP-mse"), ("tanh", "KMP-tanh")):
            row = next(r for r in rows if r[0].startswith(label) and r[1] == method)
            assert row[2].startswith(str(TABLE3_PUBLISHED[name][key]))
            ours = 100 * float(np.mean(reference[name]["errors"][key]))
            assert row[3].startswith(f"{ours:.2f}"), (row, ours)
            assert row[4] == R._diff(ours, TABLE3_PUBLISHED[name][key])
            assert row[6] == f"{np.mean(reference[name]['n_sv'][key]):.0f}"


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_a_results_file_is_read_instead_of_computing(tmp_path):
    from kernelnb.reproductions.chapelle.reweighting import vrm_unlabeled_toy
    from kernelnb.reproductions.chapelle.transduction import PUBLISHED_VRM_UNLABELED
    spec = dict((r.key, r) for r in R.REPRODUCTIONS)["chapelle-vrm-unlabeled"]
    out = vrm_unlabeled_toy(n_runs=1, random_state=5)
    write_results(tmp_path / f"{spec.key}.json", out, table=spec.key,
                  protocol=spec.protocol, settings={"n_runs": 1, "random_state": 5},
                  command="python benchmarks/bench_transduction.py --section vrm", seconds=2.0,
                  machine={"system": "TestOS-1", "cpu": "Test CPU 9000", "cores": 2,
                           "python": "3", "numpy": "2", "load": 1.5})
    report = R.reproduction_report(spec, tmp_path)
    assert report["origin"] == "results"
    text = "\n".join(R.table_markdown(spec, report))
    for fragment in ("From a results file", "python benchmarks/bench_transduction.py "
                     "--section vrm", "Test CPU 9000", "2 cores", "TestOS-1", "load 1.5",
                     "n_runs=1", "random_state=5", report["record"]["date"][:10]):
        assert fragment in text, fragment
    rows = _rows(text)
    best = next(r for r in rows if r[0] == "best $\\sigma_L$" and r[1] == "labeled + unlabeled")
    assert best[2] == f"{PUBLISHED_VRM_UNLABELED['unlabeled_best']:.1f}"
    assert best[3] == f"{100 * out['unlabeled_best']:.2f} ± {100 * out['unlabeled_best_se']:.2f}"
    assert math.isclose(float(best[4].replace("−", "-").replace("±", "")),
                        100 * out["unlabeled_best"] - PUBLISHED_VRM_UNLABELED["unlabeled_best"],
                        abs_tol=0.006)


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_reports_compute_once_then_read_the_cache_and_prefer_a_results_file(tmp_path,
                                                                          monkeypatch):
    settings = {"datasets": ["breast_cancer"], "n_splits": 2, "max_basis": 10,
                "max_basis_tanh": 5, "scaling": "minmax", "random_state": 0}
    spec = dataclasses.replace(dict((r.key, r) for r in R.REPRODUCTIONS)["kmp-table-3"],
                               build=settings, results=True)
    monkeypatch.setattr(R, "REPRODUCTIONS", (spec,))
    cache, results = tmp_path / "cache", tmp_path / "results"
    results.mkdir()
    messages = []
    first = R.reports(cache, results, workers=1, log=messages.append)
    assert first[0]["origin"] == "build"
    assert any(m.startswith("computing 1 reproduction") for m in messages)
    assert len(list(cache.glob("*.json"))) == 1
    messages.clear()
    second = R.reports(cache, results, workers=1, log=messages.append)
    assert not messages                          # nothing computed: the cache answered
    assert second[0]["output"] == first[0]["output"]
    write_results(results / f"{spec.key}.json", {"breast_cancer": {}}, table=spec.key,
                  protocol=spec.protocol, settings=settings, command="python b.py")
    third = R.reports(cache, results, workers=1, log=messages.append)
    assert third[0]["origin"] == "results" and not messages
    assert third[0]["output"] == {"breast_cancer": {}}


def test_page_lists_its_tables_with_their_origin():
    spec = dict((r.key, r) for r in R.REPRODUCTIONS)["vincent-table-9-2"]
    missing = {"key": spec.key, "origin": "missing", "output": None}
    text = R.page_markdown(R.SOURCES["vincent"], [(spec, missing)])
    assert text.startswith("(reproductions-vincent)=\n# Vincent's thesis")
    assert f"{{ref}}`{spec.title} <{spec.key}>`" in text and "not computed" in text
    assert f"({spec.key})=" in text and spec.command in text
