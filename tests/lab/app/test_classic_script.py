"""An ES module rewritten as a classic script (kernelnb.lab.server._plotly_bundle._classic_script): what the module
exports is what the script puts on its global, checked against Node's own module loader; shapes
the rewrite cannot keep the meaning of are refused."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kernelnb.lab.server._plotly_bundle._classic_script import NotClassicShape, classic_script, code_and_brackets

NODE = shutil.which("node")

# Module syntax look-alikes in strings, a template literal, a regular expression, comments and
# object keys; await in async functions; dynamic import(); division and regular expressions side
# by side. Only the last line exports.
MODULE = r"""const s = "export{p5 as default};", q = 'import x from "y"', t = `export{${s.length}}`;
const r = /export{a as b};["'`]/g, d = 10 / 2 / 5, o = {import: 1, export: 2, await: 3};
/* export{c as d}; */ // import.meta
async function f() { await null; return (await Promise.resolve(2)) * 3; }
const g = async (x) => { if (x) { await x; } return x; }, h = { async m() { await 0; } };
const lazy = () => import("./nowhere.js");
class K { static k() { return `${o.import}-${o.export}` + r.source.length; } }
export{s as text, t as tmpl, d, K as FigureView, f as default};
// trailing comment
"""

EXPECTED = {"text": "export{p5 as default};", "tmpl": "export{22}", "d": 1.0,
            "FigureView": "1-2" + str(len('export{a as b};["\'`]')), "default": 6}

# Prints what a module (given as a file) exports, and what the classic script (stdin) puts on
# globalThis.lib, both made plain in the same way.
NODE_COMPARE = r"""
const fs = require("fs"), vm = require("vm"), url = require("url");
async function plain(ns) {
  const out = {};
  for (const k of Object.keys(ns).sort()) {
    const v = ns[k];
    out[k] = k === "default" ? await v() : (typeof v === "function" ? v.k() : v);
  }
  return out;
}
(async () => {
  const mod = await import(url.pathToFileURL(process.argv[1]).href);
  const ctx = vm.createContext({Promise});
  vm.runInContext(fs.readFileSync(0, "utf8"), ctx);
  console.log(JSON.stringify([await plain(mod), await plain(ctx.lib)]));
})();
"""


def test_exports_become_the_global_and_look_alikes_are_ignored():
    out = classic_script(MODULE, "lib", required=("FigureView", "default"))
    assert out.startswith('(function () {\n"use strict";\n' + MODULE[:40])
    assert ('globalThis.lib = Object.freeze({"text": s, "tmpl": t, "d": d, "FigureView": K, '
            '"default": f});\n}());\n\n// trailing comment\n') in out
    assert "export{" not in out.split(";globalThis.lib")[1]


@pytest.mark.skipif(NODE is None, reason="Node.js is the reference module loader")
def test_the_script_exports_what_nodes_module_loader_does(tmp_path):
    module = tmp_path / "m.mjs"
    module.write_text(MODULE)
    got = subprocess.run([NODE, "-e", NODE_COMPARE, str(module)], input=classic_script(
        MODULE, "lib"), capture_output=True, text=True, timeout=60, check=True).stdout
    as_module, as_script = json.loads(got)
    assert as_module == EXPECTED and as_script == EXPECTED


@pytest.mark.parametrize("source, why", [
    ("const a = import.meta.url; export{a};", "import.meta"),
    ('import x from "y"; export{x};', "import statement"),
    ('import "y"; const a = 1; export{a};', "import statement"),
    ("const a = await fetch(); export{a};", "'await' outside a function"),
    ("if (1) { await 0; } const a = 1; export{a};", "'await' outside a function"),
    ("const f = async x => await x; export{f};", "'await' outside a function"),
    ("export default 1;", "not an 'export{...};' ending"),
    ("export const a = 1;", "not an 'export{...};' ending"),
    ("const a = 1; export{a}; a;", "not an 'export{...};' ending"),
    ('export{a} from "./b.js";', "not an 'export{...};' ending"),
    ("const a = 1; export{a}; export{a as b};", "2 export statements"),
    ("const a = 1;", "no export statement"),
    ("const a = 1; export{a as 'b c'};", "does not know"),
    ("const a = 1; export{a as FigureModel};", "does not export FigureView"),
    ("const a = 1 <!--b\n; export{a};", "'<!--'"),
    ("let a = 1;\n --> 0\nexport{a};", "'-->'"),
    ("#!/usr/bin/env node\nconst a = 1; export{a};", "hashbang"),
    ('const a = "x; export{a};', "unterminated string"),
    ("const a = `x; export{a};", "unterminated template"),
    ("const a = f(1; export{a};", "inside brackets"),
    ("const a = 1; export{a};)", "unbalanced"),
    ("const a = 1;} export{a};", "unbalanced"),
    ("function f() { export{f}; }", "inside brackets"),
])
def test_shapes_the_rewrite_cannot_keep_are_refused(source, why):
    with pytest.raises(NotClassicShape, match=why):
        classic_script(source, "lib", required=("FigureModel", "FigureView"))


def test_the_global_must_be_an_identifier():
    with pytest.raises(ValueError, match="global_name"):
        classic_script("const a = 1; export{a};", "window.x")


def test_code_and_brackets_blank_the_literals_and_pair_the_brackets():
    """Strings, template text (not its substitutions), comments and regular expressions become
    spaces of the same length; each brace and parenthesis outside them is paired, a template
    substitution's with its ``${``."""
    src = 'f("}", `a${ {b: 1}.b }c`, /[)]/g) /* { */ // (\nx = 4 / 2;'
    code, pairs = code_and_brackets(src)
    assert len(code) == len(src)
    assert code == ('f(' + ' ' * 3 + ', ' + ' ' * 4 + ' {b: 1}.b }' + ' ' * 2 + ', ' + ' ' * 6
                    + ') ' + ' ' * 7 + ' ' + ' ' * 4 + '\nx = 4 / 2;')
    assert pairs == {1: 32, 9: 21, 12: 17}
