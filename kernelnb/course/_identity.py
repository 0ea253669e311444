"""Who the student is, and the seed of their data for an exercise.

Each student gets data of their own for each exercise, drawn from a seed made from their identity
and the exercise's id, so that the expected answer is theirs and a copied one does not fit. The
identity is, in order:

1. the id set by :func:`set_student` in this kernel (and kept for the next ones, see 3);
2. under nbgrader's autograder (``NBGRADER_EXECUTION=autograde``), the student whose submission
   is graded: nbgrader runs each notebook in ``autograded/<student>/<assignment>/``, so it is the
   name of the folder above the working directory (the grader's own hub name would give the
   grader's data, not the student's);
3. ``JUPYTERHUB_USER`` (the hub sets it in every single-user server);
4. the id kept in ``<config dir>/kernelnb/student`` by an earlier :func:`set_student`
   (``$XDG_CONFIG_HOME`` or ``~/.config``; ``KERNELNB_STUDENT_FILE`` names another file);
5. ``"anonymous"``.

The seed is the first 8 bytes of SHA-256 of ``"<student>\\0<exercise id>"``: stable across
Python processes and versions, unlike ``hash()``, whose strings are salted per process.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = ["ANONYMOUS", "set_student", "student", "seed", "student_file"]

ANONYMOUS = "anonymous"
_ID = re.compile(r"^[\w.@+-]{1,64}$")
_current = [None]


def student_file():
    """The file that keeps the id set by :func:`set_student`.

    Returns
    -------
    pathlib.Path
    """
    named = os.environ.get("KERNELNB_STUDENT_FILE")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "kernelnb" / "student"


def _checked(name):
    if not isinstance(name, str) or not _ID.match(name.strip()):
        raise ValueError("student must be 1 to 64 letters, digits or . _ @ + -, "
                         f"got student={name!r}")
    return name.strip()


def set_student(name, keep=True):
    """Set the student's id: their data are drawn from it.

    Parameters
    ----------
    name : str
        An id of 1 to 64 letters, digits or ``. _ @ + -`` (a student number, a login).
    keep : bool, default=True
        Also write it to :func:`student_file`, so that the next kernels use it.

    Returns
    -------
    str
        The id.
    """
    name = _checked(name)
    _current[0] = name
    if keep:
        path = student_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(name + "\n", encoding="utf-8")
        except OSError:   # a read-only home: the id holds for this kernel only
            pass
    return name


def student():
    """The student's id (see the module docstring for where it comes from).

    Returns
    -------
    str
        The id set with :func:`set_student`, else the submission's folder under nbgrader's
        autograde, else ``JUPYTERHUB_USER``, else the id kept from an earlier
        :func:`set_student`, else ``"anonymous"``.
    """
    if _current[0] is not None:
        return _current[0]
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        folder = Path.cwd().parent.name
        if folder and _ID.match(folder):
            return folder
    hub = os.environ.get("JUPYTERHUB_USER")
    if hub and _ID.match(hub):
        return hub
    try:
        kept = student_file().read_text(encoding="utf-8").strip()
        if _ID.match(kept):
            return kept
    except OSError:
        pass
    return ANONYMOUS


def seed(exercise_id, who=None):
    """The seed of ``who``'s data for ``exercise_id`` (a 63-bit integer).

    Parameters
    ----------
    exercise_id : str
        The exercise's id, ``"<chapter>.<n>"`` (e.g. ``"03.2"``).
    who : str or None
        A student id (None: :func:`student`).

    Returns
    -------
    int
        The first 63 bits of the SHA-256 of the student and the exercise: the same in every
        process and Python (unlike the salted ``hash()``).
    """
    who = student() if who is None else who
    digest = hashlib.sha256(f"{who}\0{exercise_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1
