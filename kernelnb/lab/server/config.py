"""The server's configuration, built in one place.

``kernelnb serve`` (:func:`kernelnb.lab.cli.serve_argv`, as command-line options of
:class:`kernelnb.lab.server.app.KernelnbVoila`), the JupyterHub single-user server
(:func:`kernelnb.lab.hub.singleuser_config`) and Binder (``binder/jupyter_server_config.json``, that
configuration written out) all take their Voila and kernel settings from here:
:func:`dashboard_settings` (how a dashboard page is rendered: no code, no template or theme from
the URL, the widget extensions only, the page's language passed to its kernel, a patient executor)
and :func:`kernel_settings` (the kernel budget, culling and memory limit of
:class:`kernelnb.lab.server._kernelpool.BudgetKernelManager`), each ``{class name: {trait:
value}}`` as in a ``jupyter_server_config.json``; :func:`as_options` writes such a configuration as
``--Class.trait=value`` options. Also here, as what the command line and the server both read:
:func:`is_loopback` and :func:`preheat_plan`. This module imports neither the server nor Voila.
"""
from __future__ import annotations

import ipaddress
from pathlib import Path

__all__ = ["EXTENSION_ALLOWLIST", "KERNEL_MANAGER", "IOPUB_TIMEOUT", "dashboard_settings",
           "kernel_settings", "as_options", "is_loopback", "preheat_plan"]

#: The kernel manager class that holds the kernels to a budget (by its import path, as the
#: configuration names it).
KERNEL_MANAGER = "kernelnb.lab.server._kernelpool.BudgetKernelManager"

#: Seconds a page's execution waits for its kernel's output. nbclient's default of 4 s without
#: output fails a page when many cold kernels share few cores (benchmarks/bench_dashboards_load.py).
IOPUB_TIMEOUT = 60

#: The JupyterLab extensions a dashboard page loads (``kernelnb serve``, the JupyterHub service's
#: configuration, :mod:`kernelnb.lab.hub`, and Binder's: :func:`dashboard_settings`): the widgets' (Voila's widget manager for
#: ipywidgets 8 or 7, ipywidgets' controls) and anywidget's (the figures). Voila otherwise loads
#: every JupyterLab extension of the environment into its page: those written for JupyterLab's
#: own pages (notebook's, nbgrader's, ...) fail there with console errors (Voila issues #1499,
#: #1514), and the others (plotly's MIME renderer with its own copy of plotly.js, the preview
#: button, the Pygments styles of code a page does not show) are fetched and run for nothing.
EXTENSION_ALLOWLIST = ("@voila-dashboards/widgets-manager8", "@voila-dashboards/widgets-manager7",
                       "@jupyter-widgets/jupyterlab-manager", "anywidget")


def dashboard_settings() -> dict:
    """How Voila renders a dashboard page, wherever kernelnb's dashboards are served.

    Returns
    -------
    dict
        ``{"VoilaConfiguration": {...}, "VoilaExecutor": {...}}``: sources stripped, tracebacks
        not shown, the widget extensions only (:data:`EXTENSION_ALLOWLIST`), no template or theme
        named by the page's URL (``?template=``, ``?theme=`` name folders on the server; Voila
        0.5.8 does not check the name), the page's ``Accept-Language`` passed to the kernel
        started for it (:func:`kernelnb.lab.app._urlstate.page_language`), and
        :data:`IOPUB_TIMEOUT`.

    Examples
    --------
    >>> from kernelnb.lab.server.config import dashboard_settings
    >>> dashboard_settings()["VoilaConfiguration"]["strip_sources"]
    True
    """
    return {
        "VoilaConfiguration": {
            "strip_sources": True,
            "show_tracebacks": False,
            "extension_allowlist": list(EXTENSION_ALLOWLIST),
            "allow_template_override": "NO",
            "allow_theme_override": "NO",
            "http_header_envs": ["Accept-Language"],
        },
        "VoilaExecutor": {"iopub_timeout": IOPUB_TIMEOUT},
    }


def kernel_settings(*, max_kernels: int, cull_unconnected: float, kernel_memory_mb: int,
                    cull_idle: float) -> dict:
    """The kernel budget, culling and memory limit (values checked by the caller).

    Parameters
    ----------
    max_kernels : int
        Most kernels at once (0: no limit).
    cull_unconnected : float
        Seconds after which a kernel whose page has no websocket is shut down (0: never).
    kernel_memory_mb : int
        Each kernel's memory limit, MB (:mod:`kernelnb.lab.server._memory`; 0: none).
    cull_idle : float
        Seconds without a message after which Jupyter's idle culler shuts a kernel down, its tab
        open or not (0: never).

    Returns
    -------
    dict
        ``{"BudgetKernelManager": {...}}``, with ``"MappingKernelManager"`` when ``cull_idle``.
    """
    config = {"BudgetKernelManager": {"max_kernels": int(max_kernels),
                                      "cull_unconnected": float(cull_unconnected),
                                      "kernel_memory_mb": int(kernel_memory_mb)}}
    if cull_idle > 0:
        config["MappingKernelManager"] = {
            "cull_idle_timeout": int(cull_idle),
            "cull_interval": max(1, min(60, int(cull_idle // 4))),
            "cull_connected": True,
        }
    return config


def _option_values(value):
    if isinstance(value, bool):
        return [str(value)]
    if isinstance(value, dict):
        return [f"{k}={_option_values(v)[0]}" for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def as_options(config: dict) -> list[str]:
    """A ``{class name: {trait: value}}`` configuration as traitlets command-line options.

    A dictionary or list option is given once per item, the form traitlets' command line reads
    (it deprecates the one-string form).

    Parameters
    ----------
    config : dict
        As :func:`dashboard_settings` or :func:`kernel_settings` return.

    Returns
    -------
    list of str
        Options ``--Class.trait=value``.

    Examples
    --------
    >>> from kernelnb.lab.server.config import as_options
    >>> as_options({"VoilaExecutor": {"iopub_timeout": 60}, "A": {"b": ["x", "y"]}})
    ['--VoilaExecutor.iopub_timeout=60', '--A.b=x', '--A.b=y']
    """
    return [f"--{cls}.{trait}={v}" for cls, traits in config.items()
            for trait, value in traits.items() for v in _option_values(value)]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback name or address (127.0.0.0/8, ::1, localhost).

    Parameters
    ----------
    host : str
        A host name or an IP address (an IPv6 address may be in brackets).

    Returns
    -------
    bool
        True for a loopback address or a loopback interface's name.
    """
    if host in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def preheat_plan(directory: Path, total: int, names: str | None = None) -> dict:
    """How many preheated kernels to keep for each dashboard: ``total`` shared evenly.

    Parameters
    ----------
    directory : pathlib.Path
        The dashboards folder.
    total : int
        Preheated kernels in all (``--preheat``); 0 or less: none.
    names : str or None, default=None
        Comma-separated dashboard names (``--preheat-dashboards``); None: every dashboard of the
        gallery. When ``total`` does not divide evenly, the first ones in gallery order get one
        more.

    Returns
    -------
    dict
        {notebook file: kernels to keep preheated}, without the dashboards that get none.
    """
    if total <= 0:
        return {}
    from .gallery import gallery_entries
    entries = gallery_entries(directory)
    available = {e.name: e.notebook for e in entries}
    if names:
        wanted = [n.strip().removesuffix(".ipynb") for n in names.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in available]
        if unknown:
            raise SystemExit(f"kernelnb serve: --preheat-dashboards: unknown dashboard(s) "
                             f"{', '.join(unknown)}; available: {', '.join(available)}")
        chosen = list(dict.fromkeys(wanted))
    else:
        chosen = list(available)
    if not chosen:
        return {}
    base, rest = divmod(total, len(chosen))
    plan = {available[n]: base + (i < rest) for i, n in enumerate(chosen)}
    return {nb: k for nb, k in plan.items() if k > 0}
