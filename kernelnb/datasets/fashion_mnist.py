"""Fashion-MNIST from its original idx files, found on disk (downloaded only when asked).

Where the files are looked for, in this order:

1. ``data_home`` when given (and only there);
2. otherwise the folder named by the environment variable ``KERNELNB_DATA``, then the cache folder
   ``$XDG_CACHE_HOME/kernelnb`` (``~/.cache/kernelnb`` by default).

Each folder may hold the four files directly or in a ``fashion-mnist/`` subfolder, gzipped
(``train-images-idx3-ubyte.gz``, as distributed) or not.

A download (``download=True``) goes over https and is checked against the SHA-256 of each file's
idx content (:data:`FASHION_MNIST_SHA256`; the content, not the gzip wrapper, so that a copy
compressed again still checks); a file that does not match is deleted and the download fails.
"""
import gzip
import hashlib
import os
import shutil
import struct
import tempfile
import urllib.request

import numpy as np

from ._checks import check_int, check_rng
from ._stratify import stratified_subset

__all__ = [
    "load_fashion_mnist",
    "read_idx",
    "fashion_mnist_paths",
    "FASHION_MNIST_CLASSES",
    "FASHION_MNIST_URL",
    "FASHION_MNIST_SHA256",
    "ChecksumError",
]

#: Class names, index = label.
FASHION_MNIST_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                         "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")

#: The download location: the data folder of Zalando Research's repository, over https (the
#: S3 website of their README serves plain http only).
FASHION_MNIST_URL = "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/"

#: SHA-256 of each file's idx content (after gunzip).  Computed from copies whose content has the
#: MD5 that torchvision publishes for the uncompressed official files
#: (f4a8712d..., 9018921c..., 8181f547..., 15d48437...).
FASHION_MNIST_SHA256 = {
    "train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "t10k-images-idx3-ubyte": "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "t10k-labels-idx1-ubyte": "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}


class ChecksumError(ValueError):
    """A downloaded file whose content does not have the expected SHA-256."""

_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}

# idx type codes: numpy dtype (big-endian where it matters).
_IDX_TYPES = {0x08: np.dtype("u1"), 0x09: np.dtype("i1"), 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx(path):
    """Read one idx file (the format of MNIST and Fashion-MNIST), gzipped or not.

    The header is two zero bytes, a type code (0x08 = unsigned byte, ..., 0x0E = float64), the
    number of dimensions, then each dimension as a big-endian 32-bit integer; the data follow in
    C order.

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip compression is recognised from the content, not the name.

    Returns
    -------
    ndarray
        Of the stored type (native byte order) and shape.

    Raises
    ------
    ValueError
        When the file is not an idx file (bad magic number, unknown type code) or its size does not
        match its header.
    """
    path = os.fspath(path)
    with open(path, "rb") as fh:
        head = fh.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as fh:
            data = fh.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path!r} is not a readable idx file: {e}") from None
    if len(data) < 4:
        raise ValueError(f"{path!r} is not an idx file: only {len(data)} bytes")
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in _IDX_TYPES or ndim == 0:
        raise ValueError(f"{path!r} is not an idx file: magic number 0x{data[:4].hex()} (expected "
                         f"0x0000 then a type code in {[hex(c) for c in _IDX_TYPES]} and a dimension count)")
    if len(data) < 4 + 4 * ndim:
        raise ValueError(f"{path!r} is not an idx file: header truncated")
    shape = struct.unpack(f">{ndim}I", data[4:4 + 4 * ndim])
    dtype = _IDX_TYPES[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    payload = len(data) - 4 - 4 * ndim
    if payload != expected:
        raise ValueError(f"{path!r}: the header announces shape {shape} ({expected} bytes of data) "
                         f"but the file holds {payload} bytes")
    arr = np.frombuffer(data, dtype=dtype, offset=4 + 4 * ndim).reshape(shape)
    return arr.astype(dtype.newbyteorder("="), copy=False) if dtype.byteorder == ">" else arr


def _cache_home():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kernelnb")


def _search_dirs(data_home):
    if data_home is not None:
        roots = [os.fspath(data_home)]
    else:
        roots = [r for r in (os.environ.get("KERNELNB_DATA"), _cache_home()) if r]
    dirs = []
    for r in roots:
        r = os.path.expanduser(r)
        dirs += [r, os.path.join(r, "fashion-mnist")]
    return dirs


def _find(folder, stem):
    for name in (stem + ".gz", stem):
        p = os.path.join(folder, name)
        if os.path.isfile(p):
            return p
    return None


def fashion_mnist_paths(kind="train", *, data_home=None):
    """Find the idx files of Fashion-MNIST.

    Parameters
    ----------
    kind : {'train', 'test'}, default='train'
        The training or the test files.
    data_home : str or os.PathLike, default=None
        Folder searched first (directly or in ``fashion-mnist/``); then the folder of
        ``$KERNELNB_DATA``, then ``~/.cache/kernelnb``.

    Returns
    -------
    tuple of str or None
        ``(images_path, labels_path)`` of the first folder holding both, or None.
    """
    if kind not in _FILES:
        raise ValueError(f"kind must be 'train' or 'test', got {kind!r}")
    for d in _search_dirs(data_home):
        found = [_find(d, stem) for stem in _FILES[kind]]
        if all(found):
            return tuple(found)
    return None


def _content_sha256(path):
    """SHA-256 (hex) of an idx file's content: of the gunzipped bytes when the file is gzipped."""
    path = os.fspath(path)
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    digest = hashlib.sha256()
    with (gzip.open if gz else open)(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(kind, data_home):
    root = os.fspath(data_home) if data_home is not None else (
        os.environ.get("KERNELNB_DATA") or _cache_home())
    target = os.path.join(os.path.expanduser(root), "fashion-mnist")
    os.makedirs(target, exist_ok=True)
    for stem in _FILES[kind]:
        if _find(target, stem):
            continue
        url = FASHION_MNIST_URL + stem + ".gz"
        fd, tmp = tempfile.mkstemp(dir=target, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=120) as resp:
                shutil.copyfileobj(resp, out)
            read_idx(tmp)  # refuse to keep anything that is not an idx file
            got, expected = _content_sha256(tmp), FASHION_MNIST_SHA256[stem]
            if got != expected:
                raise ChecksumError(
                    f"Fashion-MNIST download {url}: the SHA-256 of its content is {got}, expected "
                    f"{expected}; the file was deleted. The server sent another file or a damaged "
                    f"one: try again, or put the official files in {target!r} yourself.")
            os.replace(tmp, os.path.join(target, stem + ".gz"))
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise


_CACHE = {}


def _read_cached(path):
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        if len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        arr = read_idx(path)
        arr.setflags(write=False)
        _CACHE[key] = arr
    return _CACHE[key]


def load_fashion_mnist(kind="train", *, data_home=None, n_samples=None, classes=None,
                       random_state=None, download=False):
    """Load Fashion-MNIST (Xiao, Rasul and Vollgraf, 2017) from its idx files.

    Parameters
    ----------
    kind : {'train', 'test'}, default='train'
        The 60000 training or the 10000 test images.
    data_home : str or os.PathLike, default=None
        Folder holding the files (directly or in ``fashion-mnist/``). When None, the folder of the
        environment variable ``KERNELNB_DATA`` is searched, then ``~/.cache/kernelnb``.
    n_samples : int, default=None
        Keep this many images (after the ``classes`` filter). With ``random_state=None`` the first
        ``n_samples`` in file order; otherwise a stratified random subset (class proportions kept
        up to rounding), reproducible under ``random_state``, returned in file order.
    classes : sequence of int, default=None
        Keep only these labels (0-9, see :data:`FASHION_MNIST_CLASSES`); labels are not renumbered,
        e.g. ``classes=(0, 6)`` (T-shirt vs shirt) returns labels 0 and 6.
    random_state : int, RandomState instance or None, default=None
        See ``n_samples``.
    download : bool, default=False
        When the files are missing, fetch them from :data:`FASHION_MNIST_URL` (https) into the
        ``fashion-mnist/`` subfolder of ``data_home`` (else of ``KERNELNB_DATA``, else of the cache),
        each checked against :data:`FASHION_MNIST_SHA256`. Nothing is ever downloaded otherwise.

    Returns
    -------
    X : ndarray of shape (n, 784), float32
        Pixels / 255, in [0, 1], rows of the 28 x 28 images.
    y : ndarray of shape (n,), int64
        Labels 0-9.

    Raises
    ------
    FileNotFoundError
        When the files are not found; the message names ``data_home`` and ``KERNELNB_DATA``.
    ValueError
        Bad ``kind``, ``n_samples`` or ``classes``, or a file that is not an idx file or whose
        images and labels disagree.
    ChecksumError
        (a ValueError) A downloaded file whose content does not have the expected SHA-256; it is
        deleted.
    """
    if kind not in _FILES:
        raise ValueError(f"kind must be 'train' or 'test', got {kind!r}")
    if n_samples is not None:
        n_samples = check_int("n_samples", n_samples)
    rng = None if random_state is None else check_rng(random_state)
    if classes is not None:
        try:
            cls = np.unique(np.asarray(list(classes)))
        except TypeError:
            raise TypeError(f"classes must be a sequence of labels 0-9, got {classes!r}") from None
        if cls.size == 0 or cls.dtype.kind not in "iu" or cls.min() < 0 or cls.max() > 9:
            raise ValueError(f"classes must be a non-empty sequence of integers in 0..9, got {classes!r}")
    paths = fashion_mnist_paths(kind, data_home=data_home)
    if paths is None and download:
        _download(kind, data_home)
        paths = fashion_mnist_paths(kind, data_home=data_home)
    if paths is None:
        names = ", ".join(s + "[.gz]" for s in _FILES[kind])
        env = os.environ.get("KERNELNB_DATA")
        if data_home is not None:
            where = f"data_home={os.fspath(data_home)!r}"
        elif env:
            where = f"KERNELNB_DATA={env!r} or the cache {_cache_home()!r}"
        else:
            where = f"the cache {_cache_home()!r} (KERNELNB_DATA is not set)"
        raise FileNotFoundError(
            f"Fashion-MNIST {kind} files ({names}) not found in {where}. Pass the folder that holds "
            f"them as load_fashion_mnist(data_home=...) or set the environment variable "
            f"KERNELNB_DATA to it (the files may also sit in its 'fashion-mnist/' subfolder); "
            f"download=True fetches them from {FASHION_MNIST_URL}.")
    images, labels = (_read_cached(p) for p in paths)
    if images.ndim != 3 or images.dtype != np.uint8 or labels.ndim != 1:
        raise ValueError(f"{paths[0]!r} / {paths[1]!r}: expected uint8 images (n, rows, cols) and "
                         f"labels (n,), got {images.dtype} {images.shape} and {labels.shape}")
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{paths[0]!r} holds {images.shape[0]} images but {paths[1]!r} "
                         f"{labels.shape[0]} labels")
    idx = np.arange(labels.shape[0])
    if classes is not None:
        idx = idx[np.isin(labels, cls)]
    if n_samples is not None:
        if n_samples > idx.size:
            raise ValueError(f"n_samples={n_samples} is larger than the {idx.size} images available")
        if rng is None:
            idx = idx[:n_samples]
        else:
            idx = idx[stratified_subset(labels[idx], n_samples, rng)]
    X = images[idx].reshape(idx.size, -1).astype(np.float32)
    X /= np.float32(255.0)
    return X, labels[idx].astype(np.int64)
