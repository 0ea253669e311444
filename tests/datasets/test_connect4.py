"""Connect-4: the enumerated positions against the rules of the game, the 126-input coding on
hand-made positions, the file checks and errors, and the real file when it has been built."""
import gzip
import os
import re
from pathlib import Path

import numpy as np
import pytest

import kernelnb
import kernelnb.datasets as ds
from kernelnb.datasets import connect4 as c4

# the labelled file where scripts/build_connect4.py puts it and load_connect4 finds it:
# $KERNELNB_DATA, else ~/.cache/kernelnb (looked up before the `offline` fixture hides them)
_HOMES = [os.environ.get("KERNELNB_DATA"), c4._cache_home()]
_BUILT = [Path(h) for h in _HOMES if h and (Path(h) / "connect-4" / "connect-4.data.gz").is_file()]
REAL = _BUILT[0] if _BUILT else None
real_only = pytest.mark.skipif(
    REAL is None, reason="connect-4/connect-4.data.gz is not in $KERNELNB_DATA or ~/.cache/kernelnb "
                         "(python scripts/build_connect4.py --install builds it; .ci/run does)")

# Rows of the UCI file connect-4.data (its 1st, 7th and 15th), written column by column a..g from
# the bottom, with their published outcome.
UCI_ROWS = [
    (("", "", "xo", "xoxoxo", "", "", ""), "win"),
    (("", "x", "o", "xoxoxo", "", "", ""), "draw"),
    (("x", "o", "", "xoxoxo", "", "", ""), "loss"),
]

pytestmark = pytest.mark.usefixtures("offline")      # no KERNELNB_DATA, empty cache, no network


def cells_of(columns):
    """UCI cell codes (0 empty, 1 = x, 2 = o) of a position given as column strings."""
    row = np.zeros(42, dtype=np.uint8)
    for c, col in enumerate(columns):
        for r, ch in enumerate(col):
            row[6 * c + r] = {"x": 1, "o": 2}[ch]
    return row


def grid(cells):
    """(n, 6 rows from the bottom, 7 columns) view of UCI-ordered cells."""
    return np.asarray(cells).reshape(-1, 7, 6).transpose(0, 2, 1)


def fours(g, player):
    """Whether each board has four stones of ``player`` in a line: every window of the board
    checked directly (independent of the package's bitboards)."""
    p = g == player
    out = p[:, :, :4] & p[:, :, 1:5] & p[:, :, 2:6] & p[:, :, 3:7]          # horizontal
    res = out.any(axis=(1, 2))
    res |= (p[:, :3] & p[:, 1:4] & p[:, 2:5] & p[:, 3:6]).any(axis=(1, 2))   # vertical
    for dr in (1, -1):                                                       # diagonals
        for r0 in range(6):
            for c0 in range(4):
                r = [r0 + dr * k for k in range(4)]
                if min(r) < 0 or max(r) > 5:
                    continue
                res |= p[:, r[0], c0] & p[:, r[1], c0 + 1] & p[:, r[2], c0 + 2] & p[:, r[3], c0 + 3]
    return res


@pytest.fixture(scope="module")
def positions():
    return c4.connect4_positions(return_moves=True)


def test_positions_count_and_rules(positions):
    cells, moves = positions
    assert cells.shape == (67557, 42) and cells.dtype == np.uint8      # the UCI set's size
    assert moves.shape == (67557, 8)
    assert ((cells == 1).sum(1) == 4).all() and ((cells == 2).sum(1) == 4).all()
    g = grid(cells)
    filled = g != 0
    assert not (filled[:, 1:] & ~filled[:, :-1]).any()                  # gravity: no hole below a stone
    assert not fours(g, 1).any() and not fours(g, 2).any()              # nobody has won
    heights = filled.sum(axis=1)
    for c in range(7):                                                  # nobody can win with the next stone
        open_ = heights[:, c] < 6
        for player in (1, 2):
            h = g[open_].copy()
            h[np.arange(h.shape[0]), heights[open_, c], c] = player
            assert not fours(h, player).any(), (c, player)


def test_positions_one_per_mirror_pair(positions):
    cells, _ = positions
    mirrored = grid(cells)[:, :, ::-1].transpose(0, 2, 1).reshape(-1, 42)
    rows = {r.tobytes() for r in cells}
    assert len(rows) == cells.shape[0]
    symmetric = (mirrored == cells).all(axis=1)
    assert symmetric.sum() > 0
    assert not any(m.tobytes() in rows for m in mirrored[~symmetric])


def test_moves_replay_to_the_positions(positions):
    cells, moves = positions
    rng = np.random.RandomState(0)
    for i in rng.choice(cells.shape[0], 300, replace=False):
        board = np.zeros((6, 7), dtype=np.uint8)
        for ply, c in enumerate(moves[i]):
            r = int((board[:, c] != 0).sum())
            assert r < 6
            board[r, c] = 1 if ply % 2 == 0 else 2                      # x (first player) starts
            assert not fours(board[None], board[r, c])[0], (i, ply)     # the game went on
        np.testing.assert_array_equal(board, grid(cells[i])[0])


def test_published_rows_are_enumerated(positions):
    rows = {r.tobytes() for r in positions[0]}
    for columns, _ in UCI_ROWS:
        assert cells_of(columns).tobytes() in rows


def test_encoding_of_a_hand_made_position():
    cells = np.stack([cells_of(("", "", "xo", "xoxoxo", "", "", "")), cells_of(("o", "", "", "", "", "", "x"))])
    X = ds.encode_connect4(cells)
    assert X.shape == (2, 126) and X.dtype == np.float64
    expected = np.tile([1.0, 0.0, 0.0], (2, 42))                       # empty -> (1, 0, 0)
    expected[0, 3 * 12:3 * 12 + 3] = (0, 0, 1)                          # c1 = x -> (0, 0, 1)
    expected[0, 3 * 13:3 * 13 + 3] = (0, 1, 0)                          # c2 = o -> (0, 1, 0)
    for k, ch in zip(range(18, 24), "xoxoxo"):                          # d1..d6
        expected[0, 3 * k:3 * k + 3] = (0, 0, 1) if ch == "x" else (0, 1, 0)
    expected[1, 0:3] = (0, 1, 0)                                        # a1 = o
    expected[1, 3 * 36:3 * 36 + 3] = (0, 0, 1)                          # g1 = x
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(ds.encode_connect4(cells, encoding="cells", dtype=np.uint8), cells)
    assert ds.encode_connect4(cells, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="shape"):
        ds.encode_connect4(cells[:, :41])
    with pytest.raises(ValueError, match="codes"):
        ds.encode_connect4(cells + 1)
    with pytest.raises(ValueError, match="'encoding' parameter of encode_connect4"):
        ds.encode_connect4(cells, encoding="binary")


def test_missing_file_says_where_and_how(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        ds.load_connect4()
    msg = str(err.value)
    assert "KERNELNB_DATA" in msg and "data_home" in msg and "scripts/build_connect4.py" in msg
    assert "AGPL" in msg
    with pytest.raises(FileNotFoundError, match=re.escape(repr(str(tmp_path)))):
        ds.load_connect4(data_home=tmp_path)
    with pytest.raises(ValueError, match="'target' parameter of load_connect4"):
        ds.load_connect4(data_home=tmp_path, target="loss")


def test_files_that_fail_the_checks(tmp_path):
    folder = tmp_path / "connect-4"
    folder.mkdir()
    rows = [",".join("bxo"[v] for v in cells_of(cols)) + "," + lab for cols, lab in UCI_ROWS]
    (folder / "connect-4.data.gz").write_bytes(gzip.compress(("\n".join(rows) + "\n").encode()))
    with pytest.raises(ValueError, match="3 positions.*67,557"):
        ds.load_connect4(data_home=tmp_path)
    (folder / "connect-4.data.gz").unlink()
    (tmp_path / "connect-4.data").write_text("1,2,3\n")                # found outside the subfolder too
    with pytest.raises(ValueError, match="UCI format"):
        ds.load_connect4(data_home=tmp_path)


def test_no_solver_import_in_the_package():
    pattern = re.compile(r"^\s*(import|from)\s+bitbully", re.M)
    package = Path(kernelnb.__file__).resolve().parent         # the kernelnb imported (a wheel's too)
    sources = [p for p in package.rglob("*") if p.suffix in {".py", ".pyx", ".pxd"}]
    assert sources                                                      # the walk found the package
    offenders = [str(p) for p in sources if pattern.search(p.read_text())]
    assert offenders == []


@real_only
def test_real_file_counts_positions_and_published_rows(positions):
    X, y = ds.load_connect4(data_home=REAL, encoding="cells", dtype=np.uint8)
    assert X.shape == (67557, 42) and y.shape == (67557,)
    assert {k: int((y == k).sum()) for k in ("win", "loss", "draw")} == {
        "win": 44473, "loss": 16635, "draw": 6449}                      # published UCI counts
    assert {r.tobytes() for r in X} == {r.tobytes() for r in positions[0]}
    index = {r.tobytes(): i for i, r in enumerate(X)}
    for columns, outcome in UCI_ROWS:
        assert y[index[cells_of(columns).tobytes()]] == outcome
    X1, yw = ds.load_connect4(data_home=REAL, target="win")              # found in connect-4/
    assert X1.shape == (67557, 126) and X1.dtype == np.float64
    np.testing.assert_array_equal(X1, ds.encode_connect4(X))
    np.testing.assert_array_equal(yw, (y == "win").astype(np.int64))


@real_only
def test_real_file_roundtrip_and_checksum(tmp_path):
    X, y = ds.load_connect4(data_home=REAL, encoding="cells", dtype=np.uint8)
    perm = np.random.RandomState(1).permutation(X.shape[0])
    path = c4.save_connect4(X[perm], y[perm], data_home=tmp_path)      # any order passes the check
    assert Path(path) == tmp_path / "connect-4" / "connect-4.data.gz"
    X2, y2 = ds.load_connect4(data_home=tmp_path, encoding="cells", dtype=np.uint8)
    np.testing.assert_array_equal(X2, X[perm])
    np.testing.assert_array_equal(y2, y[perm])
    swapped = y.copy()                                                  # same counts, wrong values
    i, j = np.flatnonzero(y == "win")[0], np.flatnonzero(y == "loss")[0]
    swapped[i], swapped[j] = "loss", "win"
    with pytest.raises(ValueError, match="SHA-256"):
        c4.save_connect4(X, swapped, data_home=tmp_path / "other")
    assert not os.path.exists(tmp_path / "other" / "connect-4" / "connect-4.data.gz")


@real_only
def test_real_thesis_split(monkeypatch):
    monkeypatch.setenv("KERNELNB_DATA", str(REAL))                       # found through the variable
    s = ds.connect4_splits(encoding="cells", dtype=np.uint8)
    assert {k: v[0].shape for k, v in s.items()} == {
        "train": (50000, 42), "valid": (7500, 42), "test": (10000, 42)}
    rows = [{r.tobytes() for r in s[k][0]} for k in ("train", "valid", "test")]
    assert sum(map(len, rows)) == 67500 and len(set.union(*rows)) == 67500   # disjoint
    X, y = ds.load_connect4(encoding="cells", target="win", dtype=np.uint8)
    index = {r.tobytes(): i for i, r in enumerate(X)}
    for Xk, yk in s.values():
        np.testing.assert_array_equal(yk, y[[index[r.tobytes()] for r in Xk]])
    again = ds.connect4_splits(encoding="cells", dtype=np.uint8, random_state=0)
    np.testing.assert_array_equal(again["test"][0], s["test"][0])
    other = ds.connect4_splits(encoding="cells", dtype=np.uint8, random_state=1)
    assert not np.array_equal(other["test"][0], s["test"][0])
