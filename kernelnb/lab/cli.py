"""The ``kernelnb`` command.

``kernelnb serve``  the dashboards (Voila, code hidden) with a gallery at ``/``, on 127.0.0.1:8866.
``kernelnb lab``    JupyterLab on the course notebooks, on 127.0.0.1:8888, with Jupyter's token.

Both bind to the loopback interface unless ``--host`` says otherwise. ``serve`` refuses a public
address without a token (``--token`` or ``KERNELNB_TOKEN``) unless ``--allow-unauthenticated`` says
so, answers only requests that name it (the loopback names, ``--host``, ``--allow-host NAME``: see
:mod:`kernelnb.lab.server._security`), caps its kernels (``--max-kernels``) and each kernel's memory
(``--kernel-memory``), reclaims abandoned ones (``--cull-unconnected``, ``--cull-idle``) and can
keep dashboards preheated (``--preheat``); its pages speak the reader's language, English unless
``--lang`` says otherwise (each page may ask for another, by its URL or its browser). Options that
``serve`` does not know are handed to Voila, and likewise to JupyterLab for ``lab``; an address or
a token among them is treated as ``--host`` / ``--token``.
"""
from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import sys
from pathlib import Path

from .server.config import is_loopback, preheat_plan

__all__ = ["main", "build_parser", "serve_argv", "lab_command", "is_loopback", "preheat_plan",
           "serve_language_env", "TOKEN_ENV"]

#: Environment variable read for the token of ``kernelnb serve`` (kept out of ``ps``).
TOKEN_ENV = "KERNELNB_TOKEN"

# Pass-through options that set the address or the token (--Voila.ip=..., --ServerApp.ip ...).
_IP_OPTION = re.compile(r"^--(?:[A-Za-z_][\w]*\.)?ip$", re.IGNORECASE)
_TOKEN_OPTION = re.compile(r"^--(?:[A-Za-z_][\w]*\.)?token$", re.IGNORECASE)

_BANNER = "!" * 78


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


def _bounded(convert, lo, hi, what):
    """An argparse type: ``convert(text)`` within [lo, hi] (NaN refused), else a message."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} from {lo} to {hi}, got {text!r}")
        return value
    return parse


_seconds = _bounded(float, 0, 7 * 86400, "seconds")
_count = _bounded(int, 0, 10_000, "a whole number")
_megabytes = _bounded(int, 0, 2**24, "megabytes")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``kernelnb`` command.

    Returns
    -------
    argparse.ArgumentParser
        The parser, with the ``serve`` and ``lab`` subcommands.
    """
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
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="also answer requests for this host name (repeatable): the name of a "
                            "class's server or of a reverse proxy in front. Otherwise only the "
                            "loopback names (localhost, 127.0.0.1, [::1]), the --host address "
                            "and, off loopback, the server's own host name are answered; a request "
                            "naming another host gets 403, as a web page's DNS-rebinding attempt "
                            "would. '*': any name (a proxy in front checks it)")
    serve.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    serve.add_argument("--dashboards", metavar="DIR", type=Path, default=None,
                       help="folder of dashboard notebooks (default: the installed dashboards)")
    serve.add_argument("--token", default=None,
                       help="require this token (?token=...) on every page; default: the "
                            f"{TOKEN_ENV} environment variable (not shown by ps), else none: "
                            "the loopback binding is the protection")
    serve.add_argument("--allow-unauthenticated", action="store_true",
                       help="serve on a non-loopback --host without a token (anyone who reaches "
                            "the address can run the dashboards' kernels)")
    serve.add_argument("--base-url", default="/", help="URL prefix, for a reverse proxy (default /)")
    serve.add_argument("--max-kernels", type=_count, default=None, metavar="N",
                       help="most dashboard kernels at once, preheated ones included; past it a "
                            "page answers 503 'the class is full' (default: what 3/4 of this "
                            "machine's memory holds at ~300 MB a kernel, at least 4; 0: no limit)")
    serve.add_argument("--preheat", type=_count, default=0, metavar="N",
                       help="keep N kernels that have already run a dashboard ready, shared "
                            "among the dashboards (default 0: every page starts a kernel)")
    serve.add_argument("--preheat-dashboards", default=None, metavar="NAMES",
                       help="comma-separated dashboards to preheat (e.g. svm_playground); "
                            "default: all, --preheat shared evenly")
    serve.add_argument("--cull-unconnected", type=_seconds, default=120.0, metavar="SECONDS",
                       help="shut down a kernel whose page has had no connection for this long "
                            "(never opened, tab closed); default 120, 0: never")
    serve.add_argument("--kernel-threads", type=_count, default=None, metavar="N",
                       help="BLAS and OpenMP threads of each dashboard kernel (default 1, unless "
                            "OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS are set: "
                            "kernels that each spread over every core slow each other down "
                            "several times over when a class computes at once)")
    serve.add_argument("--cull-idle", type=_seconds, default=1200.0, metavar="SECONDS",
                       help="shut down a kernel idle this long, even with its tab open; "
                            "default 1200 (20 min), 0: never")
    serve.add_argument("--kernel-memory", type=_megabytes, default=None, metavar="MB",
                       help="memory limit of each dashboard kernel, MB: an allocation past it "
                            "fails in the kernel (the dashboard shows a MemoryError), and a "
                            "kernel whose processes hold more is ended (default: two kernels at "
                            "their limit fit in the memory the kernel budget leaves unplanned, "
                            "at least 1536 MB, at most half the machine; 0: no limit)")
    serve.add_argument("--lang", choices=("en", "fr"), default=None,
                       help="the pages' language when neither the page's URL (?lang=) nor the "
                            "reader's browser asks for one the lab speaks (default: the "
                            "KERNELNB_LANG environment variable, else en)")
    serve.add_argument("--no-fork-kernels", dest="fork_kernels", action="store_false",
                       help="start every dashboard kernel as a new Python process (by default, "
                            "on Linux, kernels are forked from one process that has already "
                            "imported what they need: a page without a preheated kernel opens "
                            "seconds sooner)")

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
    lab.add_argument("--lang", choices=("en", "fr"), default="en",
                     help="the course's language (default en): fr generates the French notebooks "
                          "(DIR/fr/, from the catalogs in DIR/locale/fr/) and opens them")
    return parser


def _resolve_dashboards(arg: Path | None) -> Path:
    if arg is not None:
        path = arg.expanduser().resolve()
        if not path.is_dir():
            raise SystemExit(f"kernelnb serve: --dashboards {str(arg)!r} is not a directory")
        return path
    from .server.gallery import dashboards_dir
    try:
        return dashboards_dir()
    except FileNotFoundError as exc:
        raise SystemExit(str(exc)) from None


def _pop_option(extra: list[str], pattern) -> tuple[list[str], list[str]]:
    """Split ``extra`` into (values of options matching ``pattern``, the other options)."""
    values, rest = [], []
    i = 0
    while i < len(extra):
        opt = extra[i]
        key, eq, value = opt.partition("=")
        if pattern.match(key):
            if not eq:
                if i + 1 < len(extra) and not extra[i + 1].startswith("--"):
                    value = extra[i + 1]
                    i += 1
                else:
                    value = ""
            values.append(value.strip().strip("'\""))
        else:
            rest.append(opt)
        i += 1
    return values, rest


def normalize_serve_args(args: argparse.Namespace, extra: list[str],
                         environ=None) -> tuple[argparse.Namespace, list[str]]:
    """Fold pass-through address/token options and ``KERNELNB_TOKEN`` into ``args``.

    ``--Voila.ip=0.0.0.0`` (or any ``--X.ip``) means ``--host 0.0.0.0``; ``--Voila.token=...``
    means ``--token``. Conflicting values are refused rather than guessed.
    """
    environ = os.environ if environ is None else environ
    hosts, extra = _pop_option(extra, _IP_OPTION)
    tokens, extra = _pop_option(extra, _TOKEN_OPTION)
    for h in hosts:
        if h != args.host and args.host != "127.0.0.1":
            raise SystemExit(f"kernelnb serve: --host {args.host!r} and an ip option {h!r} "
                             "disagree; give the address once, with --host")
        args.host = h
    for t in tokens:
        if args.token is not None and t != args.token:
            raise SystemExit("kernelnb serve: --token and a token option disagree; give the "
                             "token once")
        args.token = t
    if args.token is None and environ.get(TOKEN_ENV):
        args.token = environ[TOKEN_ENV]
    if args.token == "":
        args.token = None
    return args, extra


def _allowed_hosts(args: argparse.Namespace) -> list[str]:
    """The ``--allow-host`` names, checked: a host name (letters, digits, '-', '.', '_'), an IP
    address, or '*'; a port or a scheme is refused (the port is never checked)."""
    names = []
    for name in getattr(args, "allow_host", None) or []:
        name = name.strip()
        bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        valid = name == "*" or re.fullmatch(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})", name)
        if not valid:
            try:
                ipaddress.ip_address(bare)
                valid = True
            except ValueError:
                pass
        if not valid:
            raise SystemExit(f"kernelnb serve: --allow-host {name!r} is not a host name or an IP "
                             "address (give the name alone, without a scheme, a port or a path, "
                             "e.g. --allow-host class.example.org)")
        names.append(bare)
    return names


def check_binding(args: argparse.Namespace) -> None:
    """Refuse a public address without a token unless ``--allow-unauthenticated`` is given."""
    if is_loopback(args.host) or args.token:
        return
    if not args.allow_unauthenticated:
        raise SystemExit(
            f"kernelnb serve: refusing to listen on {args.host!r} (not this machine's loopback "
            f"interface) without a token: anyone reaching it could run code in the dashboards' "
            f"kernels.\nGive a token with --token SECRET (or the {TOKEN_ENV} environment "
            f"variable, which ps does not show), or say --allow-unauthenticated if a proxy or "
            f"firewall in front of this server does the authentication.")


def serve_argv(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """The command-line arguments of :class:`kernelnb.lab.server.app.KernelnbVoila` for ``kernelnb serve``.

    Computed without side effects (testable).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``serve`` options (after :func:`normalize_serve_args`).
    extra : list of str
        Options ``serve`` does not know, passed on to Voila after kernelnb's own.

    Returns
    -------
    list of str
        The dashboards folder followed by Voila's options.
    """
    from .server._kernelpool import default_max_kernels
    from .server._memory import KERNEL_MEMORY_MIN_MB, default_kernel_memory_mb
    from .server.config import KERNEL_MANAGER, as_options, dashboard_settings, kernel_settings
    directory = _resolve_dashboards(args.dashboards)
    max_kernels = default_max_kernels() if args.max_kernels is None else args.max_kernels
    kernel_memory = getattr(args, "kernel_memory", None)
    if kernel_memory is None:
        kernel_memory = default_kernel_memory_mb(max_kernels)
    elif 0 < kernel_memory < KERNEL_MEMORY_MIN_MB:
        raise SystemExit(f"kernelnb serve: --kernel-memory {kernel_memory} is too little: a "
                         f"dashboard kernel holds about 450 MB before it computes anything; give "
                         f"at least {KERNEL_MEMORY_MIN_MB} (or 0: no limit)")
    preheat = getattr(args, "preheat", 0) or 0
    if max_kernels and preheat > max_kernels:
        raise SystemExit(f"kernelnb serve: --preheat {preheat} is more than --max-kernels "
                         f"{max_kernels}: the preheated kernels count against the limit")
    cull_idle = getattr(args, "cull_idle", 1200.0)
    cull_unconnected = getattr(args, "cull_unconnected", 120.0)
    argv = [
        str(directory),
        f"--Voila.ip={args.host}",
        f"--Voila.port={args.port}",
        "--Voila.port_retries=0",          # the port asked for, or a clear failure
        f"--Voila.base_url={args.base_url}",
        "--Voila.open_browser=" + ("False" if args.no_browser else "True"),
    ]
    if args.token is not None:
        argv.append(f"--Voila.token={args.token}")
    # the Host names answered besides the loopback ones and --host (kernelnb.lab.server._security)
    argv += [f"--KernelnbVoila.allow_hosts={name}" for name in _allowed_hosts(args)]
    # How a page is rendered, as on JupyterHub and Binder (kernelnb.lab.server.config); later
    # options (``extra``) still override it.
    argv += as_options(dashboard_settings())
    if os.name == "posix":
        # Kernels talk to the server over Unix sockets in Voila's private connection folder:
        # no TCP port that another user of the machine could reach, and none of the kernels'
        # "Kernel is running over TCP without encryption" warnings, one per page opened.
        argv.append("--KernelManager.transport=ipc")
    # Kernels: the budget, the culling and each kernel's memory limit; Jupyter's idle culler also
    # takes kernels whose tab is still open, after cull_idle seconds without a message.
    argv.append(f"--VoilaConfiguration.multi_kernel_manager_class={KERNEL_MANAGER}")
    argv += as_options(kernel_settings(max_kernels=max_kernels, cull_unconnected=cull_unconnected,
                                       kernel_memory_mb=kernel_memory, cull_idle=cull_idle))
    if not getattr(args, "fork_kernels", True):
        argv.append("--KernelnbVoila.fork_kernels=False")
    plan = preheat_plan(directory, preheat, getattr(args, "preheat_dashboards", None))
    if plan:
        # Voila's pools, kept by kernelnb within the budget: KernelnbVoila turns the plan into
        # VoilaKernelManager.kernel_pools_config (0 for the dashboards not in it).
        argv += ["--VoilaConfiguration.preheat_kernel=True",
                 "--VoilaConfiguration.default_pool_size=0",
                 f"--KernelnbVoila.preheat_plan={json.dumps(plan)}"]
    return argv + list(extra)


THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def kernel_thread_env(args: argparse.Namespace, environ=None) -> dict[str, str]:
    """The environment variables that set the dashboard kernels' thread pools (testable, no side
    effect): ``--kernel-threads N`` sets all three to N; without it each one the user has not set
    becomes 1.

    Why one: a kernel's BLAS (numpy's and scipy's OpenBLAS) and kernelnb's OpenMP loops each start
    a thread per core, and threads that wait on each other spin: two kernels computing at once
    on threads of every core each take many times longer than on one thread each, while one
    kernel alone gains little from a second thread (benchmarks/results/kernel_threads.json)."""
    environ = os.environ if environ is None else environ
    n = getattr(args, "kernel_threads", None)
    if n is not None:
        if n < 1:
            raise SystemExit(f"kernelnb serve: --kernel-threads must be at least 1, got {n}")
        return {name: str(n) for name in THREAD_ENV}
    return {name: "1" for name in THREAD_ENV if not environ.get(name)}


def serve_language_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment that gives ``kernelnb serve``'s pages their default language.

    The server's and its kernels' (:data:`kernelnb.lab.i18n.DEFAULT_ENV`); testable, no side
    effect.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``serve`` options (``--lang``).

    Returns
    -------
    dict
        ``{"KERNELNB_LANG": lang}`` with ``--lang``; empty without it (a ``KERNELNB_LANG``
        exported by the user then holds, else English).
    """
    from .i18n import DEFAULT_ENV
    lang = getattr(args, "lang", None)
    if lang is None:
        return {}
    return {DEFAULT_ENV: lang}


def _find_notebooks(arg: Path | None) -> Path:
    if arg is not None:
        path = arg.expanduser().resolve()
        if not path.is_dir():
            raise SystemExit(f"kernelnb lab: --notebooks {str(arg)!r} is not a directory")
        return path
    cwd = Path.cwd() / "notebooks"
    if cwd.is_dir():
        return cwd.resolve()
    from .server.gallery import _checkout_dir
    checkout = _checkout_dir("notebooks")
    if checkout is not None:
        return checkout
    raise SystemExit("kernelnb lab: no notebooks/ folder here nor in a kernelnb checkout; "
                     "pass --notebooks DIR")


def _translated_notebooks(root: Path, lang: str) -> Path:
    """The course notebooks of ``root`` in ``lang``, generated into ``root/lang``."""
    from .i18n.notebooks import build
    try:
        reports = build(root, lang, keep_newer=True)
    except ValueError as exc:
        raise SystemExit(f"kernelnb lab: --lang {lang}: {exc}") from None
    left = sum(len(r.missing) for r in reports)
    if left:
        print(f"kernelnb lab: {left} passage(s) of the notebooks have no {lang} translation yet "
              "and are shown in English", file=sys.stderr)
    return root / lang


def lab_command(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """The JupyterLab command line of ``kernelnb lab``, with Jupyter's token authentication on.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``lab`` options.
    extra : list of str
        Options ``lab`` does not know, passed on to JupyterLab; one that empties the token or
        disables the check is refused.

    Returns
    -------
    list of str
        The command: this Python running ``jupyterlab`` with its options. With ``--lang fr``
        its folder is the French notebooks', generated first (a French notebook newer than its
        English notebook and its catalog, one the student changed, is kept).
    """
    for opt in extra:
        low = opt.lower()
        if (".token=" in low and low.split("=", 1)[1] in ("", "''", '""')) or "disable_check" in low:
            raise SystemExit(f"kernelnb lab: refusing {opt!r}: the lab keeps Jupyter's token "
                             "authentication (it can run any code on this machine)")
    root = _find_notebooks(args.notebooks)
    if getattr(args, "lang", "en") != "en":
        root = _translated_notebooks(root, args.lang)
    cmd = [
        sys.executable, "-m", "jupyterlab",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.ip={args.host}",
        f"--ServerApp.port={args.port}",
        "--ServerApp.port_retries=0",
    ]
    if args.no_browser:
        cmd.append("--no-browser")
    return cmd + list(extra)


def main(argv: list[str] | None = None) -> int:
    """Run the ``kernelnb`` command.

    Parameters
    ----------
    argv : list of str or None, default=None
        The command's arguments; None: ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status (``kernelnb lab`` replaces this process on POSIX systems).
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        args, extra = normalize_serve_args(args, extra)
    bad = [e for e in extra if not e.startswith("--")]
    if bad:
        parser.error(f"unrecognized arguments: {' '.join(bad)}")

    if args.command == "serve":
        check_binding(args)
        if not is_loopback(args.host):
            _warn_public(args.host, "serve")
        vargv = serve_argv(args, extra)
        # inherited by every kernel the server starts
        os.environ.update(kernel_thread_env(args))
        os.environ.update(serve_language_env(args))
        from .server.app import KernelnbVoila
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
