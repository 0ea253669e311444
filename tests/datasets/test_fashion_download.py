"""Fashion-MNIST download: https, the SHA-256 of each file's content checked, a mismatching file
deleted with a clear error. No network: urlopen is replaced by local bytes."""
import gzip
import hashlib
import io
import struct
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import kernelnb.datasets as ds
from kernelnb.datasets import fashion_mnist as fm
from tests._data import NO_FASHION_MNIST, fashion_mnist_folder

# the real files where the loader finds them (looked up before the `offline` fixture hides them)
REAL = fashion_mnist_folder()
TEST_STEMS = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def _idx(arr):
    arr = np.asarray(arr, dtype=np.uint8)
    return struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape) \
        + arr.tobytes()


# every test: no KERNELNB_DATA, an empty cache, no network (tests/datasets/conftest.py)
pytestmark = pytest.mark.usefixtures("offline")


def _serve(monkeypatch, blobs):
    """urlopen answering FASHION_MNIST_URL + stem + '.gz' with ``blobs[stem]``; returns the log."""
    calls = []

    def fake_urlopen(url, timeout=None):
        calls.append(url)
        return io.BytesIO(blobs[url[len(fm.FASHION_MNIST_URL):-len(".gz")]])

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    return calls


def test_the_url_is_https_and_every_file_has_a_sha256():
    assert fm.FASHION_MNIST_URL.startswith("https://")
    stems = {s for pair in fm._FILES.values() for s in pair}
    assert set(fm.FASHION_MNIST_SHA256) == stems
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in fm.FASHION_MNIST_SHA256.values())


def test_a_mismatching_checksum_deletes_the_file_and_says_so(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    blobs = {TEST_STEMS[0]: gzip.compress(_idx(rng.integers(0, 256, (5, 28, 28)))),
             TEST_STEMS[1]: gzip.compress(_idx(np.arange(5)))}
    calls = _serve(monkeypatch, blobs)
    with pytest.raises(fm.ChecksumError, match=r"SHA-256 .* expected "
                                               + fm.FASHION_MNIST_SHA256[TEST_STEMS[0]]) as info:
        ds.load_fashion_mnist("test", data_home=tmp_path / "dl", download=True)
    assert isinstance(info.value, ValueError)
    assert "deleted" in str(info.value) and calls[0].startswith("https://")
    assert list((tmp_path / "dl" / "fashion-mnist").iterdir()) == []     # nothing half-kept


def test_matching_checksums_keep_the_files(tmp_path, monkeypatch):
    """Tiny files standing for the official ones: their checksums in the table, download passes;
    the check is of the content, so a file gzipped differently passes as well."""
    images = np.random.default_rng(1).integers(0, 256, (6, 28, 28))
    labels = np.arange(6) % 10
    raw = {TEST_STEMS[0]: _idx(images), TEST_STEMS[1]: _idx(labels)}
    for stem, blob in raw.items():
        monkeypatch.setitem(fm.FASHION_MNIST_SHA256, stem, hashlib.sha256(blob).hexdigest())
    blobs = {TEST_STEMS[0]: gzip.compress(raw[TEST_STEMS[0]], compresslevel=1, mtime=0),
             TEST_STEMS[1]: gzip.compress(raw[TEST_STEMS[1]], compresslevel=9, mtime=12345)}
    calls = _serve(monkeypatch, blobs)
    X, y = ds.load_fashion_mnist("test", data_home=tmp_path / "dl", download=True)
    np.testing.assert_array_equal(y, labels)
    assert len(calls) == 2
    kept = sorted(p.name for p in (tmp_path / "dl" / "fashion-mnist").iterdir())
    assert kept == sorted(s + ".gz" for s in TEST_STEMS)


def test_one_changed_byte_fails(tmp_path, monkeypatch):
    images = np.zeros((4, 28, 28), dtype=np.uint8)
    raw = _idx(images)
    monkeypatch.setitem(fm.FASHION_MNIST_SHA256, TEST_STEMS[0], hashlib.sha256(raw).hexdigest())
    changed = bytearray(raw)
    changed[-1] = 1                                   # still a valid idx file, one pixel differs
    _serve(monkeypatch, {TEST_STEMS[0]: gzip.compress(bytes(changed)),
                         TEST_STEMS[1]: gzip.compress(_idx(np.arange(4)))})
    with pytest.raises(fm.ChecksumError):
        ds.load_fashion_mnist("test", data_home=tmp_path / "dl", download=True)
    assert not any((tmp_path / "dl" / "fashion-mnist").iterdir())


def _as_served(path):
    """A real file's bytes as the download serves them: gzipped."""
    data = Path(path).read_bytes()
    return data if data[:2] == b"\x1f\x8b" else gzip.compress(data)


@pytest.mark.skipif(REAL is None, reason=NO_FASHION_MNIST)
@pytest.mark.parametrize("kind", ["test", "train"])
def test_the_official_files_pass_the_check(tmp_path, monkeypatch, kind):
    """The real files, served as the download: the table's checksums are theirs."""
    blobs = {stem: _as_served(fm._find(str(REAL), stem)) for stem in fm._FILES[kind]}
    for stem in blobs:
        digest = hashlib.sha256(gzip.decompress(blobs[stem])).hexdigest()
        assert digest == fm.FASHION_MNIST_SHA256[stem]
    _serve(monkeypatch, blobs)
    X, y = ds.load_fashion_mnist(kind, data_home=tmp_path / "dl", download=True)
    assert np.bincount(y).tolist() == [len(y) // 10] * 10
