"""Fashion-MNIST loader: the idx reader on files written here, folder lookup, subsets, errors, real data."""
import gzip
import hashlib
import io
import struct
import urllib.request

import numpy as np
import pytest

import kernelnb.datasets as ds
from kernelnb.datasets import fashion_mnist as fm
from tests._data import NO_FASHION_MNIST, fashion_mnist_folder

# the real files where the loader finds them (looked up before the tests' `offline` fixture)
REAL = fashion_mnist_folder()
STEMS = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def idx_bytes(arr, code):
    """The idx encoding of ``arr``, written from the format description (not with kernelnb)."""
    arr = np.asarray(arr)
    big = arr.astype(arr.dtype.newbyteorder(">"))
    return struct.pack(">BBBB", 0, 0, code, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape) + big.tobytes()


def write_set(folder, kind, images, labels, gz=True):
    folder.mkdir(parents=True, exist_ok=True)
    for stem, blob in zip(STEMS[kind], (idx_bytes(images, 0x08), idx_bytes(labels, 0x08))):
        if gz:
            (folder / (stem + ".gz")).write_bytes(gzip.compress(blob))
        else:
            (folder / stem).write_bytes(blob)


def tiny(n=60, seed=0):
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = (np.arange(n) % 10).astype(np.uint8)
    rng.shuffle(labels)
    return images, labels


# every test: no KERNELNB_DATA, an empty cache, no network (tests/datasets/conftest.py)
pytestmark = pytest.mark.usefixtures("offline")


@pytest.mark.parametrize("gz", [True, False])
def test_reads_tiny_idx_files_from_data_home(tmp_path, gz):
    images, labels = tiny()
    write_set(tmp_path / "d", "train", images, labels, gz=gz)
    X, y = ds.load_fashion_mnist("train", data_home=tmp_path / "d")
    assert X.shape == (60, 784) and X.dtype == np.float32
    np.testing.assert_array_equal(X, images.reshape(60, 784).astype(np.float32) / np.float32(255))
    assert X.min() >= 0 and X.max() <= 1
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, labels)
    with pytest.raises(FileNotFoundError):
        ds.load_fashion_mnist("test", data_home=tmp_path / "d")
    write_set(tmp_path / "d", "test", images[:7], labels[:7], gz=gz)
    assert ds.load_fashion_mnist("test", data_home=str(tmp_path / "d"))[0].shape == (7, 784)


def test_folder_lookup_order(tmp_path, monkeypatch):
    a, la = tiny(20, seed=1)
    b, lb = tiny(30, seed=2)
    c, lc = tiny(40, seed=3)
    write_set(tmp_path / "env" / "fashion-mnist", "train", a, la)        # in the subfolder
    write_set(tmp_path / "home", "train", b, lb)
    write_set(tmp_path / "cache" / "kernelnb", "train", c, lc)            # the cache folder
    assert len(ds.load_fashion_mnist()[1]) == 40                         # only the cache
    monkeypatch.setenv("KERNELNB_DATA", str(tmp_path / "env"))
    assert len(ds.load_fashion_mnist()[1]) == 20                         # KERNELNB_DATA first
    assert len(ds.load_fashion_mnist(data_home=tmp_path / "home")[1]) == 30  # data_home wins
    paths = ds.fashion_mnist_paths("train")
    assert paths[0].endswith("train-images-idx3-ubyte.gz") and "fashion-mnist" in paths[0]


def test_missing_files_error_names_the_argument_and_the_variable(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError) as err:
        ds.load_fashion_mnist()
    msg = str(err.value)
    assert "data_home" in msg and "KERNELNB_DATA" in msg and "train-images-idx3-ubyte" in msg
    assert "KERNELNB_DATA is not set" in msg
    with pytest.raises(FileNotFoundError, match=r"data_home='.*nowhere'.*KERNELNB_DATA"):
        ds.load_fashion_mnist("test", data_home=tmp_path / "nowhere")
    monkeypatch.setenv("KERNELNB_DATA", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match=r"KERNELNB_DATA='.*empty'"):
        ds.load_fashion_mnist()


def test_download_only_when_asked(tmp_path, monkeypatch):
    images, labels = tiny(15)
    served = {}
    for stem, blob in zip(STEMS["test"], (idx_bytes(images, 0x08), idx_bytes(labels, 0x08))):
        served[fm.FASHION_MNIST_URL + stem + ".gz"] = gzip.compress(blob)
    calls = []

    def fake_urlopen(url, timeout=None):
        calls.append(url)
        return io.BytesIO(served[url])

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    # the served files are tiny stand-ins: their own checksums take the official ones' place
    monkeypatch.setitem(fm.FASHION_MNIST_SHA256, STEMS["test"][0], hashlib.sha256(idx_bytes(images, 0x08)).hexdigest())
    monkeypatch.setitem(fm.FASHION_MNIST_SHA256, STEMS["test"][1], hashlib.sha256(idx_bytes(labels, 0x08)).hexdigest())
    with pytest.raises(FileNotFoundError):
        ds.load_fashion_mnist("test", data_home=tmp_path / "dl")
    assert calls == []
    X, y = ds.load_fashion_mnist("test", data_home=tmp_path / "dl", download=True)
    assert sorted(calls) == sorted(served)
    np.testing.assert_array_equal(y, labels)
    assert (tmp_path / "dl" / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").is_file()
    ds.load_fashion_mnist("test", data_home=tmp_path / "dl", download=True)
    assert len(calls) == 2, "files already there are not fetched again"


def test_download_refuses_a_file_that_is_not_idx(tmp_path, monkeypatch):
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout=None: io.BytesIO(b"<html>moved</html>"))
    with pytest.raises(ValueError, match="not an idx file"):
        ds.load_fashion_mnist("train", data_home=tmp_path / "dl", download=True)
    assert list((tmp_path / "dl" / "fashion-mnist").iterdir()) == []


@pytest.mark.parametrize("dtype,code", [(np.uint8, 0x08), (np.int8, 0x09), (np.int16, 0x0B),
                                        (np.int32, 0x0C), (np.float32, 0x0D), (np.float64, 0x0E)])
def test_read_idx_types_and_byte_order(tmp_path, dtype, code):
    arr = (np.arange(24).reshape(2, 3, 4) * (3 if dtype != np.uint8 else 1) - (5 if dtype not in (np.uint8,) else 0))
    arr = arr.astype(dtype)
    p = tmp_path / "a.idx"
    p.write_bytes(idx_bytes(arr, code))
    out = ds.read_idx(p)
    assert out.shape == (2, 3, 4) and out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, arr)
    p.write_bytes(gzip.compress(idx_bytes(arr, code)))
    np.testing.assert_array_equal(ds.read_idx(p), arr)


def test_read_idx_rejects_non_idx_files(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"P5\n28 28\n255\n" + bytes(100))
    with pytest.raises(ValueError, match=r"not an idx file: magic number 0x50350a32"):
        ds.read_idx(bad)
    bad.write_bytes(struct.pack(">BBBB", 0, 0, 0x07, 1) + struct.pack(">I", 1) + b"x")
    with pytest.raises(ValueError, match="not an idx file"):
        ds.read_idx(bad)
    bad.write_bytes(b"\x00\x00")
    with pytest.raises(ValueError, match="only 2 bytes"):
        ds.read_idx(bad)
    bad.write_bytes(idx_bytes(np.zeros((3, 4), np.uint8), 0x08)[:-1])
    with pytest.raises(ValueError, match=r"announces shape \(3, 4\) \(12 bytes of data\) but the file holds 11"):
        ds.read_idx(bad)
    bad.write_bytes(gzip.compress(b"\x00\x00\x08\x01\x00\x00\x00\x05abcde")[:-6])
    with pytest.raises(ValueError, match="not a readable idx file"):
        ds.read_idx(bad)


def test_loader_rejects_inconsistent_files(tmp_path):
    images, labels = tiny(10)
    write_set(tmp_path / "d", "train", images, labels[:9])
    with pytest.raises(ValueError, match="holds 10 images but .* 9 labels"):
        ds.load_fashion_mnist(data_home=tmp_path / "d")
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "train-images-idx3-ubyte").write_bytes(b"not an idx file at all")
    (tmp_path / "e" / "train-labels-idx1-ubyte").write_bytes(idx_bytes(labels, 0x08))
    with pytest.raises(ValueError, match="not an idx file"):
        ds.load_fashion_mnist(data_home=tmp_path / "e")


def test_subsets(tmp_path):
    images, labels = tiny(200, seed=4)
    write_set(tmp_path / "d", "train", images, labels)
    home = tmp_path / "d"
    X, y = ds.load_fashion_mnist(data_home=home, n_samples=25)
    np.testing.assert_array_equal(y, labels[:25])                           # first n, file order
    np.testing.assert_array_equal(X, images[:25].reshape(25, -1) / np.float32(255))

    Xs, ys = ds.load_fashion_mnist(data_home=home, n_samples=50, random_state=0)
    assert np.bincount(ys, minlength=10).tolist() == [5] * 10               # stratified
    Xs2, ys2 = ds.load_fashion_mnist(data_home=home, n_samples=50, random_state=0)
    np.testing.assert_array_equal(Xs, Xs2)
    Xs3, _ = ds.load_fashion_mnist(data_home=home, n_samples=50, random_state=1)
    assert not np.array_equal(Xs, Xs3)
    # the rows are real rows of the file, in file order
    flat = images.reshape(200, -1) / np.float32(255)
    rows = [int(np.flatnonzero((flat == r).all(axis=1))[0]) for r in Xs]
    assert rows == sorted(rows)
    np.testing.assert_array_equal(ys, labels[rows])

    Xc, yc = ds.load_fashion_mnist(data_home=home, classes=[6, 0])
    assert set(yc) == {0, 6} and len(yc) == np.isin(labels, [0, 6]).sum()
    Xc, yc = ds.load_fashion_mnist(data_home=home, classes=(0, 6), n_samples=11, random_state=2)
    assert len(yc) == 11 and sorted(np.bincount(yc)[[0, 6]]) == [5, 6]
    Xc, yc = ds.load_fashion_mnist(data_home=home, classes=(0, 6), n_samples=7)
    np.testing.assert_array_equal(yc, labels[np.isin(labels, [0, 6])][:7])


def test_argument_errors(tmp_path):
    images, labels = tiny(20)
    write_set(tmp_path / "d", "train", images, labels)
    home = tmp_path / "d"
    with pytest.raises(ValueError, match="kind must be 'train' or 'test', got 'valid'"):
        ds.load_fashion_mnist("valid", data_home=home)
    with pytest.raises(ValueError, match="n_samples=21 is larger than the 20 images available"):
        ds.load_fashion_mnist(data_home=home, n_samples=21)
    with pytest.raises(ValueError, match=r"'n_samples' parameter of load_fashion_mnist must be an int in the range \[1, inf\)\. Got 0"):
        ds.load_fashion_mnist(data_home=home, n_samples=0)
    with pytest.raises(TypeError, match=r"'n_samples' parameter of load_fashion_mnist must be an int"):
        ds.load_fashion_mnist(data_home=home, n_samples=2.0)
    with pytest.raises(ValueError, match=r"classes must be a non-empty sequence of integers in 0..9, got \[10\]"):
        ds.load_fashion_mnist(data_home=home, classes=[10])
    with pytest.raises(ValueError, match="classes must be"):
        ds.load_fashion_mnist(data_home=home, classes=[])
    with pytest.raises(TypeError, match="classes must be a sequence"):
        ds.load_fashion_mnist(data_home=home, classes=3)
    with pytest.raises(ValueError, match="'random_state' parameter of load_fashion_mnist must be"):
        ds.load_fashion_mnist(data_home=home, n_samples=3, random_state="x")


def test_class_names():
    assert len(ds.FASHION_MNIST_CLASSES) == 10
    assert ds.FASHION_MNIST_CLASSES[0] == "T-shirt/top" and ds.FASHION_MNIST_CLASSES[6] == "Shirt"


@pytest.mark.skipif(REAL is None, reason=NO_FASHION_MNIST)
def test_real_fashion_mnist_files():
    X, y = ds.load_fashion_mnist("train", data_home=REAL)
    assert X.shape == (60000, 784) and X.dtype == np.float32
    assert np.bincount(y).tolist() == [6000] * 10          # the published class balance
    assert X.min() == 0 and X.max() == 1
    Xt, yt = ds.load_fashion_mnist("test", data_home=REAL)
    assert Xt.shape == (10000, 784) and np.bincount(yt).tolist() == [1000] * 10
    Xs, ys = ds.load_fashion_mnist("test", data_home=REAL, n_samples=1000, classes=(0, 6),
                                   random_state=0)
    assert np.bincount(ys, minlength=7)[[0, 6]].tolist() == [500, 500]
    # a subset is made of rows of the full set
    full = Xt[np.isin(yt, [0, 6])]
    assert (full == Xs[0]).all(axis=1).any()
