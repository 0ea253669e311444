"""The ``kernelnb`` command.

``kernelnb serve``  the dashboards (Voila, code hidden) with a gallery at ``/``, on 127.0.0.1:8866.
``kernelnb lab``    JupyterLab on the course notebooks, on 127.0.0.1:8888, with Jupyter's token.

Both bind to the loopback interface unless ``--host`` says otherwise, and warn loudly when it does.
Options that ``serve`` does not know are handed to Voila (``--VoilaConfiguration.preheat_kernel=True``,
``--MappingKernelManager.cull_idle_timeout=600``, ...), and likewise to JupyterLab for ``lab``.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path

__all__ = ["main", "build_parser", "serve_argv", "lab_command", "is_loopback"]

_BANNER = "!" * 78


def is_loopback(host: str) -> bool:
    """True when ``host`` names only this machine (127.0.0.0/8, ::1, localhost)."""
    if host in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _warn_public(host: str, what: str) -> None:
    print(f"\n{_BANNER}\nkernelnb {what}: listening on host {host!r}, which is NOT the loopback "
          f"interface.\nAnyone who can reach this machine on that address can open the pages"
          f"{' and run code in its kernels' if what == 'serve' else ''}.\nUse this only behind a "
          f"firewall, a reverse proxy or JupyterHub (see the README, 'Hosting the dashboards for "
          f"a class').\n{_BANNER}\n", file=sys.stderr, flush=True)


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be an integer, got {text!r}") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"--port must be in 1..65535, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``kernelnb``."""
    parser = argparse.ArgumentParser(
        prog="kernelnb",
        description="kernelnb: a kernel-methods lab (dashboards and course notebooks).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    serve = sub.add_parser(
        "serve", help="serve the dashboards with Voila (gallery at /)",
        description="Serve the dashboards with Voila: a gallery at / links every dashboard at "
                    "/voila/render/<name>.ipynb; code cells are hidden. Unknown options are "
                    "passed to Voila (e.g. --VoilaConfiguration.preheat_kernel=True).")
    serve.add_argument("--port", type=_port, default=8866, help="port (default 8866)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default 127.0.0.1: this machine only)")
    serve.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    serve.add_argument("--dashboards", metavar="DIR", type=Path, default=None,
                       help="folder of dashboard notebooks (default: the installed dashboards)")
    serve.add_argument("--token", default=None,
                       help="require this token (?token=...) on every page; default: none, "
                            "the loopback binding is the protection")
    serve.add_argument("--base-url", default="/", help="URL prefix, for a reverse proxy (default /)")

    lab = sub.add_parser(
        "lab", help="JupyterLab on the course notebooks (token authentication kept)",
        description="Start JupyterLab on the course notebooks with Jupyter's token authentication. "
                    "Unknown options are passed to JupyterLab.")
    lab.add_argument("--port", type=_port, default=8888, help="port (default 8888)")
    lab.add_argument("--host", default="127.0.0.1",
                     help="address to bind (default 127.0.0.1: this machine only)")
    lab.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    lab.add_argument("--notebooks", metavar="DIR", type=Path, default=None,
                     help="folder to open (default: ./notebooks, else the checkout's notebooks/)")
    return parser


def _resolve_dashboards(arg: Path | None) -> Path:
    if arg is not None:
        path = arg.expanduser().resolve()
        if not path.is_dir():
            raise SystemExit(f"kernelnb serve: --dashboards {str(arg)!r} is not a directory")
        return path
    from .app.gallery import dashboards_dir
    try:
        return dashboards_dir()
    except FileNotFoundError as exc:
        raise SystemExit(str(exc)) from None


def serve_argv(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """Command-line arguments for :class:`kernelnb.server.KernelnbVoila` (testable, no side effect)."""
    directory = _resolve_dashboards(args.dashboards)
    argv = [
        str(directory),
        f"--Voila.ip={args.host}",
        f"--Voila.port={args.port}",
        "--Voila.port_retries=0",          # the port asked for, or a clear failure
        f"--Voila.base_url={args.base_url}",
        "--VoilaConfiguration.strip_sources=True",
        "--Voila.open_browser=" + ("False" if args.no_browser else "True"),
    ]
    if args.token is not None:
        argv.append(f"--Voila.token={args.token}")
    # Executing a dashboard waits for its kernel's output; nbclient's default of 4 s without
    # output fails a page when many cold kernels share few cores (2 of 20 pages at once on 2
    # cores in benchmarks/bench_dashboards_load.py).  Later options (``extra``) still override it.
    argv.append("--VoilaExecutor.iopub_timeout=60")
    return argv + list(extra)


def _find_notebooks(arg: Path | None) -> Path:
    if arg is not None:
        path = arg.expanduser().resolve()
        if not path.is_dir():
            raise SystemExit(f"kernelnb lab: --notebooks {str(arg)!r} is not a directory")
        return path
    cwd = Path.cwd() / "notebooks"
    if cwd.is_dir():
        return cwd.resolve()
    from .app.gallery import _checkout_dir
    checkout = _checkout_dir("notebooks")
    if checkout is not None:
        return checkout
    raise SystemExit("kernelnb lab: no notebooks/ folder here nor in a kernelnb checkout; "
                     "pass --notebooks DIR")


def lab_command(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """The JupyterLab command line. Jupyter's token authentication is left on (never emptied)."""
    for opt in extra:
        low = opt.lower()
        if (".token=" in low and low.split("=", 1)[1] in ("", "''", '""')) or "disable_check" in low:
            raise SystemExit(f"kernelnb lab: refusing {opt!r}: the lab keeps Jupyter's token "
                             "authentication (it can run any code on this machine)")
    cmd = [
        sys.executable, "-m", "jupyterlab",
        f"--ServerApp.root_dir={_find_notebooks(args.notebooks)}",
        f"--ServerApp.ip={args.host}",
        f"--ServerApp.port={args.port}",
        "--ServerApp.port_retries=0",
    ]
    if args.no_browser:
        cmd.append("--no-browser")
    return cmd + list(extra)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kernelnb`` command."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    bad = [e for e in extra if not e.startswith("--")]
    if bad:
        parser.error(f"unrecognized arguments: {' '.join(bad)}")

    if args.command == "serve":
        if not is_loopback(args.host):
            _warn_public(args.host, "serve")
        vargv = serve_argv(args, extra)
        from .server import KernelnbVoila
        KernelnbVoila.launch_instance(argv=vargv)
        return 0

    if args.command == "lab":
        if not is_loopback(args.host):
            _warn_public(args.host, "lab")
        cmd = lab_command(args, extra)
        print("kernelnb lab: " + " ".join(cmd), file=sys.stderr, flush=True)
        if os.name == "posix":
            os.execv(cmd[0], cmd)
        import subprocess
        return subprocess.call(cmd)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
