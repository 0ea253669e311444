"""The recipes for a hub (``deploy/``) and the single-user configuration, checked without a hub.

Every option ``deploy/jupyterhub_config.py`` sets must be a configurable trait of the installed
JupyterHub's classes and hold a value that trait accepts; the Zero to JupyterHub values file's
``hub.config`` and the ``singleuser`` keys that the chart hands to KubeSpawner likewise (against
the installed ``jupyterhub-kubespawner``). Not checked: the chart's other keys (``cull``,
``prePuller``, ``scheduling``, ``singleuser.storage``...), whose schema (the chart's
``values.schema.json``) is not an installable package.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from traitlets import HasTraits
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from kernelnb.lab.hub import (
    GALLERY_PATH,
    link_dashboards,
    singleuser_args,
    singleuser_config,
    student_resources,
)

from ..conftest import REPO

pytest.importorskip("jupyterhub", reason="pip install -e '.[test]' installs JupyterHub")

DEPLOY = REPO / "deploy"


def _configurables():
    """{class name: class} of every configurable the recipes may name."""
    from jupyterhub.app import JupyterHub
    from jupyterhub.auth import Authenticator, LocalAuthenticator, PAMAuthenticator
    from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
    from jupyterhub.proxy import ConfigurableHTTPProxy
    from jupyterhub.spawner import LocalProcessSpawner, Spawner
    out = {c.__name__: c for c in (JupyterHub, Authenticator, LocalAuthenticator,
                                   PAMAuthenticator, SharedPasswordAuthenticator,
                                   ConfigurableHTTPProxy, Spawner, LocalProcessSpawner)}
    try:
        from kubespawner import KubeSpawner
    except ImportError:
        pass
    else:
        out["KubeSpawner"] = KubeSpawner
    return out


def check_config(config: Config, classes: dict) -> list[str]:
    """Problems with ``config``: an unknown class or trait, or a value the trait refuses."""
    problems = []
    for section, traits in config.items():
        cls = classes.get(section)
        if cls is None:
            problems.append(f"{section}: not a class JupyterHub configures")
            continue
        known = cls.class_traits(config=True)
        for name, value in traits.items():
            if name not in known:
                problems.append(f"{section}.{name}: no such option")
                continue
            # The class's own trait, on an object of its own: value checked as the class would.
            holder = type("Holder", (HasTraits,), {name: copy.copy(known[name])})()
            try:
                setattr(holder, name, value)
            except Exception as exc:  # noqa: BLE001 - reported with the option's name
                problems.append(f"{section}.{name} = {value!r}: {exc}")
    return problems


def load_recipe(environ_out=None) -> Config:
    """The single-host recipe's configuration. The recipe may set the hub's environment (the
    proxy's ``NODE_PATH``): put in ``environ_out`` (a dict) when given, and taken back out of
    this process's."""
    import os
    before = dict(os.environ)
    try:
        return PyFileConfigLoader("jupyterhub_config.py", str(DEPLOY)).load_config()
    finally:
        if environ_out is not None:
            environ_out.update(os.environ)
        os.environ.clear()
        os.environ.update(before)


def test_single_host_recipe_names_only_real_options():
    config = load_recipe()
    assert check_config(config, _configurables()) == []
    # What the recipe is for: kernelnb's single-user configuration, the gallery first.
    assert config.Spawner.default_url == GALLERY_PATH
    assert config.Spawner.args == singleuser_args(max_kernels=3, cull_unconnected=120,
                                                  cull_idle=1200)
    assert config.Spawner.environment["OMP_NUM_THREADS"] == "1"
    assert config.Spawner.mem_limit == f"{student_resources(max_kernels=3)['mem_limit_mb']}M"
    assert "--proxy-timeout=300000" in config.ConfigurableHTTPProxy.command


def test_the_recipes_proxy_finds_debians_modules(monkeypatch):
    """Debian's node-configurable-http-proxy keeps its modules where only Debian's Node.js looks:
    the recipe names that folder in NODE_PATH (kept, not repeated), which the hub passes to the
    proxy; without Debian's package it leaves NODE_PATH alone."""
    import os
    debian = "/usr/share/nodejs"
    monkeypatch.setenv("NODE_PATH", "/opt/mine")
    env = {}
    load_recipe(env)
    assert os.environ["NODE_PATH"] == "/opt/mine"             # this process's is given back
    if not os.path.isdir(f"{debian}/configurable-http-proxy"):
        assert env["NODE_PATH"] == "/opt/mine"
        return
    assert env["NODE_PATH"].split(os.pathsep) == ["/opt/mine", debian]
    monkeypatch.setenv("NODE_PATH", debian)
    env = {}
    load_recipe(env)
    assert env["NODE_PATH"] == debian


def test_the_checker_catches_a_misspelt_option():
    classes = _configurables()
    bad = Config({"Spawner": {"default_ulr": "/kernelnb/", "mem_limit": "lots"},
                  "JupyterHub": {"spawner_class": "no-such-spawner"},
                  "Spawnr": {"args": []}})
    problems = check_config(bad, classes)
    assert len(problems) == 4, problems
    assert any("Spawner.default_ulr: no such option" in p for p in problems)
    assert any(p.startswith("Spawner.mem_limit = 'lots'") for p in problems)
    assert any(p.startswith("JupyterHub.spawner_class") for p in problems)
    assert any(p.startswith("Spawnr:") for p in problems)


def test_the_recipes_pre_spawn_hook_links_the_dashboards(tmp_path):
    hook = load_recipe().Spawner.pre_spawn_hook

    class FakeSpawner:
        home_dir = str(tmp_path / "no-such-account-xyz")
        user = type("U", (), {"name": "no-such-account-xyz"})()

    hook(FakeSpawner())
    link = Path(FakeSpawner.home_dir) / "dashboards"
    from kernelnb.lab.server.gallery import dashboards_dir
    assert link.is_symlink() and link.resolve() == dashboards_dir().resolve()
    assert (link / "svm_playground.ipynb").is_file()
    # A folder already there (a student's own copy) is left alone.
    own = tmp_path / "own"
    (own / "dashboards").mkdir(parents=True)
    assert not link_dashboards(own).is_symlink()
    with pytest.raises(ValueError, match="name"):
        link_dashboards(own, name="../x")


def test_singleuser_config_names_only_real_options():
    from jupyter_server.serverapp import ServerApp
    from voila.configuration import VoilaConfiguration
    from voila.execute import VoilaExecutor

    from kernelnb.lab.server._kernelpool import BudgetKernelManager
    classes = {"ServerApp": ServerApp, "BudgetKernelManager": BudgetKernelManager,
               "MappingKernelManager": BudgetKernelManager,
               "VoilaConfiguration": VoilaConfiguration, "VoilaExecutor": VoilaExecutor}
    config = Config(singleuser_config())
    assert check_config(config, classes) == []
    # The command-line form parses back to the same configuration.
    app = ServerApp()
    app.parse_command_line(singleuser_args())
    for section, traits in singleuser_config().items():
        for name, value in traits.items():
            got = app.config[section][name]
            got = got.get_value(classes[section].class_traits()[name]) \
                if hasattr(got, "get_value") else got
            if isinstance(value, list) and isinstance(got, str):
                # a list of one item given once on the command line: the configurable built
                # from it holds [item] (its get_value alone gives the item)
                got = getattr(classes[section](config=app.config), name)
            assert got == value, (section, name, got, value)
    with pytest.raises(ValueError, match="max_kernels"):
        singleuser_config(max_kernels=-1)
    with pytest.raises(TypeError, match="cull_idle"):
        singleuser_config(cull_idle="never")


def test_each_students_kernel_is_held_to_the_students_memory():
    """A kernel's memory limit is, by default, the student's (what a Zero to JupyterHub pod is
    given: student_resources), at least what a kernel needs; 0 is none; less than a kernel holds
    before it computes is refused."""
    from kernelnb.lab.server._memory import KERNEL_MEMORY_MIN_MB
    for k in (1, 3, 5):
        got = singleuser_config(max_kernels=k)["BudgetKernelManager"]["kernel_memory_mb"]
        assert got == max(KERNEL_MEMORY_MIN_MB, student_resources(max_kernels=k)["mem_limit_mb"])
    assert singleuser_config()["BudgetKernelManager"]["kernel_memory_mb"] == 1100
    assert singleuser_config(kernel_memory_mb=0)["BudgetKernelManager"]["kernel_memory_mb"] == 0
    assert singleuser_config(kernel_memory_mb=2048)["BudgetKernelManager"][
        "kernel_memory_mb"] == 2048
    with pytest.raises(ValueError, match="kernel_memory_mb.*got 100"):
        singleuser_config(kernel_memory_mb=100)
    with pytest.raises(ValueError, match="kernel_memory_mb"):
        singleuser_config(kernel_memory_mb=1500.5)


def test_binder_config_is_the_singleuser_config():
    """The image built from binder/ (Binder, Zero to JupyterHub) runs what the tests run."""
    shipped = json.loads((REPO / "binder" / "jupyter_server_config.json").read_text())
    assert shipped == singleuser_config()


def test_student_resources_follow_the_kernel_budget():
    r = student_resources(max_kernels=3, kernel_mb=300, server_mb=150)
    assert r == {"mem_limit_mb": 1050, "mem_guarantee_mb": 450, "cpu_limit": 1.0,
                 "cpu_guarantee": 0.1}
    assert student_resources(max_kernels=5, kernel_mb=200, server_mb=100)["mem_limit_mb"] == 1100
    with pytest.raises(ValueError, match="max_kernels"):
        student_resources(max_kernels=0)


# Where the chart puts its singleuser keys (z2jh's jupyterhub_config.py): values path -> trait.
Z2JH_SINGLEUSER = {
    ("image",): "image",                       # name:tag
    ("defaultUrl",): "default_url",
    ("memory", "limit"): "mem_limit",
    ("memory", "guarantee"): "mem_guarantee",
    ("cpu", "limit"): "cpu_limit",
    ("cpu", "guarantee"): "cpu_guarantee",
    ("extraEnv",): "environment",
    ("startTimeout",): "start_timeout",
}


def test_z2jh_values_map_onto_kubespawner_and_jupyterhub_options():
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("kubespawner", reason="pip install -e '.[test]' installs kubespawner")
    values = yaml.safe_load((DEPLOY / "z2jh-values.yaml").read_text())
    classes = _configurables()
    assert check_config(Config(values["hub"]["config"]), classes) == []
    single = values["singleuser"]
    mapped = {}
    for path, trait in Z2JH_SINGLEUSER.items():
        node = single
        for key in path:
            node = node[key]
        if path == ("image",):
            node = f"{node['name']}:{node['tag']}"
        mapped[trait] = node
    assert check_config(Config({"KubeSpawner": mapped}), classes) == []
    # The numbers are kernelnb's.
    from jupyterhub.traitlets import ByteSpecification
    mb = ByteSpecification().validate(None, mapped["mem_limit"]) / 2**20
    want = student_resources(max_kernels=singleuser_config()["BudgetKernelManager"]["max_kernels"])
    assert mb == want["mem_limit_mb"]
    assert ByteSpecification().validate(None, mapped["mem_guarantee"]) / 2**20 == \
        want["mem_guarantee_mb"]
    assert (mapped["cpu_limit"], mapped["cpu_guarantee"]) == (want["cpu_limit"],
                                                             want["cpu_guarantee"])
    assert mapped["default_url"] == GALLERY_PATH
    assert mapped["environment"]["OMP_NUM_THREADS"] == "1"
    assert values["cull"]["enabled"] is True
