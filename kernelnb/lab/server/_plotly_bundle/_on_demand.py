"""A bundle's module factories that its load never reaches, kept as text until first required.

esbuild writes each CommonJS module of a bundle as a factory, ``name=helper({"path"(exports,
module){...}})``, run the first time ``name()`` is called. A browser compiles every function of a
script it is told will run at load (V8's explicit compile hint, which kernelnb puts on plotly's
bundle), unreached factories included: in plotly's widget bundle, the trace types no dashboard
draws and their 3-D, map and WebGL machinery, about half of its 5 MB. :func:`compile_on_demand`
finds, from the bundle's text, the factories that nothing run at load can reach and replaces
each one's body by a direct ``eval`` of that body as a string literal: a string is scanned, not
compiled, and the body is compiled, in the factory's own scope, the first time the module is
required (by a trace type registered on demand, see
:func:`kernelnb.lab.server._plotly_bundle.defer_trace_registration`).

A factory's meaning is kept whatever the analysis decides: ``"path"(e,r){BODY}`` becomes
``"path"(e,r){return eval("(function(e,r){BODY\\n})").apply(this,arguments)}``, a function with the
same parameters, ``this``, ``arguments`` and scope (a direct ``eval`` in strict code sees the
factory's bindings and those around it), whose body may ``return`` as a module's may. A body
holding a ``super`` outside its class bodies (one in an object's method, which a function
expression could not compile) is left as it is. The analysis only decides what is compiled when:
a factory is kept compiled when the code outside factories and outside top-level function
declarations, or a factory or function reached from there, calls it as esbuild requires a module,
``name()`` (strings, comments, regular expressions and property names after a dot excepted); a
top-level function is reached by any mention of its name. Another use of a factory's minified
name is a local binding that shadows it (in plotly's bundle, such look-alikes kept 3-D, WebGL and
map modules compiled); and should a factory be reached some other way, it is still compiled and
run when called, only later.

The top-level function declarations that nothing run at load names (in plotly's bundle, about
1,000 functions of maplibre's ES modules, hoisted out of their text factories) are kept as text
the same way, compiled at their first call and kept: ``function f(a){BODY}`` becomes
``var __kbOnDemand_f_7;function f(a){return(__kbOnDemand_f_7||(__kbOnDemand_f_7=eval(
"(function(a){BODY\n})"))).apply(this,arguments)}``, the variable's number its own (two blocks
of one scope may each declare an ``f``, and a ``var`` is the scope's). The declaration, its
hoisting, name, length and prototype stay; ``new f()`` passes the new object as ``this``, whose
prototype is ``f``'s. The
compiled body's scope is that of ``f``'s first call, in which it sees nothing of that call: its
own parameters and ``arguments`` hide the first call's. A generator, or a body reading
``new.target`` (the compiled body is called, not constructed), is left as it is.
"""
from __future__ import annotations

import json
import re

from ._classic_script import _prev_char, code_and_brackets

__all__ = ["compile_on_demand"]

# name=helper({"path"(params){   (esbuild's __commonJS / __esm factories, minified or not)
_FACTORY = re.compile(r'(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*[A-Za-z_$][\w$]*\(\{\s*"([^"\\\n]+)"\s*'
                      r'\(([\w$,\s]*)\)\s*\{')
_FUNCTION = re.compile(r'(?<![\w$.])function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(')
_NAME = re.compile(r'(?<![\w$.])[A-Za-z_$][\w$]*')
_SUPER = re.compile(r'(?<![\w$.])super(?![\w$])')
# class [Name] [extends ...] {   (not a property named class: .class, {class: ...}, class() {})
_CLASS = re.compile(r'(?<![\w$.])class(?![\w$])(?=\s*[A-Za-z_${])')
_NEW_TARGET = re.compile(r'(?<![\w$.])new\s*\.\s*target(?![\w$])')
# The variables that keep a top-level function's body once compiled: __kbOnDemand_<name>_<n>
_CACHE = "__kbOnDemand_"
# A factory is required by calling it with no arguments, as esbuild writes every require: name()
_EMPTY_CALL = re.compile(r'\s*\(\s*\)')


def compile_on_demand(src, *, ignore=()):
    """``src`` with the module factories and top-level functions that its load cannot reach
    compiled on first use.

    Parameters
    ----------
    src : str
        A script or module bundled by esbuild.
    ignore : iterable of (int, int)
        Spans of ``src`` whose references do not count: code that runs only on demand, such as
        the table of trace types that plotly's rewritten entry module registers later.

    Returns
    -------
    (str, int, int)
        The rewritten source, the number of factories and functions left as text and the
        characters of their bodies.

    Raises
    ------
    NotClassicShape
        When ``src`` cannot be scanned (an unterminated literal, unbalanced brackets).
    """
    ignore = tuple(ignore)
    code, pairs = code_and_brackets(src)
    nodes = []                       # (start of body, end of body, name, params, is factory)
    defined = set()                  # where the factories' and functions' names are defined
    keyword = {}                     # a function declaration's body -> its keyword "function"
    for m in _FACTORY.finditer(src):
        b0 = m.end() - 1
        defined.add(m.start(1))
        if code[m.start(1)] != src[m.start(1)] or b0 not in pairs:
            continue                 # inside a literal, or a brace the scanner did not pair
        nodes.append((b0, pairs[b0], m.group(1), m.group(3), True))
    for m in _FUNCTION.finditer(code):
        k = _prev_char(code, m.start())
        if k >= 0 and code[k] not in ";{}":
            continue                 # a function expression
        close = pairs.get(m.end() - 1)
        if close is None:
            continue
        b0 = close + 1
        while b0 < len(code) and code[b0].isspace():
            b0 += 1
        if code[b0:b0 + 1] != "{":
            continue
        defined.add(m.start(1))
        # a generator's function keeps its body: a wrapper would return the generator object
        params = None if "*" in m.group() else src[m.end():close]
        nodes.append((b0, pairs[b0], m.group(1), params, False))
        keyword[b0] = m.start()
    # Each identifier belongs to the innermost factory around it, or to the outermost function
    # declaration around it that lies in no factory, or to the code that runs at load.
    nodes.sort(key=lambda t: (t[0], -t[1]))
    kept, stack = [], []
    for node in nodes:
        while stack and stack[-1][1] < node[0]:
            stack.pop()
        if not node[4] and stack:
            continue                 # a function inside a factory or another function
        kept.append(node)
        stack.append(node)
    nodes = kept
    by_name = {}
    for i, node in enumerate(nodes):
        by_name.setdefault(node[2], []).append(i)
    refs = [set() for _ in nodes]
    roots, stack, nxt = set(), [], 0
    calls_only = {w for w, ids in by_name.items() if all(nodes[i][4] for i in ids)}
    for m in _NAME.finditer(code):
        p, word = m.start(), m.group()
        if word not in by_name or p in defined or any(a <= p < b for a, b in ignore):
            continue
        if word in calls_only and not _EMPTY_CALL.match(code, m.end()):
            continue                 # a local binding of the same minified name
        while nxt < len(nodes) and nodes[nxt][0] <= p:
            while stack and nodes[stack[-1]][1] < nodes[nxt][0]:
                stack.pop()
            stack.append(nxt)
            nxt += 1
        while stack and nodes[stack[-1]][1] < p:
            stack.pop()
        (refs[stack[-1]] if stack else roots).add(word)
    reached, todo = set(), [i for w in roots for i in by_name[w]]
    while todo:
        i = todo.pop()
        if i not in reached:
            reached.add(i)
            todo.extend(j for w in refs[i] for j in by_name[w])
    out, pos, count, chars = [], 0, 0, 0
    functions = _CACHE not in src             # the cache's names are free
    for i, (b0, b1, name, params, factory) in enumerate(nodes):
        body = src[b0 + 1:b1]
        if (i in reached or b0 < pos or params is None
                or not (factory or functions) or _super_outside_class(code, pairs, b0, b1)
                or not factory and _NEW_TARGET.search(code, b0, b1)):
            continue
        text = json.dumps(f"(function({params}){{{body}\n}})", ensure_ascii=False)
        if factory:
            out += [src[pos:b0 + 1], f"return eval({text}).apply(this,arguments)"]
        else:
            # compiled at its first call and kept: a function may be called many times
            cache = f"{_CACHE}{name}_{count}"
            start = keyword[b0]
            out += [src[pos:start], f"var {cache};", src[start:b0 + 1],
                    f"return({cache}||({cache}=eval({text}))).apply(this,arguments)"]
        pos, count, chars = b1, count + 1, chars + len(body)
    out.append(src[pos:])
    return "".join(out), count, chars


def _super_outside_class(code, pairs, b0, b1):
    """Whether ``code[b0:b1]`` holds a ``super`` outside every class body in it (which the
    factory's body would lose as the body of a function expression)."""
    supers = [m.start() for m in _SUPER.finditer(code, b0, b1)]
    if not supers:
        return False
    bodies = []
    for m in _CLASS.finditer(code, b0, b1):
        j = m.end()
        while j < b1 and code[j] != "{":
            j = pairs[j] + 1 if code[j] == "(" and j in pairs else j + 1
        if j in pairs:
            bodies.append((j, pairs[j]))
    return any(not any(a < p < b for a, b in bodies) for p in supers)
