"""Print a pip constraints file that pins every direct dependency of the given extras (and of the
core) to the lower bound pyproject.toml declares for it: ``name==bound``, one a line.

CI's lowest-versions job installs kernelnb with these constraints, so each ``>=`` bound is
installed and tested, never a guess. A dependency without a ``>=`` bound is an error (it would
float to the newest release and its bound would be untested).

    python3 .ci/lowest_constraints.py lab test-tools > constraints.txt

``test-tools``: the test extra's own tools (pytest, pytest-timeout, nbclient, nbformat), without
its ``kernelnb[...]`` part.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
#: The test extra's tools that the lowest job runs the tests with.
TEST_TOOLS = ("pytest", "pytest-timeout", "nbclient", "nbformat")
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*)(;.*)?$")


def lower_bounds(requirements):
    """``[(name, bound)]`` for requirement strings; kernelnb's own extras are left out."""
    pins = []
    for text in requirements:
        m = REQUIREMENT.match(text)
        if m is None:
            raise SystemExit(f"cannot read the requirement {text!r}")
        name, spec = m.group(1), m.group(3)
        if name.lower() == "kernelnb":
            continue
        bound = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", spec)
        if bound is None:
            raise SystemExit(f"{text!r} declares no lower bound (>=): the lowest-versions job "
                             "cannot test it")
        pins.append((name, bound.group(1)))
    return pins


def main(argv):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    requirements = list(project["dependencies"])
    for extra in argv:
        if extra == "test-tools":
            requirements += [r for r in extras["test"]
                             if REQUIREMENT.match(r).group(1) in TEST_TOOLS]
        elif extra in extras:
            requirements += extras[extra]
        else:
            raise SystemExit(f"no extra {extra!r} in pyproject.toml (have {sorted(extras)})")
    pins = {}
    for name, bound in lower_bounds(requirements):
        key = re.sub(r"[-_.]+", "-", name).lower()
        pins[key] = max(pins.get(key, bound), bound, key=lambda v: [int(p) if p.isdigit() else p
                                                                   for p in v.split(".")])
    for key, bound in pins.items():
        print(f"{key}=={bound}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
