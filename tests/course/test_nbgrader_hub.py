"""The nbgrader cycle under a real JupyterHub, every step through the proxy over HTTP as the person
would click it.

One hub, started from the recipe (``deploy/jupyterhub_config.py``, then
``deploy/nbgrader/jupyterhub_nbgrader.py``) with only what a test needs instead of accounts: fixed
passwords, JupyterHub's ``SimpleLocalProcessSpawner`` (every server runs as this process's user,
each in a temporary home), loopback ports, the Node.js proxy (as in ``tests/lab/test_hub.py``), the
students added to the recipe's course group, and the formgrader service run as this process's
user in a temporary course directory. Every role and scope is the recipe's: the cycle passing is
the proof that they suffice. nbgrader reads the recipe's ``nbgrader_config.py`` (what
``/etc/jupyter/`` holds) and, after it, a temporary exchange and course directory.

The instructor logs in and opens the formgrader in its own tab (its answer forbids every frame),
generates and releases the chapter 3 assignment with the formgrader's REST API; each student's
server lists the course and its assignment (nbgrader's Assignments tab: JupyterHub's default
server token reads the student's own groups), fetches it, the student writes an answer (one
right, one wrong, as in ``test_nbgrader_cycle.py``) with the Jupyter contents API and submits; the
instructor collects, autogrades each submission (the service's token reads the students' groups
and adds them to the course), generates and releases feedback, exports the grades; each student
fetches their feedback, which names what was wrong.

On the hub each student is a Unix account and nbgrader names a submission after it
(``nbgrader.utils.get_username``: the account's name; ``JUPYTERHUB_USER`` only for the Docker
stacks' shared ``jovyan``). Here one account runs every server, so the students' nbgrader
configuration names the student from ``JUPYTERHUB_USER`` (``CourseDirectory.student_id``, what
``--student`` sets), as the launcher of ``test_nbgrader_cycle.py`` does for the command line.
"""
from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import os
import pwd
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin

import nbformat
import pytest

pytest.importorskip("jupyterhub", reason="pip install -e '.[test]' installs JupyterHub")
pytest.importorskip("nbgrader", reason="nbgrader is in kernelnb's [hub] extra")
requests = pytest.importorskip("requests")

from tests.conftest import REPO, TEST_OUTPUT, free_port, run_async             # noqa: E402
from tests.lab.test_hub import (LOOPBACK_HUB, NODE_PROXY, TEST_LOGINS, _alive,  # noqa: E402
                                _cmdline, _stop, _tree)

pytestmark = pytest.mark.slow

COURSE, ASSIGNMENT, NOTEBOOK = "kernelnb", "ch03", "exercises_03"
SERVICE = "kernelnb-course"
INSTRUCTOR = "instructor"                   # the recipe's INSTRUCTORS
STUDENTS = {"alice": "alice-pw-1", "bob": "bob-pw-22"}
PASSWORDS = {INSTRUCTOR: "instructor-pw-333", **STUDENTS}
WRONG = {"bob": ("answer_03_1", "(2 * sigma ** 2)", "(sigma ** 2)")}    # sigma^2 for 2 sigma^2
DEADLINE = 150.0
PYTHON = shlex.quote(sys.executable)
OUT = TEST_OUTPUT / "nbgrader_hub"

NBGRADER_CONFIG = """\
load_subconfig({recipe!r})        # the recipe's nbgrader_config.py (/etc/jupyter/), then the test's
c.Exchange.root = {exchange!r}
c.CourseDirectory.root = {course!r}
"""
# One account runs every server here: the student is the hub's user (see the module docstring).
STUDENT_CONFIG = NBGRADER_CONFIG + """\
import os
c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
"""

HUB_CONFIG = ("""\
import sys
load_subconfig({recipe!r})        # the single-host recipe,
load_subconfig({nbgrader!r})      # its nbgrader part, then what a test needs instead
""" + TEST_LOGINS + """\
# The recipe's formgrader service, run as this process's user (instead of the recipe's grader
# account, a hub user too) in the test's course directory.
_service, = c.JupyterHub.services.get_value([])
_grader = _service["user"]
# The recipe's people and groups, with the test's students added to the course.
c.Authenticator.allowed_users = c.Authenticator.allowed_users | set({passwords!r})
_groups = c.JupyterHub.load_groups.get_value({{}})
_groups["nbgrader-kernelnb"]["users"] = sorted({{*_groups["nbgrader-kernelnb"]["users"],
                                                 *{students!r}}})
_groups["formgrade-kernelnb"]["users"] = sorted(
    {user!r} if name == _grader else name for name in _groups["formgrade-kernelnb"]["users"])
c.JupyterHub.load_groups = _groups
_service.update(
    url="http://127.0.0.1:{service_port}",
    command=[sys.executable, "-m", "jupyterhub.singleuser", *[
        {{"--ServerApp.port": "--ServerApp.port={service_port}",
          "--ServerApp.root_dir": "--ServerApp.root_dir=" + {course!r}}}.get(a.split("=")[0], a)
        for a in _service["command"][1:]], *{root_flag!r}],
    user={user!r}, cwd={course!r}, environment={service_env!r})
c.JupyterHub.services = [_service]
""" + LOOPBACK_HUB + """\
c.Spawner.args = [*c.Spawner.args, *{root_flag!r}]
c.Spawner.environment = {{**c.Spawner.environment, **{student_env!r}}}
""")


class Hub:
    def __init__(self, url, proc, log_path, paths):
        self.url, self.proc, self.log_path, self.paths = url, proc, log_path, paths
        self.sessions, self.times = {}, {}

    def log(self):
        return self.log_path.read_text(errors="replace")[-6000:]

    def service(self, path=""):
        return urljoin(self.url, f"services/{SERVICE}/{path}")

    def user(self, name, path=""):
        return urljoin(self.url, f"user/{name}/{path}")


@contextlib.contextmanager
def timed(hub, step):
    t0 = time.monotonic()
    yield
    hub.times[step] = round(time.monotonic() - t0, 1)


def _xsrf(session, prefix):
    """The ``_xsrf`` cookie that the server at ``prefix`` (``/user/alice/``) set."""
    for cookie in session.cookies:
        if cookie.name == "_xsrf" and cookie.path.rstrip("/") == prefix.rstrip("/"):
            return cookie.value
    raise AssertionError(f"no _xsrf cookie for {prefix}: {[(c.name, c.path) for c in session.cookies]}")


def _call(hub, name, method, url, prefix, **kw):
    """A request of ``name``'s page (their cookies, the XSRF token its server gave); its JSON."""
    s = hub.sessions[name]
    headers = {"X-XSRFToken": _xsrf(s, prefix)} if method != "GET" else {}
    r = s.request(method, url, headers=headers, timeout=600, **kw)
    assert r.status_code == 200, (name, method, url, r.status_code, r.text[:500], hub.log())
    return r.json()


def _login(hub, name, next_path=None):
    """``name`` logs in with the hub's form; the page the hub sends them to."""
    s = requests.Session()
    login = urljoin(hub.url, "hub/login") + (f"?next={next_path}" if next_path else "")
    s.get(login, timeout=30)
    r = s.post(login, timeout=60, allow_redirects=False,
               data={"username": name, "password": PASSWORDS[name],
                     "_xsrf": s.cookies.get("_xsrf", path="/hub/")})
    assert r.status_code == 302, (r.status_code, r.text[:300])
    hub.sessions[name] = s
    return s.get(urljoin(hub.url, r.headers["Location"]), timeout=DEADLINE)


def _student_logs_in(hub, name):
    """A student logs in; their server spawns and shows the gallery (the recipe's default URL)."""
    _login(hub, name)
    s, gallery = hub.sessions[name], hub.user(name, "kernelnb/")
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        r = s.get(gallery, timeout=60)
        if r.status_code == 200 and r.url == gallery:
            # The Assignments tab is JupyterLab's: the lab's page gives the page its XSRF cookie.
            assert s.get(hub.user(name, "lab"), timeout=60).status_code == 200
            return
        assert hub.proc.poll() is None, hub.log()
        time.sleep(1.0)
    raise AssertionError(f"{name}'s server did not show the gallery\n{hub.log()}")


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    if NODE_PROXY is None:
        pytest.skip("no Node.js configurable-http-proxy (apt install node-configurable-http-proxy, "
                    "or npm install -g configurable-http-proxy; KERNELNB_CHP names another)")
    tmp = tmp_path_factory.mktemp("nbgrader_hub")
    course, exchange, homes = tmp / "grader" / COURSE, tmp / "exchange", tmp / "home"
    student_config, service_config = tmp / "config" / "students", tmp / "config" / "service"
    for d in (course, exchange, homes, student_config, service_config):
        d.mkdir(parents=True)
    exchange.chmod(0o777)                       # the recipe's chmod 777 /srv/nbgrader/exchange
    recipe = REPO / "deploy" / "nbgrader"
    paths = dict(recipe=str(recipe / "nbgrader_config.py"), exchange=str(exchange),
                 course=str(course))
    (student_config / "nbgrader_config.py").write_text(STUDENT_CONFIG.format(**paths))
    (service_config / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(**paths))
    # The grader's source of the assignment, made as the recipe says.
    subprocess.run([sys.executable, "-m", "kernelnb.course.build", "nbgrader", "--chapter", "03",
                    "--out", str(course / "source" / ASSIGNMENT)], check=True, timeout=300,
                   env={k: v for k, v in os.environ.items() if k != "KERNELNB_LANG"})

    root_flag = ["--allow-root"] if os.geteuid() == 0 else []   # CI runs as root
    port, hub_port, api_port, service_port = (free_port() for _ in range(4))
    jupyter_dirs = {"JUPYTER_DATA_DIR": str(tmp / "grader" / "data"),
                    "JUPYTER_RUNTIME_DIR": str(tmp / "grader" / "runtime"),
                    "IPYTHONDIR": str(tmp / "grader" / "ipython")}
    service_env = {"JUPYTER_CONFIG_DIR": str(service_config), **jupyter_dirs,
                   **{k: os.environ[k] for k in ("KERNELNB_DATA",) if k in os.environ}}
    config = tmp / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        recipe=str(REPO / "deploy" / "jupyterhub_config.py"),
        nbgrader=str(recipe / "jupyterhub_nbgrader.py"),
        passwords=PASSWORDS, students=sorted(STUDENTS), proxy=NODE_PROXY, homes=str(homes),
        port=port, hub_port=hub_port, api_port=api_port, service_port=service_port,
        course=str(course), user=pwd.getpwuid(os.getuid()).pw_name, root_flag=root_flag,
        service_env=service_env, student_env={"JUPYTER_CONFIG_DIR": str(student_config)},
        tmp=str(tmp)))
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "hub.log"
    env = {k: v for k, v in os.environ.items()
           if k not in ("JUPYTERHUB_USER", "NBGRADER_EXECUTION", "KERNELNB_LANG",
                        "JUPYTER_CONFIG_DIR")}
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                stdout=log, stderr=subprocess.STDOUT, cwd=tmp, env=env)
    h = Hub(f"http://127.0.0.1:{port}/", proc, log_path,
            dict(course=course, exchange=exchange, homes=homes, service_config=service_config))
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            assert proc.poll() is None, h.log()
            with contextlib.suppress(requests.ConnectionError):
                if requests.get(urljoin(h.url, "hub/login"), timeout=5).status_code == 200:
                    break
            assert time.monotonic() < deadline, h.log()
            time.sleep(0.3)
        h.times["hub and proxy up"] = round(time.monotonic() - t0, 1)
        yield h
    finally:
        tree = _tree(proc.pid)
        _stop(proc)
        for pid in tree:                 # whatever the hub left is not left on the machine
            if _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        h.times["total"] = round(time.monotonic() - t0, 1)
        (OUT / "timings.json").write_text(json.dumps(h.times, indent=1))
        print("\nnbgrader hub timings:", json.dumps(h.times))


def test_the_formgrader_opens_in_its_own_tab_for_the_instructor_only(hub):
    with timed(hub, "instructor logs in, formgrader shown"):
        deadline = time.monotonic() + DEADLINE
        while True:          # the hub starts the service with itself; it may still be loading
            r = _login(hub, INSTRUCTOR, next_path=f"/services/{SERVICE}/formgrader")
            if r.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(1.0)
    assert r.status_code == 200 and r.url.startswith(hub.service("formgrader")), (
        r.status_code, r.url, r.text[:300], hub.log())
    assert "formgrader" in r.text.lower()
    # The page forbids every frame, its own server's included: nbgrader's lab panel, which frames
    # it, stays blank (jupyter/nbgrader#1870); the recipe says to open it in its own tab.
    assert "frame-ancestors 'none'" in r.headers.get("Content-Security-Policy", ""), r.headers
    with timed(hub, "2 students log in, servers spawned"):
        with ThreadPoolExecutor(len(STUDENTS)) as pool:
            list(pool.map(lambda n: _student_logs_in(hub, n), STUDENTS))
    # A student is not let in (the recipe's access:services role is the course's formgraders').
    r = hub.sessions["alice"].get(hub.service("formgrader"), timeout=60)
    assert r.status_code == 403, (r.status_code, r.url)


def test_a_students_server_lists_the_course_with_jupyterhubs_default_server_token(hub, monkeypatch):
    """The recipe keeps JupyterHub's default server token (the 'server' role): its identify
    scopes read the student's own groups, which is what nbgrader's hub plugin in alice's server
    asks for the course list (on JupyterHub 4 the model came without them, jupyter/nbgrader#1831).
    The same token cannot do what alice may do logged in, such as make herself a token."""
    from jupyterhub.roles import get_default_roles
    from nbgrader.auth.jupyterhub import JupyterHubAuthPlugin
    assert "alice" in hub.sessions, "alice did not log in (the first test)"
    s = hub.sessions["alice"]
    server_role, = [r for r in get_default_roles() if r["name"] == "server"]
    scopes = [f"{scope}=alice" if scope.endswith("!user") else
              f"{scope}=alice/" if scope.endswith("!server") else scope
              for scope in server_role["scopes"]]
    r = s.post(urljoin(hub.url, "hub/api/users/alice/tokens"), timeout=60,
               json={"scopes": scopes, "note": "test"},
               headers={"X-XSRFToken": _xsrf(s, "/hub/")})
    assert r.status_code == 201, (r.status_code, r.text[:300])
    token = r.json()["token"]
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    monkeypatch.setenv("JUPYTERHUB_API_URL", urljoin(hub.url, "hub/api"))
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
    assert JupyterHubAuthPlugin().get_student_courses("*") == [COURSE]
    r = requests.post(urljoin(hub.url, "hub/api/users/alice/tokens"), timeout=60,
                      json={"note": "more"}, headers={"Authorization": f"token {token}"})
    assert r.status_code == 403, (r.status_code, r.text[:300])


def test_release_fetch_submit_collect_autograde_feedback_through_the_hub(hub):
    api = hub.service("formgrader/api/")

    def grader(method, path, **kw):
        return _call(hub, INSTRUCTOR, method, urljoin(api, path), f"/services/{SERVICE}/", **kw)

    with timed(hub, "formgrader: generate and release"):
        listed = {a["name"]: a for a in grader("GET", "assignments")}
        assert ASSIGNMENT in listed, listed
        done = grader("POST", f"assignment/{ASSIGNMENT}/assign")
        assert done["success"], done
        done = grader("POST", f"assignment/{ASSIGNMENT}/release")
        assert done["success"], done
        assert grader("GET", f"assignment/{ASSIGNMENT}")["status"] == "released"
    with timed(hub, "grader's terminal: the students enrolled"):
        # nbgrader's student list with the hub's groups: the service's token lists the groups and
        # adds each student to the course's (the formgrader's own student form does not).
        out = _in_the_graders_terminal(hub, " && ".join(
            f"{PYTHON} -m nbgrader db student add {n} --first-name={n.title()}" for n in STUDENTS))
        for name in STUDENTS:
            assert f"Student {name} added or was already in the Jupyterhub group" in out, out
        assert "NOT added" not in out, out

    assert set(STUDENTS) <= set(hub.sessions), "the students did not log in (the first test)"
    source = nbformat.read(str(hub.paths["course"] / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
                           4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    with timed(hub, "students: list, fetch, answer, submit"):
        for name in STUDENTS:
            def server(method, path, name=name, **kw):
                return _call(hub, name, method, hub.user(name, path), f"/user/{name}/", **kw)

            courses = server("GET", "courses")
            assert courses == {"success": True, "value": [COURSE]}, courses
            listed = server("GET", "assignments", params={"course_id": COURSE})
            assert listed["success"], listed
            assert [(a["assignment_id"], a["status"]) for a in listed["value"]] == [
                (ASSIGNMENT, "released")], listed
            form = {"course_id": COURSE, "assignment_id": ASSIGNMENT}
            fetched = server("POST", "assignments/fetch", data=form)
            assert [(a["assignment_id"], a["status"]) for a in fetched["value"]] == [
                (ASSIGNMENT, "fetched")], fetched
            path = f"{COURSE}/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
            assert fetched["value"][0]["notebooks"][0]["path"] == path
            model = server("GET", f"api/contents/{path}")
            for cell in model["content"]["cells"]:
                gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
                if gid in solutions:
                    code = solutions[gid]
                    if WRONG.get(name, ("",))[0] == gid:
                        code = code.replace(*WRONG[name][1:])
                        assert code != solutions[gid]
                    cell["source"] = code
            saved = server("PUT", f"api/contents/{path}",
                           json={"type": "notebook", "format": "json",
                                 "content": model["content"]})
            assert saved["type"] == "notebook"
            submitted = server("POST", "assignments/submit", data=form)
            assert submitted["success"], submitted
            assert [a["student_id"] for a in submitted["value"] if a["status"] == "submitted"
                    ] == [name], submitted
    inbound = sorted(p.name.split("+")[0]
                     for p in (hub.paths["exchange"] / COURSE / "inbound").iterdir())
    assert inbound == sorted(STUDENTS)            # each submission named by the hub's user

    with timed(hub, "formgrader: collect"):
        done = grader("POST", f"assignment/{ASSIGNMENT}/collect")
        assert done["success"], done
        assert "NOT" not in done["log"], done["log"]
    with timed(hub, "formgrader: autograde 2 submissions"):
        for name in STUDENTS:
            done = grader("POST", f"submission/{ASSIGNMENT}/{name}/autograde")
            assert done["success"], done
    scores = {s["student"]: (s["score"], s["max_score"])
              for s in grader("GET", f"submissions/{ASSIGNMENT}")}
    with timed(hub, "formgrader: generate and release feedback"):
        for step in ("generate_feedback", "release_feedback"):
            done = grader("POST", f"assignment/{ASSIGNMENT}/{step}")
            assert done["success"], done

    with timed(hub, "grader's terminal: nbgrader export"):
        out = _in_the_graders_terminal(hub, f"{PYTHON} -m nbgrader export --to grades.csv")
        assert "Exporting grades" in out, out
        text = (hub.paths["course"] / "grades.csv").read_text()
        (OUT / "grades.csv").write_text(text)
        grades = {row["student_id"]: row for row in csv.DictReader(io.StringIO(text))}
    full = float(grades["alice"]["max_score"])
    assert full > 0 and float(grades["alice"]["score"]) == full, grades
    assert 0 < float(grades["bob"]["score"]) < full, grades
    assert scores == {n: (float(grades[n]["score"]), full) for n in STUDENTS}, scores

    feedback = {}
    with timed(hub, "students fetch feedback"):
        for name in STUDENTS:
            listed = _call(hub, name, "POST", hub.user(name, "assignments/fetch_feedback"),
                           f"/user/{name}/",
                           data={"course_id": COURSE, "assignment_id": ASSIGNMENT})
            assert listed["success"], listed
            submitted, = [a for a in listed["value"] if a["status"] == "submitted"]
            notebook, = submitted["submissions"][-1]["notebooks"]
            assert notebook["has_local_feedback"], submitted
            page = hub.sessions[name].get(hub.user(name, "files/" + notebook["local_feedback_path"]),
                                          timeout=60)
            assert page.status_code == 200, (page.status_code, page.url)
            # served as text/html without a charset: the page's own <meta> says UTF-8
            assert b'<meta charset="utf-8"/>' in page.content[:500]
            text = page.content.decode("utf-8")
            (OUT / f"feedback_{name}.html").write_text(text)
            if name in WRONG:
                assert "AssertionError" in text and "divides by σ²" in text
                feedback[name] = re.search(r"AssertionError</span>: (.*?)</pre>", text, re.S)[1]
            else:
                assert "AssertionError" not in text
    (OUT / "feedback.json").write_text(json.dumps(feedback, indent=1, ensure_ascii=False))


def _in_the_graders_terminal(hub, command):
    """Run ``command`` in a terminal of the formgrader's server, as the grader types it there (the
    service's environment: its token, the course directory); the terminal's output."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    made = _call(hub, INSTRUCTOR, "POST", hub.service("api/terminals"), f"/services/{SERVICE}/")
    url = hub.service(f"terminals/websocket/{made['name']}").replace("http", "ws", 1)
    cookie = "; ".join(f"{c.name}={c.value}" for c in hub.sessions[INSTRUCTOR].cookies
                       if c.path.startswith(f"/services/{SERVICE}") or c.path == "/")

    async def typed():
        ws = await websocket_connect(HTTPRequest(url, headers={"Cookie": cookie},
                                                 request_timeout=60))
        ws.write_message(json.dumps(["set_size", 50, 200]))
        ws.write_message(json.dumps(["stdin", f"{command}; echo EXIT-$?-END\r"]))
        out, deadline = "", time.monotonic() + 300
        while not re.search(r"EXIT-\d+-END", out):
            message = await asyncio.wait_for(ws.read_message(), deadline - time.monotonic())
            assert message is not None, f"the terminal closed: {out}"
            kind, *data = json.loads(message)
            if kind == "stdout":
                out += data[0]
        ws.close()
        return out

    try:
        out = run_async(typed)
    finally:
        r = hub.sessions[INSTRUCTOR].delete(
            hub.service(f"api/terminals/{made['name']}"), timeout=60,
            headers={"X-XSRFToken": _xsrf(hub.sessions[INSTRUCTOR], f"/services/{SERVICE}/")})
        assert r.status_code == 204, r.status_code
    status = re.search(r"EXIT-(\d+)-END", out).group(1)
    assert status == "0", out
    return out


def test_stopping_the_hub_leaves_no_process_behind(hub):
    tree = _tree(hub.proc.pid)
    servers = [p for p in tree if "jupyterhub.singleuser" in _cmdline(p)]
    assert len(servers) == len(STUDENTS) + 1, [_cmdline(p) for p in tree]   # and the formgrader
    t0 = time.monotonic()
    _stop(hub.proc)
    while any(_alive(p) for p in tree) and time.monotonic() - t0 < 30:
        time.sleep(0.3)
    assert hub.proc.returncode is not None
    assert not [p for p in tree if _alive(p)], [(p, _cmdline(p)) for p in tree if _alive(p)]
