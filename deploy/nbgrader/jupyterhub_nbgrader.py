"""nbgrader for a kernelnb class on JupyterHub (≥ 4.1): the course, its people, the exchange and the
formgrader service. Load it at the end of ``deploy/jupyterhub_config.py`` (the path is relative to
that file's folder; a path that names no file is skipped without a word)::

    load_subconfig("nbgrader/jupyterhub_nbgrader.py")

and put ``deploy/nbgrader/nbgrader_config.py`` in ``/etc/jupyter/`` (every server reads it). Install
``kernelnb[hub]`` (it carries nbgrader) in the hub's and the students' environment. Then, once:

    mkdir -p /srv/nbgrader/exchange && chmod 777 /srv/nbgrader/exchange   # the shared exchange
    useradd -m grader-kernelnb          # the account the course's service runs as
    sudo -u grader-kernelnb mkdir -p /home/grader-kernelnb/kernelnb/source
    sudo -u grader-kernelnb python -m kernelnb.course.build nbgrader --chapter 03 \
        --out /home/grader-kernelnb/kernelnb/source/ch03

The cycle: an instructor or grader opens the formgrader at ``/services/kernelnb-course/formgrader``
IN ITS OWN TAB (since JupyterHub 4.1 every server sends ``frame-ancestors 'none'``, so nbgrader's
lab panel that frames it stays blank: jupyter/nbgrader#1870; the fix that allowed framing was
reverted for security, #1947), generates and releases the assignment; students fetch and submit it
from their Assignments tab; the instructor collects, autogrades (the checks of
:mod:`kernelnb.course` run in the test cells, on each student's own data: the seed comes from
the submission's folder), and releases feedback. ``tests/course/test_nbgrader_cycle.py`` runs
this cycle with nbgrader's command line.

The grader account is a hub user too, in the course's formgrade group: the formgrader asks the hub
for the groups of the account it runs as (``JUPYTERHUB_USER``) on every page, and answers 500 when
the hub has no such user. A submission is named after the student's Unix account
(``nbgrader.utils.get_username``; ``JUPYTERHUB_USER`` only for the Docker stacks' ``jovyan``).

Scopes (undocumented upstream, jupyter/nbgrader#1900): the service's token reads users and their
groups, lists groups and adds students to the course's group (``JupyterHubAuthPlugin``). A
student's server keeps JupyterHub's default token: since JupyterHub 5 every token reads its own
user's name and groups (the ``identify`` scopes), which is all the Assignments tab's course list
asks (on JupyterHub 4 it failed for a user who is not an admin, jupyter/nbgrader#1831:
``KeyError: 'groups'``, and the advice was ``server_token_scopes = ["inherit"]``, which gives the
server every permission of its user).
"""
c = get_config()  # noqa: F821 - defined by JupyterHub when it loads this file

COURSE = "kernelnb"
SERVICE = f"{COURSE}-course"
GRADER_ACCOUNT = f"grader-{COURSE}"
PORT = 9999

#: Who teaches and who takes the course (the hub's user names).
INSTRUCTORS = {"instructor"}
GRADERS = set()
STUDENTS = set()

# added to what jupyterhub_config.py set (traitlets' lazy update/extend)
c.Authenticator.allowed_users.update(INSTRUCTORS | GRADERS | STUDENTS)
c.JupyterHub.load_groups.update({
    f"formgrade-{COURSE}": {"users": sorted(INSTRUCTORS | GRADERS | {GRADER_ACCOUNT})},
    f"nbgrader-{COURSE}": {"users": sorted(STUDENTS)},
})
# The course's formgrader: a Jupyter server run by the hub as the grader account, in the course
# directory, reached at /services/kernelnb-course/.
c.JupyterHub.services.append({
    "name": SERVICE,
    "url": f"http://127.0.0.1:{PORT}",
    "command": ["jupyterhub-singleuser", f"--ServerApp.port={PORT}", "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.root_dir=/home/{GRADER_ACCOUNT}/{COURSE}",
                "--ServerApp.default_url=/formgrader"],
    "user": GRADER_ACCOUNT,
    "cwd": f"/home/{GRADER_ACCOUNT}/{COURSE}",
    "oauth_no_confirm": True,
})
c.JupyterHub.load_roles.extend([
    {"name": f"{SERVICE}-service", "services": [SERVICE],
     "scopes": ["list:users", "read:users", "read:users:groups", "list:groups",
                "read:groups", "admin:groups", "groups"]},
    {"name": f"formgrade-{COURSE}", "groups": [f"formgrade-{COURSE}"],
     "scopes": [f"access:services!service={SERVICE}"]},
])
