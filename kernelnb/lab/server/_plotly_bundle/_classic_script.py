"""An ES module bundle rewritten as a classic script that puts its exports on one global.

Chromium keeps V8's code cache (the compiled bytecode of a script, kept with the HTTP cache) for a
classic ``<script src>`` from its third load on, and for a module loaded with ``import()`` not at
all: plotly's 5 MB widget bundle, served as a module, is compiled again on every page load,
before a dashboard's first chart. A bundler's output is one
module whose only module syntax is its final ``export{a as b, ...};`` statement; such a module
keeps its meaning when wrapped in a strict-mode function (its top-level bindings become the
function's locals, ``this`` stays undefined) with the export replaced by an assignment of the
exported bindings to a global.

:func:`classic_script` checks that shape with a small scanner of JavaScript's lexical grammar
(strings, template literals, comments, regular-expression literals, braces and parentheses) and
refuses, with :class:`NotClassicShape`, anything it cannot wrap without changing its meaning:
another ``export`` or a static ``import`` statement, ``import.meta``, an ``await`` outside a
function body, HTML-like comments (which a classic script reads as comments and a module does
not), a hashbang, unbalanced brackets, an unterminated literal.
"""
from __future__ import annotations

import re

__all__ = ["NotClassicShape", "classic_script"]


class NotClassicShape(ValueError):
    """The source is not a module that :func:`classic_script` can rewrite as a classic script."""


# What the scanner stops at: quotes, slashes (comments, regular expressions, division), brackets,
# the keywords that mark module syntax, and the HTML-like comment openers of classic scripts.
_STOP = re.compile(r"""["'`/{}()]|<!--|-->|(?<![\w$.])(?:export|import|await)(?![\w$])""")
_STRING = {q: re.compile(q + r"(?:[^" + q + r"\\\n\r]|\\[\s\S])*" + q) for q in "\"'"}
_TEMPLATE_TEXT = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
_REGEX = re.compile(r"/(?:[^/\\\[\n\r]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+/[A-Za-z]*")
_SPACE = re.compile(r"\s*")
_FINAL_EXPORT = re.compile(r"export\s*\{([^{}]*)\}\s*;?")
_ONLY_COMMENTS = re.compile(r"(?:\s|//[^\n]*|/\*[\s\S]*?\*/)*\Z")
_PAIR = re.compile(r"\s*([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?\s*\Z")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*\Z")
# After these words a slash starts a regular expression; after any other word or a number, it
# divides.
_REGEX_AFTER_WORDS = frozenset({"return", "typeof", "instanceof", "in", "of", "new", "delete",
                                "void", "throw", "case", "do", "else", "yield", "await"})
# Words before a parenthesis whose following brace opens a block, not a function body.
_BLOCK_HEADS = frozenset({"if", "for", "while", "switch", "catch", "with"})


def _prev_char(src, i):
    """Index of the last non-space character before ``i`` (-1 if none)."""
    k = i - 1
    while k >= 0 and src[k].isspace():
        k -= 1
    return k


def _word_before(src, k):
    """The identifier characters ending at ``k`` (included)."""
    j = k
    while j >= 0 and (src[j].isalnum() or src[j] in "_$"):
        j -= 1
    return src[j + 1:k + 1]


def _regex_allowed(src, i):
    """Whether a ``/`` at ``i`` (not a comment) starts a regular expression."""
    k = _prev_char(src, i)
    if k < 0:
        return True
    c = src[k]
    if c in ")]":
        return False
    if c in "+-" and k > 0 and src[k - 1] == c:            # a++ / b
        return False
    if c.isalnum() or c in "_$":
        return _word_before(src, k) in _REGEX_AFTER_WORDS
    return True                      # an operator, an opening bracket, ',', ';', '}', ...


def _next_char(src, j):
    """The first non-space character from ``j`` ('' at the end)."""
    k = _SPACE.match(src, j).end()
    return src[k:k + 1]


def _tokens(src):
    """The brackets and the module keywords of ``src`` outside its literals, in order.

    Yields ``(token, position, other)``: ``token`` is ``{``, ``}``, ``(``, ``)``, ``${`` (a
    template substitution), ``export``, ``import``, ``await``, or ``literal`` for a string, a
    template's text, a comment or a regular-expression literal; ``other`` is the position of the
    bracket that a closing one closes, where a literal ends, and None otherwise. Raises
    NotClassicShape on an unterminated literal, unbalanced brackets or an HTML-like comment.
    """
    braces = []              # positions of the open braces (None: a template substitution's)
    parens = []              # positions of the open parentheses
    pos, n = 0, len(src)

    def template(j):         # scans template text from j; returns where code resumes
        m = _TEMPLATE_TEXT.match(src, j)
        k = m.end()
        if src.startswith("`", k):
            return k + 1
        if src.startswith("${", k):
            braces.append(k)
            return k + 2
        raise NotClassicShape(f"unterminated template literal at offset {j - 1}")

    while True:
        m = _STOP.search(src, pos)
        if m is None:
            break
        tok, i = m.group(), m.start()
        pos = m.end()
        if tok in "\"'":
            s = _STRING[tok].match(src, i)
            if s is None:
                raise NotClassicShape(f"unterminated string at offset {i}")
            pos = s.end()
            yield "literal", i, pos
        elif tok == "`":
            pos = template(i + 1)
            yield "literal", i, pos
            if src.startswith("${", pos - 2):
                yield "${", pos - 2, None
        elif tok == "/":
            after = src[i + 1:i + 2]
            if after == "/":
                end = src.find("\n", i)
                pos = n if end < 0 else end
                yield "literal", i, pos
            elif after == "*":
                end = src.find("*/", i + 2)
                if end < 0:
                    raise NotClassicShape(f"unterminated comment at offset {i}")
                pos = end + 2
                yield "literal", i, pos
            elif _regex_allowed(src, i):
                r = _REGEX.match(src, i)
                if r is None:
                    raise NotClassicShape(f"unterminated regular expression at offset {i}")
                pos = r.end()
                yield "literal", i, pos
        elif tok == "(":
            parens.append(i)
            yield tok, i, None
        elif tok == ")":
            if not parens:
                raise NotClassicShape(f"unbalanced ')' at offset {i}")
            yield tok, i, parens.pop()
        elif tok == "{":
            braces.append(i)
            yield tok, i, None
        elif tok == "}":
            if not braces:
                raise NotClassicShape(f"unbalanced '}}' at offset {i}")
            opening = braces.pop()
            yield tok, i, opening
            if src.startswith("${", opening):                 # a substitution's end
                pos = template(i + 1)
                yield "literal", i + 1, pos
                if src.startswith("${", pos - 2):
                    yield "${", pos - 2, None
        elif tok == "<!--":
            raise NotClassicShape(f"'<!--' in code at offset {i} (a comment in a classic script)")
        elif tok == "-->":
            if not src[src.rfind("\n", 0, i) + 1:i].strip():
                raise NotClassicShape(f"'-->' starting a line at offset {i} (a comment in a "
                                      "classic script)")
        else:                                            # export, import, await
            yield tok, i, None
    if braces or parens:
        raise NotClassicShape("unbalanced brackets at the end of the source")


def _scan(src):
    """Positions of the top-level ``export`` keywords of ``src``; NotClassicShape when ``src``
    has syntax that a strict-mode function body would read otherwise (see the module)."""
    exports = []
    kinds = []               # one entry per open brace: "function" or "block"
    depth = 0                # open parentheses
    last_paren = (-1, -1)    # (position of the last ')', position of its '(')
    for tok, i, opening in _tokens(src):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            last_paren = (i, opening)
        elif tok == "{":
            kinds.append(_brace_kind(src, i, last_paren))
        elif tok == "${":
            kinds.append("template")
        elif tok == "}":
            kinds.pop()
        elif tok == "literal":
            continue
        else:                                            # export, import, await
            nxt = _next_char(src, i + len(tok))
            if nxt == ":":                               # an object's key
                continue
            if tok == "export":
                if kinds or depth:
                    raise NotClassicShape(f"'export' inside brackets at offset {i}")
                exports.append(i)
            elif tok == "import":
                if nxt == ".":
                    raise NotClassicShape(f"import.meta at offset {i}")
                if nxt != "(":                           # import(...) works in a classic script
                    raise NotClassicShape(f"an import statement at offset {i}")
            elif "function" not in kinds:
                raise NotClassicShape(f"'await' outside a function at offset {i}")
    return exports


def code_and_brackets(src):
    """``src`` with its literals (strings, template text, comments, regular expressions) blanked
    to spaces, and ``{opening: closing}`` positions of its braces and parentheses."""
    code, pairs, pos = [], {}, 0
    for tok, i, other in _tokens(src):
        if tok == "literal":
            code += [src[pos:i], " " * (other - i)]
            pos = other
        elif tok in "})":
            pairs[other] = i
    code.append(src[pos:])
    return "".join(code), pairs


def _brace_kind(src, i, last_paren):
    """"function" when the brace at ``i`` opens a function's body, else "block" (a block, an
    object literal, a class body: none of them lets ``await`` in)."""
    k = _prev_char(src, i)
    if k >= 1 and src[k - 1:k + 1] == "=>":
        return "function"
    # function f(...) {, method(...) {, async (...) {, but not if (...) {, for (...) {, ...
    if (k >= 0 and k == last_paren[0]
            and _word_before(src, _prev_char(src, last_paren[1])) not in _BLOCK_HEADS):
        return "function"
    return "block"


def classic_script(source, global_name, *, required=()):
    """``source`` (an ES module) as a classic script that assigns its exports to ``global_name``.

    The module's code runs unchanged inside ``(function () { "use strict"; ... }());`` and its
    final ``export{local as name, ...};`` statement becomes ``globalThis[global_name] =
    Object.freeze({name: local, ...});``.

    Parameters
    ----------
    source : str
        The text of an ES module whose only module syntax is one ``export{...}`` statement at its
        end (only whitespace and comments after it), as bundlers write.
    global_name : str
        A JavaScript identifier: the property of ``globalThis`` that receives the exports.
    required : iterable of str
        Export names the module must have.

    Returns
    -------
    str
        The classic script.

    Raises
    ------
    NotClassicShape
        When ``source`` has another shape: no final export or another one, a missing required
        name, a static ``import``, ``import.meta``, a top-level ``await`` (any ``await`` outside
        a function body), HTML-like comments, a hashbang, an unterminated literal or unbalanced
        brackets. The message says what was found.

    Examples
    --------
    >>> print(classic_script("const a = 1; export{a as one};", "lib"))
    (function () {
    "use strict";
    const a = 1;
    ;globalThis.lib = Object.freeze({"one": a});
    }());
    <BLANKLINE>
    """
    if not _IDENT.match(global_name or ""):
        raise ValueError(f"global_name: not a JavaScript identifier: {global_name!r}")
    if source.startswith("#!"):
        raise NotClassicShape("a hashbang line")
    exports = _scan(source)
    if not exports:
        raise NotClassicShape("no export statement")
    if len(exports) > 1:
        raise NotClassicShape(f"{len(exports)} export statements (only a final one can be "
                              "rewritten)")
    start = exports[0]
    m = _FINAL_EXPORT.match(source, start)
    if m is None or not _ONLY_COMMENTS.match(source, m.end()):
        raise NotClassicShape(f"the export statement at offset {start} is not an "
                              "'export{...};' ending the module")
    pairs = {}
    for item in m.group(1).split(","):
        if not item.strip():
            continue
        p = _PAIR.match(item)
        if p is None:
            raise NotClassicShape(f"an export the rewrite does not know: {item.strip()!r}")
        pairs[p.group(2) or p.group(1)] = p.group(1)
    missing = [name for name in required if name not in pairs]
    if missing:
        raise NotClassicShape(f"the module does not export {', '.join(missing)}")
    body = ", ".join(f'"{name}": {local}' for name, local in pairs.items())
    return (f'(function () {{\n"use strict";\n{source[:start].rstrip()}\n'
            f";globalThis.{global_name} = Object.freeze({{{body}}});\n}}());\n"
            f"{source[m.end():]}")
