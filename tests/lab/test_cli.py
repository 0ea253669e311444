"""The ``kernelnb`` command: argument parsing, the Voila and JupyterLab command lines, and a real
``kernelnb serve`` answering the gallery on the loopback interface only."""
from __future__ import annotations

import html
import re
import socket
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from kernelnb.lab import cli
from kernelnb.lab.server.gallery import DASHBOARDS, GalleryEntry, gallery_entries, render_gallery

from ..conftest import kernelnb_serve


def parse(*argv):
    return cli.build_parser().parse_known_args(list(argv))


# ----------------------------------------------------------------------------- parsing


def test_serve_defaults_bind_loopback():
    args, extra = parse("serve")
    assert (args.command, args.host, args.port) == ("serve", "127.0.0.1", 8866)
    assert args.no_browser is False and args.dashboards is None and args.token is None
    assert extra == []


def test_lab_defaults_bind_loopback():
    args, _ = parse("lab")
    assert (args.command, args.host, args.port) == ("lab", "127.0.0.1", 8888)


def test_command_is_required(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([])
    assert exc.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["0", "70000", "http"])
def test_bad_port_is_refused_with_its_value(port, capsys):
    with pytest.raises(SystemExit):
        cli.main(["serve", "--port", port])
    err = capsys.readouterr().err
    assert "--port" in err and port in err


def test_stray_positional_argument_is_refused(capsys):
    with pytest.raises(SystemExit):
        cli.main(["serve", "notebook.ipynb"])
    assert "notebook.ipynb" in capsys.readouterr().err


@pytest.mark.parametrize("host,expected", [
    ("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.168.1.10", False),
    ("example.org", False),
])
def test_is_loopback(host, expected):
    assert cli.is_loopback(host) is expected


# ----------------------------------------------------------------------------- serve argv


def write_tiny_dashboards(folder):
    """One quick notebook per registered dashboard: a heading and a cell that prints."""
    for d in DASHBOARDS:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell(f"# {d.title}"),
                    nbformat.v4.new_code_cell(f"# SOURCE-MARKER-{d.name}\n"
                                              f"print('output of', {d.name!r}[::-1])")]
        nbformat.write(nb, folder / d.notebook)
    return folder


@pytest.fixture
def tiny_dashboards(tmp_path):
    return write_tiny_dashboards(tmp_path)


def test_serve_argv_localhost_stripped_sources(tiny_dashboards):
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--port", "9100",
                        "--VoilaConfiguration.preheat_kernel=True")
    argv = cli.serve_argv(args, extra)
    assert argv[0] == str(tiny_dashboards.resolve())
    assert "--Voila.ip=127.0.0.1" in argv and "--Voila.port=9100" in argv
    assert "--VoilaConfiguration.strip_sources=True" in argv
    assert "--Voila.open_browser=True" in argv
    assert argv[-1] == "--VoilaConfiguration.preheat_kernel=True"      # passed through to Voila
    assert not any("token" in a for a in argv)


def test_serve_argv_token_and_no_browser(tiny_dashboards):
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--token", "s3cret",
                        "--no-browser")
    argv = cli.serve_argv(args, extra)
    assert "--Voila.token=s3cret" in argv and "--Voila.open_browser=False" in argv


def test_serve_forks_kernels_unless_told_not_to(tiny_dashboards):
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards))
    assert not any("fork_kernels" in a for a in cli.serve_argv(args, extra))   # the default: on
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--no-fork-kernels")
    assert "--KernelnbVoila.fork_kernels=False" in cli.serve_argv(args, extra)


def test_serve_missing_dashboards_dir_names_it(tmp_path):
    missing = tmp_path / "nope"
    args, extra = parse("serve", "--dashboards", str(missing))
    with pytest.raises(SystemExit, match="--dashboards.*nope"):
        cli.serve_argv(args, extra)


def _no_launch(monkeypatch):
    launched = []
    import kernelnb.lab.server.app
    monkeypatch.setattr(kernelnb.lab.server.app.KernelnbVoila, "launch_instance",
                        classmethod(lambda cls, argv=None: launched.append(argv)))
    return launched


def test_serve_public_host_with_token_warns_loudly(tiny_dashboards, monkeypatch, capsys):
    launched = _no_launch(monkeypatch)
    assert cli.main(["serve", "--host", "0.0.0.0", "--token", "t0k",
                     "--dashboards", str(tiny_dashboards)]) == 0
    assert "NOT the loopback" in capsys.readouterr().err
    assert "--Voila.ip=0.0.0.0" in launched[0] and "--Voila.token=t0k" in launched[0]
    cli.main(["serve", "--dashboards", str(tiny_dashboards)])
    assert "NOT the loopback" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--host", "0.0.0.0"],
    ["--Voila.ip=0.0.0.0"],                    # a pass-through address counts as --host
    ["--ServerApp.ip", "192.168.1.10"],
    ["--host", "::"],
])
def test_serve_public_host_without_token_is_refused(argv, tiny_dashboards, monkeypatch):
    launched = _no_launch(monkeypatch)
    monkeypatch.delenv(cli.TOKEN_ENV, raising=False)
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--dashboards", str(tiny_dashboards), *argv])
    message = str(exc.value.code)
    assert "--token" in message and "--allow-unauthenticated" in message
    assert launched == []


def test_serve_public_host_allowed_unauthenticated_explicitly(tiny_dashboards, monkeypatch,
                                                              capsys):
    launched = _no_launch(monkeypatch)
    monkeypatch.delenv(cli.TOKEN_ENV, raising=False)
    assert cli.main(["serve", "--Voila.ip=0.0.0.0", "--allow-unauthenticated",
                     "--dashboards", str(tiny_dashboards)]) == 0
    assert "NOT the loopback" in capsys.readouterr().err
    argv = launched[0]
    assert "--Voila.ip=0.0.0.0" in argv and not any(a.startswith("--Voila.ip=127") for a in argv)
    assert not any("token" in a.lower() for a in argv)


def test_kernel_threads_default_to_one_unless_set():
    args, _ = parse("serve")
    assert cli.kernel_thread_env(args, environ={}) == {
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    # what the user exported is kept
    assert cli.kernel_thread_env(args, environ={"OMP_NUM_THREADS": "4"}) == {
        "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    args, _ = parse("serve", "--kernel-threads", "2")
    assert cli.kernel_thread_env(args, environ={"OMP_NUM_THREADS": "4"}) == {
        "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    args, _ = parse("serve", "--kernel-threads", "0")
    with pytest.raises(SystemExit, match="--kernel-threads must be at least 1, got 0"):
        cli.kernel_thread_env(args, environ={})


def test_serve_sets_the_kernels_threads_before_launching(tiny_dashboards, monkeypatch):
    import os
    seen = []
    import kernelnb.lab.server.app
    monkeypatch.setattr(kernelnb.lab.server.app.KernelnbVoila, "launch_instance",
                        classmethod(lambda cls, argv=None: seen.append(
                            {k: os.environ.get(k) for k in cli.THREAD_ENV})))
    for name in cli.THREAD_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    assert cli.main(["serve", "--no-browser", "--dashboards", str(tiny_dashboards)]) == 0
    assert seen == [{"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "3"}]


def test_serve_token_from_environment(tiny_dashboards, monkeypatch):
    launched = _no_launch(monkeypatch)
    monkeypatch.setenv(cli.TOKEN_ENV, "from-env")
    assert cli.main(["serve", "--host", "0.0.0.0", "--dashboards", str(tiny_dashboards)]) == 0
    assert "--Voila.token=from-env" in launched[0]


def test_serve_conflicting_addresses_are_refused(tiny_dashboards):
    args, extra = parse("serve", "--host", "10.0.0.1", "--Voila.ip=0.0.0.0")
    with pytest.raises(SystemExit, match="disagree"):
        cli.normalize_serve_args(args, extra, environ={})


def test_serve_kernel_options_reach_voila(tiny_dashboards):
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--max-kernels", "7",
                        "--cull-unconnected", "30", "--cull-idle", "600")
    argv = cli.serve_argv(args, extra)
    assert ("--VoilaConfiguration.multi_kernel_manager_class="
            "kernelnb.lab.server._kernelpool.BudgetKernelManager") in argv
    assert "--BudgetKernelManager.max_kernels=7" in argv
    assert "--BudgetKernelManager.cull_unconnected=30.0" in argv
    assert "--MappingKernelManager.cull_idle_timeout=600" in argv
    assert not any("preheat" in a for a in argv)            # no pool unless asked
    allow = [a.split("=", 1)[1] for a in argv
             if a.startswith("--VoilaConfiguration.extension_allowlist=")]
    assert allow == ["@voila-dashboards/widgets-manager8", "@voila-dashboards/widgets-manager7",
                     "@jupyter-widgets/jupyterlab-manager", "anywidget"]
    assert not any("extension_denylist" in a for a in argv)


def test_serve_gives_each_kernel_a_memory_limit(tiny_dashboards):
    from kernelnb.lab.server._kernelpool import default_max_kernels
    from kernelnb.lab.server._memory import default_kernel_memory_mb
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--kernel-memory", "2048")
    assert "--BudgetKernelManager.kernel_memory_mb=2048" in cli.serve_argv(args, extra)
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--kernel-memory", "0")
    assert "--BudgetKernelManager.kernel_memory_mb=0" in cli.serve_argv(args, extra)   # none
    # by default, from the machine's memory and the kernel budget (given or not)
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards))
    want = default_kernel_memory_mb(default_max_kernels())
    assert f"--BudgetKernelManager.kernel_memory_mb={want}" in cli.serve_argv(args, extra)
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--max-kernels", "4")
    want = default_kernel_memory_mb(4)
    assert f"--BudgetKernelManager.kernel_memory_mb={want}" in cli.serve_argv(args, extra)
    # less than a kernel holds before it computes: refused, naming the option and the value
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--kernel-memory", "100")
    with pytest.raises(SystemExit, match="--kernel-memory 100 is too little"):
        cli.serve_argv(args, extra)


def test_default_kernel_budget_follows_memory():
    from kernelnb.lab.server._kernelpool import default_max_kernels
    assert default_max_kernels(24 * 1024) == int(0.75 * 24 * 1024 / 300)
    assert default_max_kernels(512) == 4                      # at least 4
    assert default_max_kernels(None) >= 4


def test_preheat_plan_shares_kernels_among_dashboards(tiny_dashboards):
    plan = cli.preheat_plan(tiny_dashboards, len(DASHBOARDS) + 2)
    assert sum(plan.values()) == len(DASHBOARDS) + 2
    assert plan[DASHBOARDS[0].notebook] == 2 and plan[DASHBOARDS[-1].notebook] == 1
    assert cli.preheat_plan(tiny_dashboards, 5, "svm_playground") == {"svm_playground.ipynb": 5}
    assert cli.preheat_plan(tiny_dashboards, 0) == {}
    with pytest.raises(SystemExit, match="unknown dashboard.*nope"):
        cli.preheat_plan(tiny_dashboards, 3, "svm_playground,nope")
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--preheat", "3",
                        "--preheat-dashboards", "svm_playground")
    argv = cli.serve_argv(args, extra)
    assert "--VoilaConfiguration.preheat_kernel=True" in argv
    assert '--KernelnbVoila.preheat_plan={"svm_playground.ipynb": 3}' in argv


def test_preheat_beyond_the_budget_is_refused(tiny_dashboards):
    args, extra = parse("serve", "--dashboards", str(tiny_dashboards), "--preheat", "9",
                        "--max-kernels", "4")
    with pytest.raises(SystemExit, match="--preheat 9.*--max-kernels 4"):
        cli.serve_argv(args, extra)


@pytest.mark.parametrize("argv,name", [(["--max-kernels", "-1"], "--max-kernels"),
                                       (["--preheat", "many"], "--preheat"),
                                       (["--cull-idle", "nan"], "--cull-idle"),
                                       (["--kernel-memory", "lots"], "--kernel-memory"),
                                       (["--kernel-memory", "-5"], "--kernel-memory")])
def test_bad_kernel_options_name_the_option(argv, name, capsys):
    with pytest.raises(SystemExit):
        cli.main(["serve", *argv])
    assert name in capsys.readouterr().err


# ----------------------------------------------------------------------------- lab


def test_lab_command_keeps_token(tmp_path):
    args, extra = parse("lab", "--notebooks", str(tmp_path), "--port", "9200")
    cmd = cli.lab_command(args, extra)
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in cmd
    assert "--ServerApp.ip=127.0.0.1" in cmd and "--ServerApp.port=9200" in cmd
    options = [c.lower() for c in cmd if not c.startswith("--ServerApp.root_dir=")]
    assert not any("token" in c or "password" in c for c in options)


@pytest.mark.parametrize("opt", ["--IdentityProvider.token=", "--ServerApp.token=''",
                                 "--ServerApp.disable_check_xsrf=True"])
def test_lab_refuses_to_drop_authentication(tmp_path, opt):
    args, extra = parse("lab", "--notebooks", str(tmp_path), opt)
    with pytest.raises(SystemExit, match="token authentication"):
        cli.lab_command(args, extra)


def test_lab_default_notebooks_folder_is_the_checkout_one(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)         # no ./notebooks here: the checkout's is used
    args, extra = parse("lab")
    cmd = cli.lab_command(args, extra)
    root = Path(next(c for c in cmd if c.startswith("--ServerApp.root_dir=")).split("=", 1)[1])
    assert root.name == "notebooks" and (root.parent / "pyproject.toml").is_file()


# ----------------------------------------------------------------------------- gallery


def test_gallery_entries_skip_missing_and_add_unregistered(tmp_path):
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / DASHBOARDS[0].notebook)
    extra = nbformat.v4.new_notebook()
    extra.cells = [nbformat.v4.new_markdown_cell("# A new <b>idea</b>")]
    nbformat.write(extra, tmp_path / "new_idea.ipynb")
    names = [e.name for e in gallery_entries(tmp_path)]
    assert names == [DASHBOARDS[0].name, "new_idea"]
    page = render_gallery(tmp_path, "/voila/render/", "/kernelnb/lab/static/")
    assert "A new &lt;b&gt;idea&lt;/b&gt;" in page                   # titles are escaped
    assert 'href="/voila/render/new_idea.ipynb"' in page


def test_dashboard_name_is_validated():
    with pytest.raises(ValueError, match="name="):
        GalleryEntry("svm_playground.ipynb", "x", "y")


# ----------------------------------------------------------------------------- a real server


def _listening_addresses(port):
    """Local addresses of the sockets listening on ``port`` (Linux /proc)."""
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            addr, p = fields[1].split(":")
            if int(p, 16) == port and fields[3] == "0A":          # 0A: LISTEN
                raw = bytes.fromhex(addr)
                if width == 8:
                    found.append(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                else:
                    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                    found.append(socket.inet_ntop(socket.AF_INET6, words))
    return found


@pytest.fixture(scope="module")
def tiny_server(tmp_path_factory):
    folder = write_tiny_dashboards(tmp_path_factory.mktemp("dashboards"))
    with kernelnb_serve("--dashboards", str(folder), log_name="test_cli") as (url, proc):
        yield url, proc


@pytest.mark.slow  # the module's server starts first: over two seconds
def test_serve_answers_gallery_with_every_dashboard(tiny_server):
    url, _ = tiny_server
    with urllib.request.urlopen(url, timeout=30) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/html")
        page = r.read().decode()
    for d in DASHBOARDS:
        assert f'href="/voila/render/{d.notebook}"' in page
        assert f"<h2>{html.escape(d.title)}</h2>" in page
        assert html.escape(d.purpose) in page
    assert page.count('class="card"') == len(DASHBOARDS)
    assert not re.search(r'(src|href)="(https?:)?//', page), "the gallery must not load from the web"
    # every thumbnail the page shows is served
    for src in re.findall(r'<img src="([^"]+)"', page):
        with urllib.request.urlopen(url.rstrip("/") + html.unescape(src), timeout=30) as r:
            assert r.status == 200 and r.headers["Content-Type"].startswith("image/")


@pytest.mark.slow  # the module's server: over two seconds
def test_serve_binds_loopback_only(tiny_server):
    url, _ = tiny_server
    port = int(url.rsplit(":", 1)[1].strip("/"))
    addresses = _listening_addresses(port)
    if not addresses:
        pytest.skip("no /proc/net/tcp to read listening sockets from (not Linux)")
    assert addresses and all(a in ("127.0.0.1", "::1") for a in addresses), addresses


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_serve_logs_the_url(tiny_server):
    url, _ = tiny_server
    from ..conftest import TEST_OUTPUT
    log = (TEST_OUTPUT / "logs" / "test_cli.log").read_text()
    assert f"kernelnb dashboards gallery: {url}" in log


@pytest.mark.slow
def test_serve_renders_a_dashboard_without_its_code(tiny_server):
    url, _ = tiny_server
    d = DASHBOARDS[0]
    with urllib.request.urlopen(f"{url}voila/render/{d.notebook}", timeout=120) as r:
        assert r.status == 200
        page = r.read().decode()
    assert f"output of {d.name[::-1]}" in page           # the cell ran
    assert f"SOURCE-MARKER-{d.name}" not in page           # and its source is not shown


#: What the teacher's terminal used to show for every page opened, and the deprecation notice of
#: a list option given as one string (kernelnb serve gives each item on its own).
_NOISE = ("is not trusted", "running over TCP without encryption", "websocket_ping_timeout",
          "DeprecationWarning", "deprecated")


@pytest.mark.slow
def test_serve_log_says_what_matters_once_and_no_noise(tiny_server):
    """A page rendered and its kernel's websocket opened (as a browser does) leave none of the
    per-page notices in the server's log; the start says where the server listens."""
    from kernelnb.lab.server._websocket import V1_PROTOCOL

    from ..conftest import TEST_OUTPUT
    from .test_server_hardening import kernel_id_of, run_async, ws_connect

    url, _ = tiny_server
    d = DASHBOARDS[-1]
    with urllib.request.urlopen(f"{url}voila/render/{d.notebook}", timeout=120) as r:
        kernel = kernel_id_of(r.read().decode())

    async def open_channels():
        ws = await ws_connect(f"{url.replace('http', 'ws', 1)}api/kernels/{kernel}/channels"
                              "?session_id=log-test",
                              [V1_PROTOCOL])
        ws.close()

    run_async(open_channels)
    time.sleep(2)                                # the kernel's and the server's output flushed
    log = (TEST_OUTPUT / "logs" / "test_cli.log").read_text()
    assert "Kernel started" in log               # the page started its kernel
    noise = [line for line in log.splitlines() if any(n in line for n in _NOISE)]
    assert not noise, noise
    assert f"kernelnb dashboards gallery: {url}" in log
    assert "reachable from this machine only; no token" in log
