"""Module factories a bundle's load cannot reach, left as text and compiled when first required
(kernelnb.lab.server._plotly_bundle._on_demand): which factories, and what the rewrite leaves alone."""
from __future__ import annotations

import json
import re

import pytest

from kernelnb.lab.server._plotly_bundle._classic_script import NotClassicShape
from kernelnb.lab.server._plotly_bundle._on_demand import compile_on_demand

# A bundle as esbuild writes one: CommonJS factories (cjs) and an ES module's init (esm), a
# function declaration, a table of factories registered later, look-alikes of factory names in a
# string, a regular expression, a comment, after a dot and as local bindings (a parameter, a
# local function called with an argument), a class whose methods call super and an object
# method that does.
BUNDLE = r"""var names = Object.getOwnPropertyNames;
var cjs = (cb, mod) => function () {
  return mod || (0, cb[names(cb)[0]])((mod = {exports: {}}).exports, mod), mod.exports; };
var esm = (fn, res) => function () { return fn && (res = (0, fn[names(fn)[0]])(fn = 0)), res; };
var log = [];
var shared = cjs({"src/shared.js"(e, r) { log.push("shared"); r.exports = {n: 1}; }});
var used = cjs({"src/used.js"(e, r) { log.push("used"); r.exports = shared().n + 1; }});
var hoisted;
var initEsm = esm({"src/esm.js"() { hoisted = "set by esm"; log.push("esm"); }});
var later = cjs({"src/later.js"(e, r) {
  "use strict";
  log.push("later:" + typeof this + ":" + arguments.length);
  r.exports = {u: used(), s: shared().n, h: (initEsm(), hoisted), re: /}"'/.source,
               t: `${"}"}\u2028`, f: viaFunction(), c: withClass(), p: points(),
               g: [...gen()], nt: typeof whoCalled, b: blocks()};
  if (r.exports.u) return;
  r.exports.never = true;
}});
var nested = cjs({"src/nested.js"(e, r) {
  var inner = cjs({"src/inner.js"(e2, r2) { r2.exports = "inner"; }});
  r.exports = inner() + "//";
}});
var withSuper = cjs({"src/super.js"(e, r) { r.exports = {m() { return super.toString; }}; }});
var withClass = cjs({"src/class.js"(e, r) {
  class Base { m() { return "base"; } }
  class Derived extends (0, Object)(Base) { m() { return "derived of " + super.m(); } }
  r.exports = new Derived().m();
}});
var lookAlike = cjs({"src/look.js"(e, r) { r.exports = "lookAlike"; }});
function viaFunction() { return nested(); }
function unusedFunction() { return withSuper(); }
function Point(x, y) { this.x = x; this.y = y; }
function points() {
  const a = new Point(1, 2), b = new Point(3, 4);
  Point.prototype.sum = function () { return this.x + this.y; };
  return [a.sum() + b.sum(), b instanceof Point, Point.length, Point.name];
}
function* gen() { yield 1; yield arguments.length; }
function blocks() {
  const out = [];
  { function twin() { return "first"; } out.push(twin()); }
  { function twin() { return "second"; } out.push(twin()); }
  return out;
}
function whoCalled() { return new.target; }
const text = "later() lookAlike()", pattern = /lookAlike/, prop = log.lookAlike; // lookAlike()
const param = [1].map(function (lookAlike) { return lookAlike; }),
  local = (() => { const lookAlike = (x) => x; return lookAlike(1); })();
var table = [["later", () => later()]];
var answer = used();
export{answer as default, table, log};
"""


def _table_span(src):
    i = src.index("var table = ")
    return (i, src.index(";", i))


def _text_factories(src):
    """The factory paths whose bodies the rewrite left as text."""
    return sorted(re.findall(r'"(src/[\w/.]+)"\([\w, ]*\)\s*\{return eval\(', src))


def _text_functions(src):
    """The top-level functions whose bodies the rewrite left as text."""
    found = re.findall(r'var (__kbOnDemand_(\w+)_\d+);function (\w+)\([\w, ]*\) \{return\('
                       r'(__kbOnDemand_\w+)\|\|\((__kbOnDemand_\w+)=eval\(', src)
    assert all(c1 == c2 == c3 and f1 == f2 for c1, f1, f2, c2, c3 in found)
    assert len({c for c, *_ in found}) == len(found)          # a variable of its own each
    return sorted(f for _, f, *_ in found)


def test_factories_that_the_load_cannot_reach_are_left_as_text():
    out, count, chars = compile_on_demand(BUNDLE, ignore=[_table_span(BUNDLE)])
    # later (only in the ignored table), the esm init and the function it alone reaches, nested
    # (through a function declaration only later calls), the class later alone requires (its
    # super calls are in class bodies) and the look-alike (whose name the load only uses as
    # other bindings); not withSuper, whose super is an object method's; inner stays inside
    # nested's text
    assert _text_factories(out) == ["src/class.js", "src/esm.js", "src/later.js", "src/look.js",
                                    "src/nested.js"]
    # and the functions the load never names, but the generator (a wrapper would return its
    # generator object) and the one reading new.target
    assert _text_functions(out) == ["Point", "blocks", "points", "unusedFunction", "viaFunction"]
    assert count == 10
    assert '"src/shared.js"(e, r) { log.push("shared")' in out      # reached: left as it was
    assert '"src/used.js"(e, r) { log.push("used")' in out
    assert '"src/super.js"(e, r) { r.exports = {m() { return super' in out
    # each text is the factory's body in a function of its parameters, as a JSON string
    body = re.search(r'"src/later.js"\(e, r\) \{return eval\(("(?:[^"\\]|\\.)*")\)'
                     r'\.apply\(this,arguments\)\}', out)
    fn = json.loads(body.group(1))
    start = BUNDLE.index('"src/later.js"(e, r) {') + len('"src/later.js"(e, r) {')
    assert fn == "(function(e, r){" + BUNDLE[start:BUNDLE.index("\n}});\nvar nested")] + "\n\n})"
    texts = [json.loads(m) for m in re.findall(r'eval\(("(?:[^"\\]|\\.)*")\)', out)]
    assert len(texts) == count
    assert chars == sum(len(t) - len("(function(){\n})") - t.index("){") + len("(function(")
                        for t in texts)


def test_without_the_ignored_span_the_table_reaches_its_factories():
    out, count, _ = compile_on_demand(BUNDLE)
    assert _text_factories(out) == ["src/look.js"] and _text_functions(out) == ["unusedFunction"]
    assert count == 2


def test_a_super_outside_every_class_body_keeps_a_factory_compiled():
    """A super that the factory's body holds directly, or in an object's method, would not
    compile in a function expression; one in a class body, past an extends clause with
    parentheses and braces, does."""
    helper = "var cjs = (cb) => cb;\n"
    for body, text in [("class A extends B { m() { super.m(); } }", True),
                       ("class A extends f({a: 1}) { constructor() { super(); } }", True),
                       ("r.exports = {m() { return super.x; }};", False),
                       ("class A {} r.exports = {m() { return super.x; }};", False),
                       ("r.exports = {class: 1, m() { return super.x; }};", False)]:
        src = helper + 'var f1 = cjs({"src/a.js"(e, r) { ' + body + ' }});\n'
        out, count, _ = compile_on_demand(src)
        assert count == int(text), body


def test_a_source_without_factories_is_unchanged():
    src = "const a = 1; function f() { return `${a}}`; }\nexport{f as default};"
    assert compile_on_demand(src) == (src, 0, 0)


def test_a_source_the_scanner_cannot_read_is_refused():
    with pytest.raises(NotClassicShape, match="unterminated string"):
        compile_on_demand('var x = cjs({"src/a.js"(e, r) { r.exports = "open; }});')
