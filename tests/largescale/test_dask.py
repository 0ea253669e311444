"""Where a mixture's tasks run: the embedded cluster from a plain script (no main guard), worker
processes that do not re-run the caller's script, a real cluster started as separate processes and
reached by address, the dashboard on loopback only, and Dask not imported until a fit needs it."""
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from kernelnb.largescale import MixtureSVC, local_client  # noqa: E402
from kernelnb.svm import SVC  # noqa: E402

# A first script as people write it: no ``if __name__ == "__main__":`` guard.
SCRIPT = """\
import numpy as np
from kernelnb.largescale import MixtureSVC{extra_import}
from kernelnb.svm import SVC
rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, (200, 2))
y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
print("BODY RUN", flush=True)  # counted: the script body must run once, in this process only
{setup}
m = MixtureSVC(SVC(C=10, sigma=0.5), n_experts=2, max_iter=2, random_state=0).fit(X, y{client})
print("ACCURACY", np.mean(m.predict(X) == y), flush=True)
{teardown}
"""


def run_script(tmp_path, **fmt):
    path = tmp_path / "first_script.py"
    fields = dict(extra_import="", setup="", client="", teardown="")
    fields.update(fmt)
    path.write_text(SCRIPT.format(**fields))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("BODY RUN") == 1, proc.stdout
    acc = float(proc.stdout.split("ACCURACY")[1].split()[0])
    assert acc > 0.9
    return proc


def test_plain_script_without_main_guard_default_client(tmp_path):
    """client=None from a script without a main guard (it failed with 'Nanny failed to start.'
    when the embedded cluster spawned worker processes that re-ran the script)."""
    run_script(tmp_path)


@pytest.mark.slow  # a script and its worker process: over two seconds
def test_plain_script_without_main_guard_worker_processes(tmp_path):
    """Worker processes too: they are spawned without re-running the caller's script."""
    run_script(tmp_path, extra_import=", local_client",
               setup="c = local_client(n_workers=1, processes=True)", client=", client=c",
               teardown="c.close(); c.cluster.close()")


def test_main_module_restored_after_spawning():
    from kernelnb.largescale._dask import _main_not_reimported

    main = sys.modules["__main__"]
    before = (main.__dict__.get("__file__"), main.__dict__.get("__spec__"))
    with _main_not_reimported():
        assert getattr(main, "__spec__", None) is None and not hasattr(main, "__file__")
    assert (main.__dict__.get("__file__"), main.__dict__.get("__spec__")) == before


def _listening(pids):
    out = set()
    for pid in pids:
        try:
            conns = psutil.Process(pid).net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        out |= {(pid, c.laddr.ip, c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN}
    return out


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.parametrize("processes", [False, True])
def test_local_cluster_listens_on_loopback_only(processes):
    """The dashboard (and, with worker processes, the scheduler and workers) of a cluster that
    kernelnb starts bind 127.0.0.1, never every interface."""
    me = psutil.Process()
    before = _listening([me.pid])
    c = local_client(n_workers=1, processes=processes)
    try:
        pids = [me.pid] + [p.pid for p in me.children(recursive=True)]
        new = _listening(pids) - before
        port = c.cluster.scheduler.http_server.port
        assert any(p == port for _, _, p in new), (port, new)  # the dashboard's socket is seen
        assert new and all(ip == "127.0.0.1" for _, ip, _ in new), new
        assert c.dashboard_link.startswith("http://127.0.0.1:")
    finally:
        cluster = c.cluster
        c.close()
        cluster.close()


def test_import_does_not_load_dask():
    """``import kernelnb`` and ``kernelnb.largescale`` (what each Voila kernel pays) load neither
    dask, distributed nor bokeh; a serial fit does not either."""
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import kernelnb, kernelnb.largescale
        from kernelnb.largescale import MixtureSVC
        X = np.random.default_rng(0).normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
        MixtureSVC(n_experts=2, max_iter=1, client="serial").fit(X, y)
        print(sorted(m for m in ("dask", "distributed", "bokeh") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


# ---------------------------------------------------------------------------------------------
# A real cluster: scheduler and worker as separate processes, reached by address


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


@pytest.fixture(scope="module")
def scheduler_address(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    sched_file = d / "scheduler.json"
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--host", "127.0.0.1", "--port", "0",
                               "--dashboard-address", "127.0.0.1:0",
                               "--scheduler-file", str(sched_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d, env=env)]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() or not sched_file.read_text().strip():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail("dask scheduler did not start within 60 s")
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                       address, "--nthreads", "1", "--nworkers", "1",
                                       "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      cwd=d, env=env))
        with distributed.Client(address, timeout=30, set_as_default=False) as c:
            c.wait_for_workers(1, timeout=90)
        yield address
    finally:
        _stop(procs[::-1])


@pytest.mark.slow  # a scheduler and a worker started first: over two seconds
def test_real_cluster_by_address(scheduler_address):
    assert scheduler_address.startswith("tcp://127.0.0.1:")
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (120, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    kw = dict(expert=SVC(C=10, sigma=0.5), n_experts=2, max_iter=2, random_state=3)
    remote = MixtureSVC(client=scheduler_address, **kw).fit(X, y)
    with distributed.Client(scheduler_address, set_as_default=False) as c:
        via_client = MixtureSVC(**kw).fit(X, y, client=c)
        # the tasks ran on the worker process, not here
        assert len(c.scheduler_info()["workers"]) == 1
    serial = MixtureSVC(client="serial", **kw).fit(X, y)
    for m in (remote, via_client):
        np.testing.assert_array_equal(m.assignment_, serial.assignment_)
        np.testing.assert_array_equal(m.predict(X), serial.predict(X))


@pytest.mark.slow  # a kernel and its cluster: over two seconds
def test_default_client_in_a_jupyter_kernel(tmp_path):
    """client=None inside a Jupyter kernel (what a notebook and a Voila dashboard run in)."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(SCRIPT.format(extra_import="", setup="", client="",
                                                            teardown="")))
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=180,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.output_type == "stream")
    assert text.count("BODY RUN") == 1, text
    assert float(text.split("ACCURACY")[1].split()[0]) > 0.9


@pytest.mark.parametrize("given", [False, True], ids=["embedded", "given-threaded-client"])
def test_thread_pools_restored_after_a_threaded_fit(request, given):
    """The worker threads limit BLAS (a process-wide setting) while they train: after the fit the
    caller's thread counts are back, whatever order the tasks' limits were entered and left in --
    on the embedded cluster and on a threaded cluster of the caller's own (tests/largescale/
    conftest.py's ``client``: two worker threads of this process)."""
    from threadpoolctl import ThreadpoolController

    client = request.getfixturevalue("client") if given else None
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (1200, 4))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    blas = ThreadpoolController().select(user_api="blas")
    # two BLAS threads in the caller (a limit of one left behind shows on one core too), set
    # outside a `with` block: the fit runs as after a plain threadpool_limits(2) call
    caller = blas.limit(limits=2)
    try:
        before = [lib["num_threads"] for lib in blas.info()]
        MixtureSVC(SVC(C=10, sigma=0.5), n_experts=6, max_iter=2, n_jobs=2,
                   random_state=0).fit(X, y, client=client)
        after = [lib["num_threads"] for lib in blas.info()]
    finally:
        caller.restore_original_limits()
    assert after == before
