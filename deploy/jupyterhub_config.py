"""JupyterHub on one big host for a kernelnb class.

Every student logs in with their account on this machine (PAM) and gets their own Jupyter server,
started as that user, at /user/<name>/, opening on the kernelnb gallery. Each server runs
kernelnb's kernel budget and culling (kernelnb.lab.hub.singleuser_config): a student runs at most
MAX_KERNELS kernels, one whose tab is closed is shut down after two minutes, one idle for 20
minutes too. Install, in one Python environment (the hub's and the students' here):

    python -m pip install "kernelnb[hub]"        # kernelnb and JupyterHub (from a checkout: ".[hub]")
    apt install node-configurable-http-proxy     # the hub's proxy (Node.js), from Debian/Ubuntu,
    #   or: npm install -g configurable-http-proxy
    jupyterhub -f deploy/jupyterhub_config.py    # as root (it starts servers as the students)

and put a TLS-terminating reverse proxy (nginx, Caddy) in front of port 8000. How many students
one host holds: see the README, "Hosting the dashboards for a class".
tests/lab/test_hub_recipe.py checks every option named here against the installed packages, and
tests/lab/test_hub.py runs a hub with this file (test users, a spawner that needs no accounts).
"""
import os
import pwd

from kernelnb.lab.hub import (
    GALLERY_PATH,
    link_dashboards,
    singleuser_args,
    student_resources,
)

c = get_config()  # noqa: F821 - defined by JupyterHub when it loads this file

#: Kernels one student runs at once (a dashboard is a kernel): the gallery and two dashboards.
MAX_KERNELS = 3

# --- the hub ------------------------------------------------------------------------------------
c.JupyterHub.bind_url = "http://127.0.0.1:8000"     # the reverse proxy in front serves HTTPS
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.cookie_secret_file = "/srv/jupyterhub/jupyterhub_cookie_secret"
c.JupyterHub.db_url = "sqlite:////srv/jupyterhub/jupyterhub.sqlite"
# The proxy: Node.js's configurable-http-proxy, Debian's package or npm's. (Not pip's package of
# that name, a Python port whose 0.4.0 drops a kernel websocket's subprotocol, turns its binary
# frames into text and leaves it open when the server closes it: it must not be installed in the
# hub's environment, where its script would come first on the PATH.) A dashboard's page is sent
# once its notebook has run, which takes tens of seconds when a class opens pages at once: wait
# for it (--proxy-timeout, in ms).
c.ConfigurableHTTPProxy.command = ["configurable-http-proxy", "--proxy-timeout=300000"]
# Debian's package keeps its modules in /usr/share/nodejs, where Debian's Node.js looks for them;
# another Node.js (nodesource's, nvm's) is told through NODE_PATH, which the hub passes on to the
# proxy. (npm's package carries its own modules and does not need it.)
_DEBIAN_NODE_MODULES = "/usr/share/nodejs"
if os.path.isdir(os.path.join(_DEBIAN_NODE_MODULES, "configurable-http-proxy")):
    _node_path = os.environ.get("NODE_PATH", "").split(os.pathsep)
    if _DEBIAN_NODE_MODULES not in _node_path:
        os.environ["NODE_PATH"] = os.pathsep.join([*filter(None, _node_path),
                                                   _DEBIAN_NODE_MODULES])

# --- who logs in --------------------------------------------------------------------------------
c.JupyterHub.authenticator_class = "pam"            # this machine's accounts
c.Authenticator.allowed_users = set()               # the class, e.g. {"alice", "bob"}
c.Authenticator.admin_users = set()                 # the teacher's account

# --- each student's server ----------------------------------------------------------------------
c.JupyterHub.spawner_class = "localprocess"         # runs as the student's Unix account
c.Spawner.cmd = ["jupyterhub-singleuser"]
c.Spawner.args = singleuser_args(max_kernels=MAX_KERNELS, cull_unconnected=120, cull_idle=1200)
c.Spawner.default_url = GALLERY_PATH                # the gallery opens first
# One BLAS/OpenMP thread per kernel: kernels that each spread over every core wait on each other.
c.Spawner.environment = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                         "MKL_NUM_THREADS": "1"}
_resources = student_resources(max_kernels=MAX_KERNELS)
# The local process spawner passes these on (MEM_LIMIT, CPU_LIMIT) without enforcing them: the
# kernel budget and each kernel's memory limit (singleuser_args: the student's mem_limit, 1100 MB;
# an allocation past it fails in the kernel, a kernel whose processes hold more is ended) do the
# enforcing here; systemd or containers can enforce them.
c.Spawner.mem_limit = f"{_resources['mem_limit_mb']}M"
c.Spawner.cpu_limit = _resources["cpu_limit"]
c.Spawner.http_timeout = 60                         # a class logging in at once shares the cores
c.Spawner.start_timeout = 120


def _home(spawner):
    """The student's home folder (a spawner that has its own, e.g. in tests, says so)."""
    home = getattr(spawner, "home_dir", None)
    return home or pwd.getpwnam(spawner.user.name).pw_dir


def _dashboards_in_home(spawner):
    """Voila renders what is under the server's root (the home folder): link the dashboards."""
    home = _home(spawner)
    link = link_dashboards(home)
    try:
        entry = pwd.getpwnam(spawner.user.name)
        os.lchown(link, entry.pw_uid, entry.pw_gid)
    except KeyError:
        pass                                        # no such account (a test spawner)


c.Spawner.pre_spawn_hook = _dashboards_in_home
