"""The ``kernelnb`` console command, which works with the library alone.

``kernelnb --version`` prints the version. ``kernelnb serve`` and ``kernelnb lab`` are the lab's
(:mod:`kernelnb.lab.cli`), which needs the ``lab`` extra (Voila, JupyterLab, plotly, ...): this
module imports nothing of it until a command asks for it, and when a package of that extra is
missing it says so in one line, naming the extra to install, and exits with status 2 (argparse's
status for a command that cannot run as given) instead of a traceback.
"""
from __future__ import annotations

import importlib.util
import sys

__all__ = ["LAB_MODULES", "missing_lab_modules", "main"]

#: The distributions of the ``lab`` extra (``pyproject.toml``) and the module each installs.
LAB_MODULES = {
    "plotly": "plotly",
    "anywidget": "anywidget",
    "contourpy": "contourpy",
    "ipywidgets": "ipywidgets",
    "jupyterlab_widgets": "jupyterlab_widgets",
    "voila": "voila",
    "jupyterlab": "jupyterlab",
    "jupyter_server": "jupyter_server",
    "ipykernel": "ipykernel",
    "psutil": "psutil",
    "Babel": "babel",
    "markdown-it-py": "markdown_it",
    "mdit-py-plugins": "mdit_py_plugins",
}

_INSTALL = "pip install 'kernelnb[lab]'"


def missing_lab_modules():
    """The distributions of the ``lab`` extra whose module cannot be found.

    Returns
    -------
    list of str
        Their names, in :data:`LAB_MODULES`'s order; empty when the lab can run.
    """
    missing = []
    for dist, module in LAB_MODULES.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a blocked or half-installed package
            found = False
        if not found:
            missing.append(dist)
    return missing


def _version():
    from . import __version__
    return __version__


def main(argv=None):
    """Run the ``kernelnb`` command.

    Parameters
    ----------
    argv : list of str or None, default=None
        The command's arguments; None: ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 for ``--version``; 2 when the lab's packages are missing; else the
        lab command's.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("--version", "-V"):
        print(f"kernelnb {_version()}")
        return 0
    missing = missing_lab_modules()
    if missing and argv[:1] in (["-h"], ["--help"]):
        print("usage: kernelnb --version | kernelnb {serve,lab} [options]\n"
              f"serve and lab need the lab extra: {_INSTALL}")
        return 0
    if missing:
        what = f"kernelnb {argv[0]}" if argv and not argv[0].startswith("-") else "kernelnb"
        print(f"{what}: the lab is not installed (missing {', '.join(missing)}); "
              f"install it with: {_INSTALL}", file=sys.stderr)
        return 2
    from .lab.cli import main as lab_main
    return lab_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
