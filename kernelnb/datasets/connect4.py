"""The UCI Connect-4 data set, rebuilt offline: every position and, from a cache file, its game value.

The UCI Connect-4 database (John Tromp, 1995) holds "all legal 8-ply positions in the game of
connect-4 in which neither player has won yet, and in which the next move is not forced", with the
game-theoretic outcome for the first player: 67,557 positions, 44,473 won, 16,635 lost, 6,449
drawn.  Collobert uses it in his PhD thesis ("Large Scale Machine Learning", Université Paris VI,
2004, ch. 7 and 8) with each of the 42 cells coded by three binary features (126 inputs), the
task "win" against the rest, and 50,000 / 7,500 / 10,000 shuffled training / validation / test
examples.

What is here:

* :func:`connect4_positions` enumerates the positions (numpy bitboards, well under a second).  The
  definition that gives exactly 67,557 positions, found by counting the candidates:

  - 8 stones (4 per player) dropped by legal play (gravity), the first player to move next;
  - nobody has four in a row, and no position on the way had one (the game would have ended);
  - neither player can complete four in a row with one playable stone, i.e. the first player has
    no winning move and does not have to block one ("the next move is not forced");
  - one position of each left-right mirror pair.

  Without the mirror reduction there are 134,934 such positions (180 of them symmetric); the plain
  8-ply positions without a finished game number 182,383 (155,241 without a first-player win
  in one, 155,602 without a second-player threat).  Of a mirror pair the UCI file keeps the one that
  a depth-first search trying the columns centre first (d, c, e, b, f, a, g) reaches first; so does
  :func:`connect4_positions`, which returns the positions in that order.  (The UCI file's order is
  close to it but not identical.)

* The game values need a Connect-4 solver, which is not a dependency of kernelnb: the stand-alone
  script ``scripts/build_connect4.py`` of the source tree labels the positions once with the
  ``bitbully`` package (AGPL-3.0; the values it computes are facts about the game, the solver is
  only a tool) and writes ``connect-4/connect-4.data.gz`` in the UCI text format
  (``b``/``x``/``o`` for the cells a1, a2, ..., a6, b1, ..., g6, then ``win``/``loss``/``draw``)
  into the data folder.  The original UCI file (``connect-4.data`` or ``connect-4.data.gz``) is
  read the same way.

* :func:`load_connect4` reads that file (``data_home``, else ``$KERNELNB_DATA``, else
  ``~/.cache/kernelnb``; subfolder ``connect-4/`` or the folder itself) and checks it: 67,557
  rows, the published class counts, and the SHA-256 of its sorted rows (:data:`CONNECT4_SHA256`,
  independent of the row order, so that the UCI file passes too).  :func:`connect4_splits` gives
  the thesis's split.
"""
import gzip
import hashlib
import os
import tempfile

import numpy as np

from .._validation import str_options, check_param
from ._checks import check_rng
from .fashion_mnist import _cache_home

__all__ = [
    "load_connect4",
    "connect4_splits",
    "connect4_positions",
    "encode_connect4",
    "save_connect4",
    "connect4_path",
    "CONNECT4_COUNTS",
    "CONNECT4_SIZES",
    "CONNECT4_SHA256",
    "CONNECT4_BUILD_COMMAND",
]

#: Published class counts of the UCI file (first player's game value).
CONNECT4_COUNTS = {"win": 44473, "loss": 16635, "draw": 6449}

#: Collobert's split (thesis, ch. 7): training, validation and test sizes after shuffling.
CONNECT4_SIZES = {"train": 50000, "valid": 7500, "test": 10000}

#: SHA-256 of the file's rows (``b,...,x,win``, no spaces) sorted and joined by newlines.
CONNECT4_SHA256 = "1c328e3749ee18091834ca784f39810cfe5f1e785c675b3a1cdd95a732507959"

#: How the cache file is made (said in the loader's error message).
CONNECT4_BUILD_COMMAND = "python scripts/build_connect4.py [--data-home DIR]"

_N = sum(CONNECT4_COUNTS.values())          # 67557
_SUBDIR = "connect-4"
_NAMES = ("connect-4.data.gz", "connect-4.data")
_CELL_CHARS = np.array([ord("b"), ord("x"), ord("o")], dtype=np.uint8)   # cell code 0, 1, 2
# one-hot position of each cell code (thesis: empty -> (1,0,0), player 2 -> (0,1,0), player 1 -> (0,0,1))
_ONEHOT_SLOT = np.array([0, 2, 1])

# -- enumeration (bitboards: bit 7*c + r is column c = a..g, row r = 1..6 from the bottom; the
#    seventh bit of each column stays empty, so that no line wraps from one column to the next) --

_U = np.uint64
_BOTTOM = _U(sum(1 << (7 * c) for c in range(7)))
_SEARCH_ORDER = (3, 2, 4, 1, 5, 0, 6)                   # the columns d, c, e, b, f, a, g
_RANK = np.argsort(_SEARCH_ORDER)                       # column -> its place in that order


def _has_four(b):
    """Whether each bitboard holds four in a row (vertical, horizontal, both diagonals)."""
    out = np.zeros(b.shape, dtype=bool)
    for s in (1, 7, 6, 8):
        pairs = b & (b >> _U(s))
        out |= (pairs & (pairs >> _U(2 * s))) != 0
    return out


def _heights(mask):
    """Stones in each column, shape (n, 7)."""
    cols = [(mask >> _U(7 * c)) & _U(0x3F) for c in range(7)]
    # a column's stones fill its low bits, so its height is the bit length of that field
    return np.stack([np.bitwise_count(col).astype(np.int64) for col in cols], axis=1)


def _drop_bits(mask, heights, c):
    """The bit of the next stone in column ``c`` (0 where the column is full) and where it fits."""
    ok = heights[:, c] < 6
    bit = np.zeros(mask.shape, dtype=_U)
    bit[ok] = _U(1) << (_U(7 * c) + heights[ok, c].astype(_U))
    return bit, ok


def _code(x, o):
    """One integer per position: per column a marker bit above the stones, the first player's
    stones below it (unique because each column holds at most 6 stones)."""
    return x + (x | o) + _BOTTOM


def _mirror(b):
    out = np.zeros_like(b)
    for c in range(7):
        out |= ((b >> _U(7 * c)) & _U(0x7F)) << _U(7 * (6 - c))
    return out


def _positions_bitboards():
    """Bitboards (first player, second player) and search keys of the 67,557 positions, in order."""
    x = np.zeros(1, dtype=_U)
    o = np.zeros(1, dtype=_U)
    key = np.zeros(1, dtype=np.int64)   # move sequence, base 7 digits = search ranks of the columns
    for ply in range(8):
        h = _heights(x | o)
        xs, os_, keys = [], [], []
        for c in range(7):
            bit, ok = _drop_bits(x | o, h, c)
            nx, no = (x | bit, o) if ply % 2 == 0 else (x, o | bit)
            alive = ok & ~_has_four(nx if ply % 2 == 0 else no)      # a finished game stops here
            xs.append(nx[alive])
            os_.append(no[alive])
            keys.append(key[alive] * 7 + _RANK[c])
        x, o, key = (np.concatenate(a) for a in (xs, os_, keys))
        code = _code(x, o)
        order = np.lexsort((key, code))         # by position, then by move sequence
        first = np.r_[True, code[order][1:] != code[order][:-1]]
        keep = order[first]                     # each position once, with its first move sequence
        x, o, key = x[keep], o[keep], key[keep]
    # the next move is not forced: no playable four for either player
    h = _heights(x | o)
    threat = np.zeros(x.shape, dtype=bool)
    for c in range(7):
        bit, ok = _drop_bits(x | o, h, c)
        threat |= ok & (_has_four(x | bit) | _has_four(o | bit))
    x, o, key = x[~threat], o[~threat], key[~threat]
    # one of each mirror pair: the one the search meets first
    code = _code(x, o)
    by_code = np.argsort(code)
    mirror_at = by_code[np.searchsorted(code[by_code], _code(_mirror(x), _mirror(o)))]
    keep = key <= key[mirror_at]
    x, o, key = x[keep], o[keep], key[keep]
    order = np.argsort(key, kind="stable")
    return x[order], o[order], key[order]


def connect4_positions(*, return_moves=False):
    """The 67,557 positions of the UCI Connect-4 set, enumerated (no solver, no file).

    See the module docstring for the definition and the order.

    Parameters
    ----------
    return_moves : bool, default=False
        Also return, for each position, the 8 columns (0 = a, ..., 6 = g) of a legal game reaching it
        (the first one of the centre-first search), e.g. to set the position up in a solver.

    Returns
    -------
    cells : ndarray of shape (67557, 42)
        Cell codes (uint8) in the UCI order a1, ..., a6, b1, ..., g6 (column-major from the
        bottom-left corner): 0 empty, 1 first player (UCI ``x``), 2 second player (``o``).
    moves : ndarray of shape (67557, 8)
        The columns of each position's game (int8), only with ``return_moves=True``.
    """
    x, o, key = _positions_bitboards()
    cells = np.zeros((x.size, 42), dtype=np.uint8)
    for c in range(7):
        for r in range(6):
            bit = _U(1) << _U(7 * c + r)
            cells[(x & bit) != 0, 6 * c + r] = 1
            cells[(o & bit) != 0, 6 * c + r] = 2
    if not return_moves:
        return cells
    digits = (key[:, None] // 7 ** np.arange(7, -1, -1)) % 7
    return cells, np.asarray(_SEARCH_ORDER, dtype=np.int8)[digits]


# -- encoding --------------------------------------------------------------------------------------

def encode_connect4(cells, *, encoding="onehot", dtype=np.float64):
    """Code positions as learning inputs.

    Parameters
    ----------
    cells : array-like of shape (n, 42)
        Cell codes in the UCI order (0 empty, 1 first player, 2 second player).
    encoding : {'onehot', 'cells'}, default='onehot'
        ``'onehot'``: Collobert's 126 binary inputs, three per cell in the same order: empty ->
        (1, 0, 0), second player -> (0, 1, 0), first player -> (0, 0, 1); input ``3 * k + j``
        belongs to cell ``k``.  ``'cells'``: the 42 codes themselves.
    dtype : numpy dtype, default=numpy.float64
        Float type of the result.

    Returns
    -------
    ndarray of shape (n, 126) or (n, 42)
        The inputs.
    """
    encoding = check_param("encoding", encoding, [str_options({"onehot", "cells"})], "encode_connect4")
    cells = np.asarray(cells)
    if cells.ndim != 2 or cells.shape[1] != 42:
        raise ValueError(f"cells must have shape (n, 42), got {cells.shape}")
    if cells.size and (cells.min() < 0 or cells.max() > 2):
        raise ValueError("cells must hold the codes 0 (empty), 1 (first player) and 2 (second player)")
    cells = cells.astype(np.intp)
    if encoding == "cells":
        return cells.astype(dtype)
    out = np.empty((cells.shape[0], 126), dtype=dtype)
    for code, slot in enumerate(_ONEHOT_SLOT):
        out[:, slot::3] = cells == code
    return out


# -- the cache file --------------------------------------------------------------------------------

def _roots(data_home):
    if data_home is not None:
        return [os.path.expanduser(os.fspath(data_home))]
    return [os.path.expanduser(r) for r in (os.environ.get("KERNELNB_DATA"), _cache_home()) if r]


def connect4_path(data_home=None):
    """Find the Connect-4 file.

    Parameters
    ----------
    data_home : str or os.PathLike, default=None
        Folder searched first, as in :func:`load_connect4`.

    Returns
    -------
    str or None
        Path of the first Connect-4 file found, or None.
    """
    for root in _roots(data_home):
        for folder in (os.path.join(root, _SUBDIR), root):
            for name in _NAMES:
                p = os.path.join(folder, name)
                if os.path.isfile(p):
                    return p
    return None


def _rows_bytes(cells, outcome):
    chars = _CELL_CHARS[cells]
    body = np.full((cells.shape[0], 84), ord(","), dtype=np.uint8)
    body[:, 0::2] = chars
    return [bytes(row) + lab.encode() for row, lab in zip(body, outcome)]


def _digest(rows):
    return hashlib.sha256(b"\n".join(sorted(rows))).hexdigest()


def _parse(data, path):
    rows = [r.strip().replace(b" ", b"") for r in data.splitlines()]
    rows = [r for r in rows if r]
    bad = [i for i, r in enumerate(rows) if len(r) < 87 or r.count(b",") != 42]
    if bad:
        raise ValueError(f"{path!r} is not a Connect-4 file in the UCI format: row {bad[0] + 1} is "
                         f"{rows[bad[0]][:100]!r}")
    body = np.frombuffer(b"".join(r[:84] for r in rows), dtype=np.uint8).reshape(len(rows), 84)
    letters = body[:, 0::2]
    cells = np.full(letters.shape, 255, dtype=np.uint8)
    for code, ch in enumerate(_CELL_CHARS):
        cells[letters == ch] = code
    outcome = np.array([r[84:].decode("ascii", "replace") for r in rows])
    if (cells == 255).any() or not np.isin(outcome, list(CONNECT4_COUNTS)).all():
        raise ValueError(f"{path!r} is not a Connect-4 file in the UCI format: cells must be b/x/o "
                         f"and outcomes win/loss/draw")
    return cells, outcome, rows


def _check(cells, outcome, rows, where):
    counts = {k: int((outcome == k).sum()) for k in CONNECT4_COUNTS}
    if cells.shape[0] != _N or counts != CONNECT4_COUNTS:
        raise ValueError(f"{where}: {cells.shape[0]} positions with outcomes {counts}; the Connect-4 "
                         f"set has {_N:,} with {CONNECT4_COUNTS}. Rebuild it with "
                         f"{CONNECT4_BUILD_COMMAND}.")
    got = _digest(rows)
    if got != CONNECT4_SHA256:
        raise ValueError(f"{where}: the SHA-256 of its sorted rows is {got}, expected "
                         f"{CONNECT4_SHA256}: the positions or their outcomes differ from the UCI "
                         f"set. Rebuild it with {CONNECT4_BUILD_COMMAND}.")


def save_connect4(cells, outcome, data_home=None):
    """Check and write the labelled positions to ``<data folder>/connect-4/connect-4.data.gz``.

    Used by the build script.  The file is written only when it passes the checks of
    :func:`load_connect4`, atomically (a temporary file renamed).

    Parameters
    ----------
    cells : ndarray of shape (67557, 42)
        The positions, as returned by :func:`connect4_positions`.
    outcome : array-like of str of shape (67557,)
        Their game values, ``'win'``, ``'loss'`` or ``'draw'``.
    data_home : str or os.PathLike, default=None
        The data folder; None: ``$KERNELNB_DATA``, else ``~/.cache/kernelnb``.

    Returns
    -------
    str
        The path of the file written.
    """
    cells = np.asarray(cells, dtype=np.uint8)
    outcome = np.asarray(outcome).astype(str)
    if cells.ndim != 2 or cells.shape[1] != 42 or outcome.shape != (cells.shape[0],):
        raise ValueError(f"cells must be (n, 42) and outcome (n,), got {cells.shape} and {outcome.shape}")
    rows = _rows_bytes(cells, outcome)
    _check(cells, outcome, rows, "the positions to save")
    folder = os.path.join(_roots(data_home)[0], _SUBDIR)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, _NAMES[0])
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write(b"\n".join(rows) + b"\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp makes it private; a data file is not
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return target


_CACHE = {}


def _read(path):
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        with open(path, "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"
        with (gzip.open if gz else open)(path, "rb") as fh:
            data = fh.read()
        cells, outcome, rows = _parse(data, path)
        _check(cells, outcome, rows, repr(path))
        cells.setflags(write=False)
        outcome.setflags(write=False)
        _CACHE.clear()
        _CACHE[key] = (cells, outcome)
    return _CACHE[key]


def load_connect4(data_home=None, *, encoding="onehot", target="outcome", dtype=np.float64):
    """Load the UCI Connect-4 set (67,557 positions after 8 plies, the first player to move).

    Parameters
    ----------
    data_home : str or os.PathLike, default=None
        Folder holding ``connect-4/connect-4.data.gz`` (or ``connect-4.data``, gzipped or not,
        there or directly in the folder). When None, the folder of the environment variable
        ``KERNELNB_DATA`` is searched, then ``~/.cache/kernelnb``.
    encoding : {'onehot', 'cells'}, default='onehot'
        ``'onehot'``: the 126 binary inputs of Collobert's thesis, three per cell in the UCI order
        a1, ..., a6, b1, ..., g6: empty -> (1, 0, 0), second player (``o``) -> (0, 1, 0), first
        player (``x``) -> (0, 0, 1).  ``'cells'``: 42 codes, 0 empty, 1 first, 2 second player.
    target : {'outcome', 'win'}, default='outcome'
        ``'outcome'``: the strings ``'win'``, ``'loss'``, ``'draw'`` (game value for the first
        player under perfect play); ``'win'``: int64 1 for a win, 0 otherwise (the thesis's task).
    dtype : numpy dtype, default=numpy.float64
        Float type of ``X``.

    Returns
    -------
    X : ndarray of shape (67557, 126) or (67557, 42)
        The inputs, in the file's row order.
    y : ndarray of shape (67557,)
        The targets (str or int64), in the file's row order.

    Raises
    ------
    FileNotFoundError
        When no file is found; the message names ``data_home``, ``KERNELNB_DATA`` and the build
        command (:data:`CONNECT4_BUILD_COMMAND`).
    ValueError
        Bad ``encoding`` or ``target``; a file that is not in the UCI format or fails the checks
        (row count, class counts, :data:`CONNECT4_SHA256`).
    """
    check_param("encoding", encoding, [str_options({"onehot", "cells"})], "load_connect4")
    check_param("target", target, [str_options({"outcome", "win"})], "load_connect4")
    path = connect4_path(data_home)
    if path is None:
        where = (f"data_home={os.fspath(data_home)!r}" if data_home is not None else
                 f"KERNELNB_DATA={os.environ.get('KERNELNB_DATA')!r} and {_cache_home()!r}")
        raise FileNotFoundError(
            f"No Connect-4 file ({' or '.join(_NAMES)}, in a '{_SUBDIR}/' subfolder or not) in "
            f"{where}. Pass data_home or set the environment variable KERNELNB_DATA to the data "
            f"folder. The file is made once by the stand-alone script of the kernelnb source tree: "
            f"{CONNECT4_BUILD_COMMAND} (it enumerates the positions and labels them with the "
            f"Connect-4 solver 'bitbully', AGPL-3.0, installed by the script, never needed by "
            f"kernelnb itself; the game values are facts, the solver only a tool). The original UCI "
            f"file connect-4.data works too.")
    cells, outcome = _read(path)
    X = encode_connect4(cells, encoding=encoding, dtype=dtype)
    y = (outcome == "win").astype(np.int64) if target == "win" else outcome.copy()
    return X, y


def connect4_splits(data_home=None, *, encoding="onehot", target="win", random_state=0,
                    dtype=np.float64):
    """Collobert's split of Connect-4: 50,000 / 7,500 / 10,000 positions after a seeded shuffle.

    Parameters
    ----------
    data_home : str or os.PathLike, default=None
        The data folder, as in :func:`load_connect4`.
    encoding : {'onehot', 'cells'}, default='onehot'
        The inputs, as in :func:`load_connect4`.
    target : {'win', 'outcome'}, default='win'
        As in :func:`load_connect4`; the thesis's task is ``'win'`` (1) against the rest (0).
    random_state : int, RandomState instance or None, default=0
        The shuffle (a permutation of all 67,557 rows); the last 57 rows are not used.
    dtype : numpy dtype, default=numpy.float64
        Float type of the inputs.

    Returns
    -------
    dict
        ``{'train': (X, y), 'valid': (X, y), 'test': (X, y)}`` of the sizes in
        :data:`CONNECT4_SIZES`, drawn without overlap.
    """
    X, y = load_connect4(data_home, encoding=encoding, target=target, dtype=dtype)
    perm = check_rng(random_state).permutation(X.shape[0])
    out, start = {}, 0
    for name in ("train", "valid", "test"):
        idx = perm[start:start + CONNECT4_SIZES[name]]
        out[name] = (X[idx], y[idx])
        start += CONNECT4_SIZES[name]
    return out
