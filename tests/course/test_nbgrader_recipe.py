"""The nbgrader recipe (deploy/nbgrader/) names only real options and valid scopes, and sets up what
the cycle needs: the course's groups, the formgrader service with the scopes its token uses, the
students' servers with JupyterHub's default token, the shared exchange (on Kubernetes a
ReadWriteMany volume mounted in every student's pod)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

pytest.importorskip("jupyterhub")
pytest.importorskip("nbgrader")

from tests.lab.test_hub_recipe import _configurables, check_config   # noqa: E402

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "nbgrader"


def _scopes_valid(scopes):
    from jupyterhub.scopes import _check_scopes_exist
    _check_scopes_exist(set(scopes))      # raises on a scope JupyterHub does not define


def test_hub_part_names_real_options_and_scopes():
    config = PyFileConfigLoader("jupyterhub_nbgrader.py", str(DEPLOY)).load_config()
    for section in config.values():          # the lazy additions, as the hub resolves them
        for name, value in list(section.items()):
            if hasattr(value, "get_value"):
                section[name] = value.get_value({} if name == "load_groups" else
                                                set() if name == "allowed_users" else [])
    assert check_config(config, _configurables()) == []
    groups = config.JupyterHub.load_groups
    assert set(groups) == {"formgrade-kernelnb", "nbgrader-kernelnb"}
    service, = config.JupyterHub.services
    assert service["name"] == "kernelnb-course" and service["user"] == "grader-kernelnb"
    roles = {r["name"]: r for r in config.JupyterHub.load_roles}
    for role in roles.values():
        _scopes_valid(role["scopes"])
    used = set(roles["kernelnb-course-service"]["scopes"])
    # what nbgrader's JupyterHubAuthPlugin calls: GET /users/{name} (its groups), GET /groups,
    # POST /groups/{name}, POST and DELETE /groups/{name}/users
    assert {"read:users", "read:users:groups", "list:groups", "admin:groups", "groups"} <= used
    assert roles["formgrade-kernelnb"]["scopes"] == ["access:services!service=kernelnb-course"]
    # the servers keep JupyterHub's default token (its identify scopes read the user's groups,
    # what the course list needs): no "inherit", which would give them all their user may do
    assert "server_token_scopes" not in config.Spawner


def test_nbgrader_part_names_real_options():
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default.exchange import Exchange
    from nbgrader.preprocessors import Execute
    config = PyFileConfigLoader("nbgrader_config.py", str(DEPLOY)).load_config()
    classes = {"Exchange": Exchange, "CourseDirectory": CourseDirectory,
               "Authenticator": Authenticator, "ExecutePreprocessor": Execute}
    assert check_config(config, classes) == []
    assert config.Exchange.path_includes_course is True
    assert config.Authenticator.plugin_class.endswith("JupyterHubAuthPlugin")


def test_kubernetes_values_mount_a_shared_exchange():
    values = yaml.safe_load((DEPLOY / "z2jh-nbgrader-values.yaml").read_text())
    storage = values["singleuser"]["storage"]
    claim = next(v for v in storage["extraVolumes"] if v["name"] == "nbgrader-exchange")
    assert claim["persistentVolumeClaim"]["claimName"] == "nbgrader-exchange"
    mount = next(m for m in storage["extraVolumeMounts"] if m["name"] == "nbgrader-exchange")
    assert mount["mountPath"] == "/srv/nbgrader/exchange"
    assert "ReadWriteMany" in (DEPLOY / "z2jh-nbgrader-values.yaml").read_text()
    config = Config(values["hub"]["config"])
    assert check_config(config, _configurables()) == []
    for role in values["hub"]["loadRoles"].values():
        _scopes_valid(role["scopes"])
