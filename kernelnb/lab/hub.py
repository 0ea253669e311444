"""kernelnb under JupyterHub: what a student's single-user server runs.

Under a hub each student gets their own Jupyter server (``jupyterhub-singleuser``), spawned by the
hub and reached through its proxy at ``/user/<name>/``. kernelnb is not a separate program there:
the single-user server loads two Jupyter server extensions,

* ``voila``, whose render handler serves a dashboard at ``/user/<name>/voila/render/<path>``, and
* ``kernelnb.lab.server``, which adds the gallery at ``/user/<name>/kernelnb/`` and the status at
  ``/user/<name>/kernelnb/api/status``, puts the checked kernel websocket in place
  (:mod:`kernelnb.lab.server._websocket`) and gives Voila's render handler the "class is full" page,

and runs its kernels with :class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` as the server's
kernel manager: the budget, the culling and the memory limit of each kernel of ``kernelnb serve``,
per student. The hub does the
authentication (a student's cookie opens only their own server), starts and stops the servers,
and its idle culler (``jupyterhub-idle-culler``) stops a student's whole server.

:func:`singleuser_config` is that configuration as a Jupyter config dictionary (the shape of
``binder/jupyter_server_config.json``, which a repo2docker image built from ``binder/`` carries),
:func:`singleuser_args` the same as command-line options for ``c.Spawner.args``,
:func:`student_resources` the memory and CPU a student's server needs, and
:func:`link_dashboards` puts the dashboards inside a student's home folder, where the Voila
extension can render them.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .server._memory import KERNEL_MB, KERNEL_MEMORY_MIN_MB
from .server.config import KERNEL_MANAGER, as_options, dashboard_settings, kernel_settings

__all__ = ["GALLERY_PATH", "SERVER_MB", "link_dashboards", "singleuser_args", "singleuser_config",
           "student_resources"]

#: Where a student's single-user server shows the gallery (``c.Spawner.default_url``).
GALLERY_PATH = "/kernelnb/"

#: Resident memory of a single-user Jupyter server (``jupyterhub-singleuser`` with JupyterLab,
#: Voila and kernelnb's extensions), MB: 196 MB measured by tests/lab/test_hub.py with
#: jupyter_server 2.21, JupyterLab 4.6 and Voila 0.5.13, three students' mean.
SERVER_MB = 200


def _check_number(name, value, lo, integer=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if integer and int(value) != value:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < lo:
        raise ValueError(f"{name} must be at least {lo}, got {value!r}")


def singleuser_config(*, max_kernels=3, cull_unconnected=120.0, cull_idle=1200.0,
                      kernel_memory_mb=None) -> dict:
    """The Jupyter server configuration that makes a single-user server serve kernelnb.

    Parameters
    ----------
    max_kernels : int, default=3
        Most kernels one student runs at once (dashboards and notebooks); past it a dashboard
        answers HTTP 503 "the class is full". 0: no limit.
    cull_unconnected : float, default=120.0
        Seconds after which a kernel whose page has no websocket (a closed tab) is shut down;
        0: never.
    cull_idle : float, default=1200.0
        Seconds after which a kernel without any message is shut down even with its tab open;
        0: never.
    kernel_memory_mb : int or None, default=None
        Memory limit of each of the student's kernels, MB (see :mod:`kernelnb.lab.server._memory`): an
        allocation past it fails in the kernel (a dashboard shows the ``MemoryError``), and a
        kernel whose processes hold more is ended. None: the student's memory limit of
        :func:`student_resources` for ``max_kernels`` (1100 MB for 3 kernels), which a Zero to
        JupyterHub pod also has (``deploy/z2jh-values.yaml``), at least
        :data:`kernelnb.lab.server._memory.KERNEL_MEMORY_MIN_MB`; 0: no limit.

    Returns
    -------
    dict
        ``{class name: {trait: value}}``, as in a ``jupyter_server_config.json``.

    Examples
    --------
    >>> from kernelnb.lab.hub import singleuser_config
    >>> config = singleuser_config(max_kernels=2)
    >>> config["ServerApp"]["kernel_manager_class"]
    'kernelnb.lab.server._kernelpool.BudgetKernelManager'
    >>> config["BudgetKernelManager"]["max_kernels"]
    2
    """
    _check_number("max_kernels", max_kernels, 0, integer=True)
    _check_number("cull_unconnected", cull_unconnected, 0)
    _check_number("cull_idle", cull_idle, 0)
    if kernel_memory_mb is None:
        kernel_memory_mb = max(KERNEL_MEMORY_MIN_MB, student_resources(
            max_kernels=max(1, max_kernels))["mem_limit_mb"])
    _check_number("kernel_memory_mb", kernel_memory_mb, 0, integer=True)
    if 0 < kernel_memory_mb < KERNEL_MEMORY_MIN_MB:
        raise ValueError(f"kernel_memory_mb must be 0 (no limit) or at least "
                         f"{KERNEL_MEMORY_MIN_MB}, got {kernel_memory_mb!r}: a kernel holds about "
                         "450 MB before it computes anything")
    # kernelnb serve's settings (kernelnb.lab.server.config), in a Jupyter server
    return {
        "ServerApp": {
            "jpserver_extensions": {"voila": True, "kernelnb.lab.server": True},
            "kernel_manager_class": KERNEL_MANAGER,
        },
        **kernel_settings(max_kernels=max_kernels, cull_unconnected=cull_unconnected,
                          kernel_memory_mb=kernel_memory_mb, cull_idle=cull_idle),
        **dashboard_settings(),
    }


def singleuser_args(**kwargs) -> list[str]:
    """:func:`singleuser_config` as command-line options of ``jupyterhub-singleuser``.

    For ``c.Spawner.args`` in a ``jupyterhub_config.py`` (or ``hub.config.KubeSpawner.args`` in
    Zero to JupyterHub): a dictionary or list option is given once per item, the form traitlets'
    command line reads.

    Parameters
    ----------
    **kwargs
        The keyword arguments of :func:`singleuser_config`.

    Returns
    -------
    list of str
        Options ``--Class.trait=value``.

    Examples
    --------
    >>> from kernelnb.lab.hub import singleuser_args
    >>> args = singleuser_args(max_kernels=2)
    >>> "--BudgetKernelManager.max_kernels=2" in args
    True
    >>> "--ServerApp.jpserver_extensions=voila=True" in args
    True
    """
    return as_options(singleuser_config(**kwargs))


def student_resources(*, max_kernels=3, kernel_mb=KERNEL_MB, server_mb=SERVER_MB) -> dict:
    """Memory and CPU to give one student's single-user server.

    The memory limit holds the server and ``max_kernels`` kernels at ``kernel_mb`` each (so the
    kernel budget, not the kernel, meets the limit first); the guarantee holds the server and one
    kernel, what a student with one dashboard open uses. A kernel computes on one thread
    (``OMP_NUM_THREADS=1``): one core is the most a student can use, a tenth of one is guaranteed
    (a dashboard waits for its student most of the time).

    Parameters
    ----------
    max_kernels : int, default=3
        The per-student kernel budget (:func:`singleuser_config`); at least 1.
    kernel_mb : float, default=KERNEL_MB
        Memory planned per kernel, MB (:data:`kernelnb.lab.server._kernelpool.KERNEL_MB`).
    server_mb : float, default=SERVER_MB
        Memory of the single-user server itself, MB.

    Returns
    -------
    dict
        ``mem_limit_mb``, ``mem_guarantee_mb``, ``cpu_limit`` and ``cpu_guarantee``.

    Examples
    --------
    >>> from kernelnb.lab.hub import student_resources
    >>> student_resources(max_kernels=3, kernel_mb=300, server_mb=150)["mem_limit_mb"]
    1050
    """
    _check_number("max_kernels", max_kernels, 1, integer=True)
    _check_number("kernel_mb", kernel_mb, 1)
    _check_number("server_mb", server_mb, 1)
    return {"mem_limit_mb": int(server_mb + max_kernels * kernel_mb),
            "mem_guarantee_mb": int(server_mb + kernel_mb),
            "cpu_limit": 1.0, "cpu_guarantee": 0.1}


def link_dashboards(home, name="dashboards") -> Path:
    """Make the installed dashboards reachable from a student's home folder.

    Voila's render handler serves notebooks under the server's root folder (the student's home):
    this puts a symbolic link ``<home>/<name>`` to :func:`kernelnb.lab.server.gallery.dashboards_dir`
    there (on a shared host, from ``c.Spawner.pre_spawn_hook``). A folder or link already there is
    left alone (a student's own copy, or an image that carries the dashboards, as one built from
    ``binder/`` does).

    Parameters
    ----------
    home : str or pathlib.Path
        The student's home folder (created if missing).
    name : str, default="dashboards"
        The link's name, which the gallery looks for.

    Returns
    -------
    pathlib.Path
        The path of the dashboards folder inside ``home``.
    """
    from .server.gallery import dashboards_dir
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be a plain, visible folder name, got {name!r}")
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    target = home / name
    if not (target.exists() or target.is_symlink()):
        os.symlink(dashboards_dir(), target, target_is_directory=True)
    return target


if __name__ == "__main__":  # pragma: no cover - prints the configuration, for a hand check
    print(json.dumps(singleuser_config(), indent=2))
