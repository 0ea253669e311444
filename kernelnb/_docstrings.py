"""Docstring fragments written once and substituted where several classes share them.

Where several estimators take the same parameter with the same meaning, its description is
written once, as a fragment, and each docstring names the fragment on a line of its own,
``%(name)s``, at the indentation the fragment takes there (a class's Parameters section, a
method's). :func:`fill_doc` replaces each such line by its fragment, so that ``help()``, the API
pages and numpydoc's validation (``tests/test_docstrings.py``) see the whole docstring. Only
lines that hold nothing but a token are replaced: a ``%`` anywhere else in a docstring is text.
"""
from __future__ import annotations

import re
import textwrap

__all__ = ["fill_doc", "substitute"]

_TOKEN = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.M)


def substitute(doc, fragments):
    """``doc`` with each line ``%(name)s`` replaced by ``fragments[name]``, indented as the line.

    Parameters
    ----------
    doc : str or None
        A docstring.
    fragments : dict of str
        The fragments by name, each written at any indentation (it is dedented first).

    Returns
    -------
    str or None
        The docstring with every token line replaced (None stays None).

    Raises
    ------
    KeyError
        When a token names no fragment.
    """
    if doc is None:
        return None

    def replace(match):
        indent, name = match.groups()
        if name not in fragments:
            raise KeyError(f"docstring fragment {name!r} is not defined "
                           f"(known: {sorted(fragments)})")
        text = textwrap.dedent(fragments[name]).strip("\n")
        return "\n".join(indent + line if line.strip() else "" for line in text.splitlines())

    return _TOKEN.sub(replace, doc)


def fill_doc(**fragments):
    """Class or function decorator: substitute the fragments into its docstring.

    On a class, the docstrings of the functions defined in its body (``fit``, ...) are filled
    too.

    Parameters
    ----------
    **fragments : str
        The fragments by name.

    Returns
    -------
    callable
        The decorator; it returns the object it is given, its docstrings filled.
    """
    def decorate(obj):
        obj.__doc__ = substitute(obj.__doc__, fragments)
        if isinstance(obj, type):
            for value in vars(obj).values():
                if callable(value) and getattr(value, "__doc__", None):
                    value.__doc__ = substitute(value.__doc__, fragments)
        return obj
    return decorate
