"""Bundled UCI sets: shapes and values against the CSV files read independently, labels, missing values."""
import gzip
import os
from pathlib import Path

import numpy as np
import pytest

import kernelnb.datasets as ds

DATA = Path(ds.__file__).parent / "data"
# A data folder may hold the original files the packaged copies were made from (.ci/run points
# KERNELNB_DATA at one that does); a user's usually holds Fashion-MNIST and Connect-4 only.
ORIGINALS = Path(os.environ["KERNELNB_DATA"]) if os.environ.get("KERNELNB_DATA") else None

# name -> (file, loader, positive label string or None for regression, first column is an id)
SETS = {
    "sonar": ("sonar.csv.gz", ds.load_sonar, "M", False),
    "ionosphere": ("ionosphere.csv.gz", ds.load_ionosphere, "good", False),
    "pima": ("pimaindiansdiabetes.csv.gz", ds.load_pima, "pos", False),
    "breast_cancer": ("breastcancer.csv.gz", lambda: ds.load_breast_cancer(missing="keep"),
                      "malignant", True),
    "boston": ("bostonhousing.csv.gz", ds.load_boston, None, False),
}


def _raw(filename):
    """Header and rows of the CSV, split by hand (independent of the loader's csv reader)."""
    lines = gzip.decompress((DATA / filename).read_bytes()).decode("utf-8").splitlines()
    lines = [ln for ln in lines if ln.strip()]
    return lines[0].split(","), [ln.split(",") for ln in lines[1:]]


@pytest.mark.parametrize("name", sorted(SETS))
def test_shapes_values_and_labels_match_the_csv(name):
    filename, loader, positive, has_id = SETS[name]
    header, rows = _raw(filename)
    X, y = loader()
    n_features = len(header) - 1 - int(has_id)
    assert X.shape == (len(rows), n_features)
    assert X.dtype == np.float64 and y.shape == (len(rows),)
    start = 1 if has_id else 0
    ref = np.array([[float(v) if v not in ("", "NA") else np.nan for v in r[start:-1]] for r in rows])
    np.testing.assert_array_equal(X, ref)
    if positive is None:
        assert y.dtype == np.float64
        np.testing.assert_array_equal(y, [float(r[-1]) for r in rows])
    else:
        assert y.dtype.kind == "i" and set(np.unique(y)) == {0, 1}
        np.testing.assert_array_equal(y, [int(r[-1] == positive) for r in rows])
    assert ds.UCI_DATASETS[name][2] == ("regression" if positive is None else "classification")


def test_known_sizes_of_the_classic_sets():
    """The sizes every paper quotes (UCI descriptions), independent of the files."""
    assert ds.load_sonar()[0].shape == (208, 60)
    assert ds.load_ionosphere()[0].shape == (351, 34)
    assert ds.load_pima()[0].shape == (768, 8)
    assert ds.load_breast_cancer(missing="keep")[0].shape == (699, 9)
    assert ds.load_boston()[0].shape == (506, 13)
    assert np.bincount(ds.load_sonar()[1]).tolist() == [97, 111]
    assert np.bincount(ds.load_breast_cancer(missing="keep")[1]).tolist() == [458, 241]


def test_packaged_copies_are_the_original_files():
    names = [SETS[name][0] for name in sorted(SETS)]
    found = [f for f in names if ORIGINALS is not None and (ORIGINALS / f).is_file()]
    if not found:
        pytest.skip("the original UCI files are not in $KERNELNB_DATA")
    for filename in found:
        assert (DATA / filename).read_bytes() == (ORIGINALS / filename).read_bytes(), filename


def test_breast_cancer_missing_values():
    header, rows = _raw("breastcancer.csv.gz")
    holes = np.array([[v == "" for v in r[1:-1]] for r in rows])
    assert holes.sum() == 16 and holes.any(axis=0).sum() == 1
    col = int(np.flatnonzero(holes.any(axis=0))[0])
    assert header[1 + col] == "Bare.nuclei"

    Xk, yk = ds.load_breast_cancer(missing="keep")
    np.testing.assert_array_equal(np.isnan(Xk), holes)

    Xd, yd = ds.load_breast_cancer()
    assert Xd.shape == (699 - 16, 9) and not np.isnan(Xd).any()
    complete = ~holes.any(axis=1)
    np.testing.assert_array_equal(Xd, Xk[complete])
    np.testing.assert_array_equal(yd, yk[complete])
    np.testing.assert_array_equal(ds.load_breast_cancer(missing="drop")[0], Xd)

    Xm, ym = ds.load_breast_cancer(missing="median")
    assert Xm.shape == (699, 9) and not np.isnan(Xm).any()
    np.testing.assert_array_equal(ym, yk)
    np.testing.assert_array_equal(Xm[~holes], Xk[~holes])
    present = sorted(float(r[1 + col]) for r, h in zip(rows, holes) if not h[col])
    k = len(present)
    median = (present[(k - 1) // 2] + present[k // 2]) / 2
    np.testing.assert_array_equal(Xm[holes], median)

    with pytest.raises(ValueError, match=r"The 'missing' parameter of load_breast_cancer must be a str among .*'median'.* Got 'mean' instead"):
        ds.load_breast_cancer(missing="mean")


def test_feature_names_and_registry():
    X, y, names = ds.load_sonar(return_feature_names=True)
    assert names == [f"V{i}" for i in range(1, 61)]
    _, _, names = ds.load_breast_cancer(return_feature_names=True)
    assert len(names) == 9 and names[0] == "Cl.thickness" and "Id" not in names
    _, _, names = ds.load_boston(return_feature_names=True)
    assert names[:3] == ["crim", "zn", "indus"] and "medv" not in names
    for name, (loader, description, task) in ds.UCI_DATASETS.items():
        assert callable(loader) and description and task in ("classification", "regression")
        Xa, ya = ds.load_dataset(name)
        Xb, yb = loader()
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(ya, yb)


def test_load_dataset_aliases_kwargs_and_errors():
    assert ds.load_dataset("Breast-Cancer")[0].shape == (683, 9)
    assert ds.load_dataset("breastcancer", missing="keep")[0].shape == (699, 9)
    assert ds.load_dataset("pimaindiansdiabetes")[0].shape == (768, 8)
    assert ds.load_dataset("bostonhousing")[0].shape == (506, 13)
    with pytest.raises(ValueError, match=r"name must be one of \['boston', .*'sonar'\], got 'iris'"):
        ds.load_dataset("iris")
    with pytest.raises(TypeError, match="name must be a string, got 3"):
        ds.load_dataset(3)


def test_attribution_names_every_shipped_file_and_its_authors():
    text = ds.attribution()
    assert text == (DATA / "ATTRIBUTION.txt").read_text(encoding="utf-8")
    for filename, *_ in SETS.values():
        assert filename in text
    for author in ("Gorman", "Sigillito", "Smith", "Wolberg", "Harrison", "Dua", "Xiao"):
        assert author in text
    shipped = sorted(p.name for p in DATA.glob("*.csv.gz"))
    assert shipped == sorted(v[0] for v in SETS.values())
