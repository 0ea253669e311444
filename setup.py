"""Build the Cython extensions of kernelnb (with OpenMP where the compiler supports it)."""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import numpy as np
from setuptools import Extension, setup
from setuptools.command.build_py import build_py


def _openmp_flags():
    """Return (compile, link) flags for OpenMP, or empty lists if the compiler lacks it."""
    if os.environ.get("KERNELNB_NO_OPENMP"):
        return [], []
    cc = sysconfig.get_config_var("CC") or "cc"
    cc = cc.split()[0]
    if shutil.which(cc) is None:
        return [], []
    src = "#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n"
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "t.c")
        with open(c, "w") as fh:
            fh.write(src)
        try:
            r = subprocess.run([cc, "-fopenmp", c, "-o", os.path.join(tmp, "t")],
                               capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return [], []
    if r.returncode != 0:
        print("kernelnb: compiler without OpenMP, building single-threaded", file=sys.stderr)
        return [], []
    return ["-fopenmp"], ["-fopenmp"]


OMP_C, OMP_L = _openmp_flags()
# Element-wise passes (exp of a Gram block) may use fast vectorised math; solvers keep IEEE
# semantics because they compare against infinite bounds (hard margin).
FAST = ["-ffast-math", "-fno-finite-math-only"]

# Every Cython module of the package, with its extra compile flags.
MODULES = {
    "kernelnb._kernels": FAST,
    "kernelnb.svm._smo": [],
    "kernelnb.kmp._kmp": [],
    "kernelnb.neighbors._neighbors": [],
    "kernelnb.largescale._mlp": [],
    "kernelnb.largescale._margin": [],
}


DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}


def _ext(name, extra):
    path = name.replace(".", "/") + ".pyx"
    ext = Extension(
        name,
        [path],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        # no debug information: it was four fifths of each compiled module (and of the wheel)
        extra_compile_args=["-O3", "-g0"] + extra + OMP_C,
        extra_link_args=OMP_L,
    )
    ext.cython_directives = DIRECTIVES
    return ext


extensions = [_ext(m, f) for m, f in MODULES.items() if os.path.exists(m.replace(".", "/") + ".pyx")]

try:
    from Cython.Distutils import build_ext
except ImportError:
    # Outside pip's build environment (pyproject's build requirements), e.g. `python setup.py
    # build_py`, which needs no compiler: the extensions then say what they lack when built.
    from setuptools.command.build_ext import build_ext as _plain_build_ext

    class build_ext(_plain_build_ext):  # noqa: N801 (the name Cython's class has)
        def run(self):
            raise SystemExit("kernelnb: building the Cython extensions needs Cython>=3.0 "
                             "(pip install 'Cython>=3.0', or pip install . which installs "
                             "pyproject.toml's build requirements)")


class ParallelBuildExt(build_ext):
    """Builds the extensions side by side (``build_ext --parallel`` on every core by default).

    Cython's ``build_ext`` translates each ``.pyx`` inside its own worker, so one module's C
    compiler run overlaps the next module's translation: the six modules take about half the
    time on two cores (it matters for every ``pip install``, CI's included).  Threads, not
    processes: nothing re-imports this file."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1


def compile_catalogs(target_root):
    """Compile every catalog ``kernelnb/locale/<lang>/LC_MESSAGES/<domain>.po`` (the lab's
    ``kernelnb``, the course's ``kernelnb_course``) into ``<domain>.mo`` under ``target_root``
    (the build folder, or the checkout for an editable install), with Babel; the ``.mo`` files
    are build outputs, never committed, and the wheel carries them instead of the ``.po``
    sources. Returns the files written."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    locale = os.path.join("kernelnb", "locale")
    for lang in sorted(os.listdir(locale)) if os.path.isdir(locale) else []:
        folder = os.path.join(locale, lang, "LC_MESSAGES")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.endswith(".po"):
                written.append(_compile_catalog(os.path.join(folder, name), lang, target_root,
                                                read_po, write_mo))
    return written


def _compile_catalog(po, lang, target_root, read_po, write_mo):
    """One ``.po`` file compiled into its ``.mo`` under ``target_root``; returns the ``.mo``."""
    with open(po, "rb") as f:
        catalog = read_po(f, locale=lang, domain=os.path.basename(po)[:-3])
    mo = os.path.join(target_root, po[:-3] + ".mo")
    os.makedirs(os.path.dirname(mo), exist_ok=True)
    with open(mo, "wb") as f:
        write_mo(f, catalog, use_fuzzy=False)
    return mo


class BuildWithDashboards(build_py):
    """Copies the repository's ``dashboards/*.ipynb`` into the package (``kernelnb/lab/dashboards``),
    so that an installed kernelnb serves them; an editable install reads the checkout's folder.
    Compiles the translations (``kernelnb/locale``: the lab's and the course's catalogs) into the
    package, and for an editable install into the checkout, where the package finds them."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            compile_catalogs(".")
            return
        compile_catalogs(self.build_lib)
        target = os.path.join(self.build_lib, "kernelnb", "lab", "dashboards")
        os.makedirs(target, exist_ok=True)
        for name in sorted(os.listdir("dashboards")):
            if name.endswith(".ipynb"):
                shutil.copyfile(os.path.join("dashboards", name), os.path.join(target, name))


setup(
    cmdclass={"build_py": BuildWithDashboards, "build_ext": ParallelBuildExt},
    ext_modules=extensions,
)
