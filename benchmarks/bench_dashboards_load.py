"""Load: many students open a dashboard at the same moment.

For each scenario, starts ``kernelnb serve`` on a free loopback port, waits until its preheated
pool is ready (``/kernelnb/api/status``), then

1. one visitor alone opens the dashboard (time to its first chart), and, once the pool is full
   again,
2. N pages (default 20) open it at once in headless Chromium (one browser, N contexts, all on
   127.0.0.1): time from the request to each first plotly chart (min / median / max), kernels
   alive after, resident memory (RSS) per kernel.

Scenarios: ``default`` (``kernelnb serve`` as it starts, no preheated kernels) and ``preheat``
(``--preheat N --preheat-dashboards <dashboard>``). Bounded: every page has a deadline and the
run stops by itself.

``--clients websocket`` measures the server alone: N browserless clients do what a page's widget
manager does (page, kernel websocket, every widget's state) while one real Chromium page is
opened at the same moment (``--no-chromium-page`` to leave it out), to show what a student sees
meanwhile. ``--sessions`` takes several class sizes (``20,50,max``; ``max`` is the server's
``--max-kernels``, default what this machine's memory holds); a size past the budget shows where
pages get the 503 "class is full" answer. How far one machine goes:

    python benchmarks/bench_dashboards_load.py --clients websocket --sessions 20,50,max \
        [--max-kernels N] [--dashboard svm_playground] [--scenarios default,preheat]

    python benchmarks/bench_dashboards_load.py [--sessions 20] [--dashboard svm_playground]
                                               [--scenarios default,preheat] [--deadline 300]

``--per-dashboard all`` (or names) instead opens every dashboard once, alone, on two servers: one
without preheating (a cold kernel per page) and one with ``--preheat`` one kernel per dashboard,
and prints for each its first chart cold and preheated (seconds from the request; with the
browser, also when the page's HTML had arrived and when plotly's bundle had), the CPU seconds the
cold kernel had used by then, and the kernel's memory (RSS, and USS: what no other process shares)::

    python benchmarks/bench_dashboards_load.py --per-dashboard all [--repeat 2] [--repo CHECKOUT]

``--browser-cache returning`` (with the browser) adds a returning student to each server: for
each dashboard, one persistent Chromium profile (a new one per dashboard, in a temporary folder)
opens the page three times, each visit with a fresh preheated kernel (the pool refilled first) on
the preheated server and a cold kernel on the other, and the table gives visits 1 and 3
(``ret.1``, ``ret.3``) beside the fresh profile's ``preheat``, and the cold visits 3 (``c.ret.3``)
beside ``cold``; ``p.eval``, beside each, is the time the page's main thread spent
evaluating plotly's widget bundle (compiling and running it; from Chromium's long-animation-frame
entries, so the same measure for a classic script and a module). A real browser keeps its HTTP
cache and V8's code cache between visits: Chromium keeps the compiled code of a classic
``<script src>`` from its third load on (so visit 3 shows what a student sees from then on) and
of a module loaded with ``import()`` never.
``--servers preheat`` leaves out the server without preheating. A before/after table of one
change, on the same machine in one sitting::

    python benchmarks/bench_dashboards_load.py --per-dashboard svm_playground,kmp_playground \
        --servers preheat --browser-cache returning --repeat 2 [--repo OTHER_CHECKOUT]

``--lang en,fr`` opens each page once per language in turn (``?lang=en``, ``?lang=fr``: rows
``svm_playground (fr)``...) and adds the seconds until the page speaks its language, its readout
written (``c.spoke``, ``p.spoke``): the server's kernels are preheated in its default language
(English), so a French page's kernel re-labels its widgets and charts and redraws::

    python benchmarks/bench_dashboards_load.py --per-dashboard svm_playground,kmp_playground \
        --servers preheat --lang en,fr --repeat 3

``--browser-profile`` splits each page's main thread until its first chart (plotly, the rest of
the front-end, compiling and garbage collection, idle); ``--profile-until 9`` profiles until 9 s
after the request instead, so that plotly's share counts every chart the page draws at load.

``--repo`` serves another checkout (its ``kernelnb`` first on the path of the server and of its
kernels, its ``dashboards/``), e.g. a worktree at an older commit, for a before/after table.

Every page is requested once its new tab is idle (:func:`settle_browser`): Playwright returns a
new tab while Chromium is still starting its renderer, about a CPU-second on a 2-core machine,
which a page requested at once had to share its cores with. A student opens a dashboard from a
tab already open (the gallery, a course page), so that start-up is not the page's.
``--no-settle`` requests each page as soon as its tab exists, as the tables before 2026-11-28
were measured.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

# the process names of kernelnb serve's fork server and of the kernels it forks (stdlib only)
from kernelnb.lab.server._forkserver_process import KERNEL_PROCESS_NAME, PROCESS_NAME

REPO = Path(__file__).resolve().parents[1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid):
    """All descendant pids of ``pid`` (Linux /proc)."""
    kids = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def uss_mb(pid):
    """Memory of ``pid`` that no other process shares (private pages), MB (Linux /proc)."""
    total = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    except OSError:
        return 0.0
    return total / 1024


def cpu_seconds(pids):
    """User + system CPU seconds used so far by ``pids`` (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def browser_pids():
    """Pids of the Chromium processes on this machine."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if b"chrom" in cmd.lower():
                out.append(int(d.name))
    return out


def kernel_pids(server_pid):
    pids = []
    for p in children(server_pid):
        try:
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "ipykernel_launcher" in cmd or _comm(p) == KERNEL_PROCESS_NAME:   # started or forked
            pids.append(p)
    return pids


def _comm(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def fork_server_pids(server_pid):
    """The server's fork server (kernelnb.lab.server._forkserver), if it has one."""
    return [p for p in children(server_pid) if _comm(p) == PROCESS_NAME]


#: Whether pages wait, before their request, for the browser's new tab to finish starting (the
#: command line's ``--no-settle`` clears it).
SETTLE = True


def settle_browser(quiet=0.03, window=0.3, timeout=5.0):
    """Wait until the browser's processes are idle: their CPU time grew by less than ``quiet``
    seconds over the last ``window`` seconds (at most ``timeout`` seconds); the seconds waited.

    Playwright's ``new_page`` returns while the new tab's renderer is still starting: on the
    2-core machine it then uses about 0.8 CPU-seconds, and the browser 0.2, over the next second,
    with nothing loaded. A page requested at once shares the two cores with that start-up, which
    is the browser's, not the page's: a student opens the dashboard from a tab already open (the
    gallery, a course page). So every page is requested once its tab is idle (``--no-settle``:
    at once, as before, for comparison with older tables)."""
    t0 = time.monotonic()
    if not SETTLE:
        return 0.0

    def sample():
        return time.monotonic(), {p: cpu_seconds([p]) for p in browser_pids()}

    samples = [sample()]
    while time.monotonic() - t0 < timeout:
        time.sleep(0.05)
        samples.append(sample())
        now, cpu = samples[-1]
        before = [c for t, c in samples if t <= now - window]
        # a process that exited meanwhile does not count; a new one counts all its CPU
        if before and sum(max(0.0, v - before[-1].get(p, 0.0)) for p, v in cpu.items()) < quiet:
            break
    return time.monotonic() - t0


FIRST_CHART_JS = """(() => {
  const id = setInterval(() => {
    const g = document.querySelector('.js-plotly-plot');
    if (g && g.data && g.data.length) {
      window.__kernelnbFirstChart = performance.now(); clearInterval(id);
    }
  }, 50);
  // With ?lang=: when <html lang> became that language (the kernel speaks it) and when the
  // readout's text last changed (the kernel's update writes it last), ms since navigation; a
  // kernel preheated in another language re-labels and redraws after the page tells it.
  const want = new URLSearchParams(location.search).get('lang');
  window.__kernelnbLangAt = null; window.__kernelnbStatsAt = null;
  if (want) {
    let text = null;
    const t0 = performance.now();
    const watch = setInterval(() => {
      const now = performance.now();
      if (window.__kernelnbLangAt === null && document.documentElement.lang === want)
        window.__kernelnbLangAt = now;
      const s = document.querySelector('.kernelnb-stats');
      if (s && s.textContent !== text) { text = s.textContent; window.__kernelnbStatsAt = now; }
      if (now - t0 > 120000) clearInterval(watch);
    }, 50);
  }
  // The main thread's time evaluating plotly's widget bundle (compiling and running it, as a
  // classic or a module script), from Chromium's long-animation-frame entries (ms).
  window.__kernelnbPlotlyEval = 0;
  try {
    new PerformanceObserver(list => {
      for (const frame of list.getEntries()) for (const s of frame.scripts) {
        if (/\\/kernelnb\\/esm\\/plotly-/.test(s.sourceURL) && /-script$/.test(s.invokerType))
          window.__kernelnbPlotlyEval += s.duration;
      }
    }).observe({type: 'long-animation-frame', buffered: true});
  } catch (e) { window.__kernelnbPlotlyEval = null; }
})();"""


#: When the page's HTML had arrived and when plotly's widget bundle had (ms since navigation).
PHASES_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const esm = performance.getEntriesByType('resource').filter(
      e => /plotly-[0-9a-f]+(\\.classic)?\\.js$/.test(e.name))[0];
  return {html: nav ? nav.responseEnd : null, bundle: esm ? esm.responseEnd : null,
          plotly: window.__kernelnbPlotlyEval};
}"""


def server_status(base):
    import json
    with urllib.request.urlopen(base + "kernelnb/api/status", timeout=10) as r:
        return json.loads(r.read())


def wait_pool(base, target, timeout):
    """Seconds until ``target`` preheated kernels are ready (None if not within ``timeout``)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            status = server_status(base)
            # and the fork server has done its imports (kernelnb serve starts it with the server)
            if (status["preheated_ready"] >= target
                    and status.get("fork_server", "off") != "starting"):
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.5)
    return None


def open_pages(browser, url, n, deadline, profile=None, profile_until=None):
    """Open ``n`` pages of ``url`` at once; (results, wall seconds, pages with a traceback).

    ``profile``: a dict that receives the first page's main-thread time until its first chart
    (or until ``profile_until`` seconds after the request, when later: every chart the page
    draws at load), split by :func:`main_thread_split` (Chromium's sampling profiler, 1 ms).
    """
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(n)]
    for c in contexts:
        c.add_init_script(FIRST_CHART_JS)   # stamps the first chart (ms since navigation)
    pages = [c.new_page() for c in contexts]
    settle_browser()
    cdp = None
    if profile is not None:
        cdp = contexts[0].new_cdp_session(pages[0])
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
        cdp.send("Profiler.start")
    start = time.monotonic()
    results = []
    for pg in pages:        # all requests go out before any chart is awaited
        pg.goto(url, wait_until="commit", timeout=deadline * 1000)
    for pg in pages:
        left = max(1.0, deadline - (time.monotonic() - start))
        try:
            t = pg.wait_for_function("() => window.__kernelnbFirstChart",
                                     timeout=left * 1000).json_value()
            results.append(("ok", t / 1000))
        except Exception as exc:  # noqa: BLE001 - reported in the table
            results.append(("timeout", type(exc).__name__))
        if cdp is not None and pg is pages[0]:
            if profile_until:
                time.sleep(max(0.0, profile_until - (time.monotonic() - start)))
            profile.update(main_thread_split(cdp.send("Profiler.stop")["profile"]))
    wall = time.monotonic() - start
    errors = sum("Traceback" in pg.inner_text("body")
                 for pg, (state, _) in zip(pages, results) if state == "ok")
    return results, wall, errors, contexts


def main_thread_split(prof):
    """Seconds of a page's main thread, from a CDP CPU profile, by whose code ran.

    ``plotly``: plotly's widget bundle (evaluating it, drawing the figures); ``front-end``: every
    other script of the page (Voila, JupyterLab's widget manager, the extensions, anywidget);
    ``compile+gc``: V8 compiling scripts and collecting garbage; ``idle``: nothing to run (waiting
    for the network, the kernel). Native calls (``appendChild``, layout) count for the script
    that made them.
    """
    nodes = {node["id"]: node for node in prof["nodes"]}
    parent = {c: node["id"] for node in prof["nodes"] for c in node.get("children", ())}

    def owner(nid):
        while nid is not None:
            frame = nodes[nid]["callFrame"]
            if frame["url"]:
                return "plotly" if "/kernelnb/esm/plotly-" in frame["url"] else "front-end"
            if frame["functionName"] == "(idle)":
                return "idle"
            if frame["functionName"] in ("(program)", "(garbage collector)"):
                return "compile+gc"
            nid = parent.get(nid)
        return "compile+gc"

    split = {"plotly": 0.0, "front-end": 0.0, "compile+gc": 0.0, "idle": 0.0}
    for nid, dt in zip(prof["samples"], prof["timeDeltas"]):
        split[owner(nid)] += dt / 1e6
    return split


# ------------------------------------------------------------------ browserless clients
# What a page's widget manager does once the HTML is in: open the kernel websocket (v1 protocol),
# list the widget comms, ask each for its state. Timing this for N clients at once measures the
# server and its kernels alone, without N browsers sharing the server's cores.

def _v1_parts(frame):
    import json
    n = int.from_bytes(frame[:8], "little")
    off = [int.from_bytes(frame[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    header = json.loads(frame[off[1]:off[2]])
    content = json.loads(frame[off[4]:off[5]])
    parent = json.loads(frame[off[2]:off[3]]) if off[3] > off[2] else {}
    return header, parent, content


def _msg(msg_type, content):
    import uuid
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": "bench",
                       "username": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "content": content}


async def _one_client(base, url, deadline, kids=None):
    """("ok", seconds from the page request until every widget's state has arrived), ("full",
    seconds until the 503 "class is full" answer) or ("timeout", None)."""
    import re

    from kernelnb.lab.server._websocket import v1_frame
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect
    t0 = time.monotonic()
    try:
        try:
            page = (await AsyncHTTPClient(max_clients=1000).fetch(
                url, request_timeout=deadline)).body.decode()
        except HTTPClientError as exc:
            if exc.code == 503:
                return "full", time.monotonic() - t0
            raise
        kid = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page).group(1)
        if kids is not None:
            kids.append(kid)
        ws_url = base.replace("http://", "ws://") + f"api/kernels/{kid}/channels?session_id=b"
        ws = await websocket_connect(HTTPRequest(ws_url, request_timeout=deadline),
                                     subprotocols=["v1.kernel.websocket.jupyter.org"],
                                     max_message_size=64 * 2**20)
        info = _msg("comm_info_request", {"target_name": "jupyter.widget"})
        ws.write_message(v1_frame("shell", info), binary=True)
        pending = None
        while True:
            left = deadline - (time.monotonic() - t0)
            frame = await asyncio.wait_for(ws.read_message(), max(left, 0.1))
            if frame is None:
                return "timeout", None
            if not isinstance(frame, bytes):
                continue
            header, parent, content = _v1_parts(frame)
            if header["msg_type"] == "comm_info_reply" and pending is None:
                pending = set()
                for cid in content.get("comms", {}):
                    m = _msg("comm_msg", {"comm_id": cid, "data": {"method": "request_state"}})
                    pending.add(m["header"]["msg_id"])
                    ws.write_message(v1_frame("shell", m), binary=True)
            elif (header["msg_type"] == "comm_msg" and pending is not None
                  and parent.get("msg_id") in pending):
                pending.discard(parent["msg_id"])
                if not pending:
                    ws.close()
                    return "ok", time.monotonic() - t0
    except Exception:  # noqa: BLE001 - counted as a failure in the table
        return "timeout", None


def shutdown_kernel(base, kid):
    """Shut down the kernel ``kid`` as a page does when its tab closes (Voila's shutdown API);
    False (and the kernel left to the culler) when the server refuses."""
    import secrets
    xsrf = secrets.token_hex(16)             # tornado checks that the cookie and header agree
    req = urllib.request.Request(f"{base}voila/api/shutdown/{kid}", data=b"", method="POST",
                                 headers={"X-XSRFToken": xsrf, "Cookie": f"_xsrf={xsrf}"})
    try:
        urllib.request.urlopen(req, timeout=60).close()
        return True
    except OSError as exc:
        print(f"warning: could not shut down the lone visitor's kernel ({exc}); it counts "
              "against --max-kernels until culled", file=sys.stderr)
        return False


def open_clients(base, url, n, deadline, kids=None):
    async def all_at_once():
        return await asyncio.gather(*[_one_client(base, url, deadline, kids)
                                      for _ in range(n)])
    start = time.monotonic()
    results = asyncio.run(all_at_once())
    return results, time.monotonic() - start


def start_server(port, extra_args, args, log):
    """``kernelnb serve`` on ``port`` (of ``args.repo``'s checkout when given)."""
    env = dict(os.environ)
    repo = REPO
    if args.repo:
        repo = Path(args.repo).resolve()
        env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
        extra_args = ["--dashboards", str(repo / "dashboards"), *extra_args]
    # In the served checkout: ``python -m`` puts the working folder first on the server's path,
    # before PYTHONPATH (from this checkout, its server ran this checkout's kernelnb and its
    # kernels the other one's).
    return subprocess.Popen([sys.executable, "-m", "kernelnb.lab.cli", "serve", "--no-browser",
                             "--port", str(port), *extra_args, *args.serve_arg],
                            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=repo)


def wait_server(base, log):
    t0 = time.monotonic()
    while time.monotonic() - t0 < 300:
        try:
            urllib.request.urlopen(base, timeout=2).close()
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"server did not start; see benchmarks/results/{log.name}")


def plotly_eval(page, timeout=10.0):
    """``window.__kernelnbPlotlyEval`` of ``page`` (see FIRST_CHART_JS), once its frame's entry
    has arrived: an observer's entries come in a task of their own, which a busy page delays past
    its first chart. 0 when none came within ``timeout`` seconds."""
    try:
        page.wait_for_function("() => window.__kernelnbPlotlyEval !== 0", timeout=timeout * 1000)
    except Exception:  # noqa: BLE001 - reported as 0 (or '-')
        pass
    return page.evaluate("() => window.__kernelnbPlotlyEval")


def spoken(page, deadline, quiet=1.0):
    """Seconds from the request until ``page`` speaks its URL's ``lang``: its ``<html lang>``
    says it and its readout is written (the last change of the readout's text before ``quiet``
    seconds without one); None when it did not within ``deadline`` seconds."""
    t0 = time.monotonic()
    try:
        page.wait_for_function("() => window.__kernelnbLangAt !== null", timeout=deadline * 1000)
        last = None
        while time.monotonic() - t0 < deadline:
            at = page.evaluate("() => [window.__kernelnbLangAt, window.__kernelnbStatsAt]")
            if at[1] is not None and at == last:
                return max(at) / 1000
            last = at
            time.sleep(quiet)
    except Exception:  # noqa: BLE001 - reported as '-'
        pass
    return None


def open_one(browser, base, url, deadline, profile=False, profile_until=None):
    """One visitor opens ``url``: {first chart s, html s, bundle s, spoken s} (None when it
    failed; spoken: :func:`spoken`, when ``url`` has a ``lang``), and with ``profile`` the
    page's main-thread split (:func:`main_thread_split`), until its first chart or
    ``profile_until`` seconds after the request, whichever is later."""
    if browser is None:
        res, _ = open_clients(base, url, 1, deadline)
        return {"chart": res[0][1] if res[0][0] == "ok" else None, "html": None, "bundle": None}
    split = {} if profile else None
    res, _, errors, contexts = open_pages(browser, url, 1, deadline, profile=split,
                                          profile_until=profile_until)
    out = {"chart": res[0][1] if res[0][0] == "ok" and not errors else None,
           "html": None, "bundle": None, "spoken": None}
    if "lang=" in url and out["chart"] is not None:
        out["spoken"] = spoken(contexts[0].pages[0], deadline)
    plotly_eval(contexts[0].pages[0])
    try:
        phases = contexts[0].pages[0].evaluate(PHASES_JS)
        out.update({k: v / 1000 if v else None for k, v in phases.items()})
    except Exception as exc:  # noqa: BLE001 - the phases are extra information
        print(f"page phases unknown: {exc}", file=sys.stderr)
    if split:
        out["split"] = split
    for c in contexts:
        c.close()
    return out


def per_dashboard(args, browser, names, pw=None):
    """Every dashboard of ``names`` opened alone: cold (a server without preheating) and
    preheated (a server keeping one kernel ready per dashboard); with ``args.browser_cache ==
    "returning"``, also three visits of one persistent profile (``pw``: playwright)."""
    rows = {_row(n, lang): {"cold": [], "warm": [], "cpu": [], "rss": [], "uss": [],
                            "returning": [], "returning_cold": []}
            for n in names for lang in args.langs}
    rows["_preheated_kernels"] = []
    (REPO / "benchmarks" / "results").mkdir(exist_ok=True)
    plans = {"cold": [], "warm": ["--preheat", str(len(names)),
                                  "--preheat-dashboards", ",".join(names)]}
    for mode, extra in plans.items():
        if mode not in args.server_modes:
            continue
        port = free_port()
        base = f"http://127.0.0.1:{port}/"
        log_path = REPO / "benchmarks" / "results" / f"load_server_per_dashboard_{mode}.log"
        with open(log_path, "w") as log:
            server = start_server(port, extra, args, log)
            try:
                wait_server(base, log)
                if mode == "cold":
                    wait_pool(base, 0, 120)          # the fork server's imports, if it has one
                    rows["_fork_server"] = [(rss_mb(k), uss_mb(k))
                                            for k in fork_server_pids(server.pid)]
                for _ in range(args.repeat):
                    _open_each(args, browser, names, rows, mode, base, server)
                    if args.browser_cache == "returning":
                        key = "returning" if mode == "warm" else "returning_cold"
                        for name in names:
                            for lang in args.langs:
                                got = returning_visits(args, pw, base, name,
                                                       len(names) if mode == "warm" else 0,
                                                       lang=lang)
                                rows[_row(name, lang)][key].append(got)
                            print(f"{key} {name}: {got}", file=sys.stderr, flush=True)
            finally:
                server.send_signal(signal.SIGINT)
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
    return rows


def _row(name, lang):
    """A row of the per-dashboard table: the dashboard, and the language its URL asks for."""
    return f"{name} ({lang})" if lang else name


def _page_url(base, name, lang):
    return f"{base}voila/render/{name}.ipynb" + (f"?lang={lang}" if lang else "")


def _open_each(args, browser, names, rows, mode, base, server):
    if mode == "warm":
        ready = wait_pool(base, len(names), args.deadline * len(names))
        print(f"preheated pool ready after {_fmt(ready)} s", file=sys.stderr, flush=True)
        rows["_preheated_kernels"] = [(rss_mb(k), uss_mb(k)) for k in kernel_pids(server.pid)]
    for name, lang in ((n, lang) for n in names for lang in args.langs):
        if mode == "warm":
            # the kernel the previous page took is replaced first: its start would share the
            # CPU with this page
            wait_pool(base, len(names), args.deadline)
        before = set(kernel_pids(server.pid))
        got = open_one(browser, base, _page_url(base, name, lang), args.deadline,
                       profile=args.browser_profile or bool(args.profile_until),
                       profile_until=args.profile_until)
        r = rows[_row(name, lang)]
        r[mode].append(got)
        if mode == "cold":
            new = [k for k in kernel_pids(server.pid) if k not in before]
            r["cpu"] += [cpu_seconds(new)] if new else []
            r["rss"] += [rss_mb(k) for k in new]
            r["uss"] += [uss_mb(k) for k in new]
        print(f"{mode} {_row(name, lang)}: {got}", file=sys.stderr, flush=True)


def returning_visits(args, pw, base, name, pool, visits=3, lang=None):
    """One returning student: a persistent Chromium profile, new for ``name``, opens its page
    ``visits`` times, each with a fresh preheated kernel (the pool of ``pool`` kernels refilled
    before each visit; ``pool`` 0: a cold kernel each visit); for each visit, (seconds to its
    first chart, None when it failed; seconds the page's main thread spent evaluating plotly's
    bundle). ``lang``: the language the page's URL asks for (None: none)."""
    url = _page_url(base, name, lang)
    times = []
    with tempfile.TemporaryDirectory(prefix="kernelnb-bench-profile-") as folder:
        context = pw.chromium.launch_persistent_context(
            folder, executable_path=args.chromium, headless=True,
            viewport={"width": 1280, "height": 900},
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-dev-shm-usage"])
        try:
            context.add_init_script(FIRST_CHART_JS)
            for _ in range(visits):
                wait_pool(base, pool, args.deadline)
                page = context.new_page()
                settle_browser()
                try:
                    page.goto(url, wait_until="commit", timeout=args.deadline * 1000)
                    t = page.wait_for_function("() => window.__kernelnbFirstChart",
                                               timeout=args.deadline * 1000).json_value()
                    ev = plotly_eval(page)
                    times.append((None if "Traceback" in page.inner_text("body") else t / 1000,
                                  None if ev is None else ev / 1000))
                except Exception:  # noqa: BLE001 - a failed visit shows as '-'
                    times.append((None, None))
                page.close()
        finally:
            context.close()
    return times


def print_per_dashboard(args, rows):
    def med(xs):
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None

    def cell(xs, spec):
        return _fmt(med(xs), spec)

    preheated = rows.pop("_preheated_kernels", [])
    forks = rows.pop("_fork_server", [])
    what = ("browser: first plotly chart drawn" if args.clients == "browser"
            else "websocket: every widget's state received")
    print(f"\nEvery dashboard opened alone ({args.repeat} time(s) each; {what}; kernelnb serve "
          f"on 127.0.0.1, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}): medians, "
          f"seconds from the request\n")
    returning = args.browser_cache == "returning" and "warm" in args.server_modes
    returning_cold = args.browser_cache == "returning" and "cold" in args.server_modes
    languages = any(args.langs)
    print(f"{'dashboard':<22} {'cold':>6} {'html':>6} {'bundle':>6} {'k.CPU':>6} "
          f"{'preheat':>7} {'html':>6} {'bundle':>6} {'RSS MB':>7} {'USS MB':>7}"
          + (f" {'p.eval':>6} {'ret.1':>6} {'p.eval':>6} {'ret.3':>6} {'p.eval':>6}"
             if returning else "") + (f" {'c.ret.1':>7} {'c.ret.3':>7}" if returning_cold else "")
          + (f" {'c.spoke':>7} {'p.spoke':>7}" if languages else ""))
    cold_all, warm_all = [], []
    for name, r in rows.items():
        cold = med([g["chart"] for g in r["cold"]])
        warm = med([g["chart"] for g in r["warm"]])
        if "cold" in args.server_modes:
            cold_all.append(cold)
        if "warm" in args.server_modes:
            warm_all.append(warm)
        print(f"{name:<22} {_fmt(cold, '6.2f')} {cell([g['html'] for g in r['cold']], '6.2f')} "
              f"{cell([g['bundle'] for g in r['cold']], '6.2f')} {cell(r['cpu'], '6.2f')} "
              f"{_fmt(warm, '7.2f')} {cell([g['html'] for g in r['warm']], '6.2f')} "
              f"{cell([g['bundle'] for g in r['warm']], '6.2f')} "
              f"{cell(r['rss'], '7.0f')} {cell(r['uss'], '7.0f')}"
              + (f" {cell([g.get('plotly') for g in r['warm']], '6.2f')}"
                 f" {cell([v[0][0] for v in r['returning']], '6.2f')}"
                 f" {cell([v[0][1] for v in r['returning']], '6.2f')}"
                 f" {cell([v[-1][0] for v in r['returning']], '6.2f')}"
                 f" {cell([v[-1][1] for v in r['returning']], '6.2f')}" if returning else "")
              + (f" {cell([v[0][0] for v in r['returning_cold']], '7.2f')}"
                 f" {cell([v[-1][0] for v in r['returning_cold']], '7.2f')}"
                 if returning_cold else "")
              + (f" {cell([g['spoken'] for g in r['cold']], '7.2f')}"
                 f" {cell([g['spoken'] for g in r['warm']], '7.2f')}" if languages else ""))
        if returning:
            warm_all.append(med([v[-1][0] for v in r["returning"]]))
        if returning_cold:
            cold_all.append(med([v[-1][0] for v in r["returning_cold"]]))
    print("\ncold: first chart of a page that starts its kernel; html / bundle: when the page's "
          "HTML / plotly's widget bundle had arrived (browser only); k.CPU: CPU s its kernel had "
          "used by then; preheat: the same page given a kernel that had run it already; RSS / USS:"
          " the cold kernel after its first chart." + (
              " ret.1 / ret.3: a returning student's first and third visit (one persistent "
              "browser profile, a fresh preheated kernel each visit); p.eval: seconds the page's "
              "main thread spent evaluating plotly's bundle (compiling and running it), for the "
              "visit on its left (Chromium's long-animation-frame entries)." if returning
              else "") + (
              " c.ret.1 / c.ret.3: the same returning student on the server without preheating "
              "(a cold kernel each visit)." if returning_cold else "") + (
              " (en) / (fr): the page's URL asks for that language (?lang=); c.spoke / p.spoke: "
              "seconds until the cold / preheated page speaks it, its readout written (a kernel "
              "preheated in the server's default language re-labels and redraws when its page "
              "asks for another)." if languages else ""))
    if forks:
        print(f"cold kernels forked from the server's fork server (RSS {forks[0][0]:.0f} MB, USS "
              f"{forks[0][1]:.0f} MB, shared by its kernels, copy on write); "
              "kernelnb serve --no-fork-kernels starts each as a new Python process")
    if preheated:
        print(f"preheated kernels ready before the first visit: RSS median "
              f"{statistics.median(a for a, _ in preheated):.0f} MB, USS median "
              f"{statistics.median(b for _, b in preheated):.0f} MB ({len(preheated)} kernels)")
    if any("split" in g for r in rows.values() for g in r["cold"] + r["warm"]):
        until = (f"in the page's first {args.profile_until:g} s (or until its first chart, if "
                 "later)" if args.profile_until else "until the first chart")
        print(f"\nThe browser's main thread {until}, seconds (medians): "
              "plotly = its bundle evaluated and the figures drawn; front-end = Voila, the widget "
              "manager and the extensions; compile+gc = V8 compiling and collecting; idle = "
              "waiting (network, kernel)\n")
        parts = ("plotly", "front-end", "compile+gc", "idle")
        print(f"{'dashboard':<22} " + " ".join(f"{'cold ' + k:>16}" for k in parts) + " "
              + " ".join(f"{'preheat ' + k:>19}" for k in parts))
        for name, r in rows.items():
            line = [cell([g["split"][k] for g in r[mode] if "split" in g], w)
                    for mode, w in (("cold", "16.2f"), ("warm", "19.2f")) for k in parts]
            print(f"{name:<22} " + " ".join(line))
    cold_ok = [x for x in cold_all if x is not None]
    warm_ok = [x for x in warm_all if x is not None]
    if cold_ok and warm_ok:
        print(f"slowest first chart: cold {max(cold_ok):.2f} s, preheated {max(warm_ok):.2f} s")
    failed = sum(x is None for x in cold_all + warm_all)
    if failed:
        print(f"{failed} page(s) showed no chart (or a traceback): see benchmarks/results/")
    return 1 if failed else 0


class ChromiumPage(threading.Thread):
    """One real Chromium page opened while the browserless clients load the server: seconds to
    its first chart (``seconds``; None when it got none within ``deadline``)."""

    def __init__(self, chromium, url, deadline):
        super().__init__(daemon=True)
        self.chromium, self.url, self.deadline = chromium, url, deadline
        self.seconds, self.error, self.ready = None, None, threading.Event()
        self.go = threading.Event()

    def run(self):
        try:
            from playwright.sync_api import sync_playwright
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=self.chromium, headless=True,
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-dev-shm-usage"])
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(FIRST_CHART_JS)
                page = context.new_page()
                self.ready.set()
                self.go.wait()
                response = page.goto(self.url, wait_until="commit", timeout=self.deadline * 1000)
                if response is not None and response.status == 503:
                    self.error = "503: the class is full"
                    browser.close()
                    return
                t = page.wait_for_function("() => window.__kernelnbFirstChart",
                                           timeout=self.deadline * 1000).json_value()
                self.seconds = t / 1000
                browser.close()
        except Exception as exc:  # noqa: BLE001 - reported in the table
            self.error = f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            self.ready.set()


def scenario(name, extra_args, args, browser, sessions=None):
    sessions = args.sessions if sessions is None else sessions
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    (REPO / "benchmarks" / "results").mkdir(exist_ok=True)
    log = open(REPO / "benchmarks" / "results" / f"load_server_{name}_{sessions}.log", "w")
    budget = [] if args.max_kernels is None else ["--max-kernels", str(args.max_kernels)]
    server = start_server(port, [*budget, *extra_args], args, log)
    out = {"scenario": name, "sessions": sessions}
    try:
        wait_server(base, log)
        out["server_rss0"] = rss_mb(server.pid)
        target = server_status(base)["preheat_target"]
        # with no pool to fill, until the fork server has done its imports: a visitor alone
        # would otherwise share the two cores with them (3.8 s against 1.9 s for the playground)
        out["pool_ready_s"] = wait_pool(base, target, 600)
        url = f"{base}voila/render/{args.dashboard}.ipynb"

        # 1. one visitor alone
        if browser is None:
            kids = []
            res, _ = open_clients(base, url, 1, args.deadline, kids)
            contexts = []
            for kid in kids:            # the class's budget is the class's
                shutdown_kernel(base, kid)
        else:
            res, _, _, contexts = open_pages(browser, url, 1, args.deadline)
        out["alone"] = res[0][1] if res[0][0] == "ok" else None
        for c in contexts:
            c.close()
        if target:
            wait_pool(base, target, 600)
        else:
            time.sleep(2)

        # 2. the class at once
        peak = {"kernels": 0, "rss": 0.0}
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                ks = kernel_pids(server.pid)
                peak["kernels"] = max(peak["kernels"], len(ks))
                peak["rss"] = max(peak["rss"], sum(rss_mb(k) for k in ks))
                stop.wait(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # CPU split during the burst: the server and its kernels against the browsers (which, in
        # a class, run on the students' machines, not on the server).
        tree = [server.pid, *children(server.pid)]
        cpu0 = (cpu_seconds(tree), cpu_seconds(browser_pids()))
        chromium = None
        if browser is None and args.chromium_page:
            chromium = ChromiumPage(args.chromium, url, args.deadline)
            chromium.start()
            chromium.ready.wait(120)
        if browser is None:
            if chromium is not None:
                chromium.go.set()            # the student's page, at the class's moment
            results, wall = open_clients(base, url, sessions, args.deadline)
            errors, contexts = 0, []
        else:
            results, wall, errors, contexts = open_pages(browser, url, sessions,
                                                         args.deadline)
        tree = [server.pid, *children(server.pid)]
        out["cpu_server"] = cpu_seconds(tree) - cpu0[0]
        out["cpu_browser"] = cpu_seconds(browser_pids()) - cpu0[1]
        out["load"] = os.getloadavg()[0]
        ks = kernel_pids(server.pid)
        alive = [k for k in ks if Path(f"/proc/{k}").exists()]
        out.update(results=results, wall=wall, errors=errors, alive=len(alive),
                   per_kernel=[rss_mb(k) for k in alive], status=server_status(base))
        if chromium is not None:          # measured above as soon as the clients were done
            chromium.join(args.deadline + 30)
            out["chromium"] = chromium.seconds
            out["chromium_error"] = chromium.error
        for c in contexts:
            c.close()
        stop.set()
        sampler.join(timeout=2)
        out["peak"] = peak
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    return out


def _fmt(v, spec=".1f"):
    """``v`` formatted by ``spec``; "-" (as wide as ``spec`` says) when None."""
    return format("-", f">{spec.split('.')[0] or 0}") if v is None else format(v, spec)


def _class_sizes(text, max_kernels, browser):
    """``--sessions``: "20", "20,50,max" ("max": the server's kernel budget)."""
    sizes = []
    for item in text.split(","):
        item = item.strip()
        n = max_kernels if item == "max" else int(item)
        limit = 64 if browser else 1000
        if not 1 <= n <= limit:
            raise ValueError(f"--sessions: {item!r} gives {n}; each size must be in 1..{limit}")
        sizes.append(n)
    return sizes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", default="20",
                    help="students opening the dashboard at once; several sizes comma-separated, "
                         "'max' for the server's --max-kernels (e.g. 20,50,max)")
    ap.add_argument("--dashboard", default="svm_playground")
    ap.add_argument("--preheat", type=int, default=None,
                    help="preheated kernels in the 'preheat' scenario (default: the class size, "
                         "within --max-kernels)")
    ap.add_argument("--max-kernels", type=int, default=None,
                    help="the server's kernel budget (kernelnb serve --max-kernels; default: "
                         "what this machine's memory holds)")
    ap.add_argument("--scenarios", default="default,preheat")
    ap.add_argument("--deadline", type=float, default=300.0,
                    help="seconds each page may take to show its chart")
    ap.add_argument("--clients", choices=("browser", "websocket"), default="browser",
                    help="browser: headless Chromium pages (first plotly chart drawn); websocket: "
                         "what a page's widget manager does, without a browser (every widget's "
                         "state received): the server and its kernels alone")
    ap.add_argument("--no-chromium-page", dest="chromium_page", action="store_false",
                    help="with --clients websocket, do not open the one real Chromium page")
    ap.add_argument("--chromium", default=os.environ.get("KERNELNB_CHROMIUM")
                    or shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--per-dashboard", default=None, metavar="NAMES",
                    help="'all' or comma-separated dashboards: each opened alone, cold and "
                         "preheated (see the module's docstring)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --per-dashboard: times each dashboard is opened")
    ap.add_argument("--serve-arg", action="append", default=[], metavar="OPTION",
                    help="an option for every kernelnb serve started, e.g. "
                         "--serve-arg=--no-fork-kernels (repeatable)")
    ap.add_argument("--repo", default=None, metavar="CHECKOUT",
                    help="serve this checkout's kernelnb and dashboards (default: this one)")
    ap.add_argument("--browser-profile", action="store_true",
                    help="with --per-dashboard and the browser: split each page's main thread "
                         "until its first chart (plotly / the rest of the front-end / compiling "
                         "and garbage collection / idle), from Chromium's sampling profiler")
    ap.add_argument("--profile-until", type=float, default=None, metavar="SECONDS",
                    help="with --per-dashboard and the browser: profile each page's main thread "
                         "until SECONDS after its request (or its first chart, if later), so the "
                         "split counts every chart the page draws at load (implies "
                         "--browser-profile)")
    ap.add_argument("--servers", default="cold,preheat",
                    help="with --per-dashboard: the servers to open the dashboards on (cold: "
                         "without preheating; preheat: one preheated kernel per dashboard)")
    ap.add_argument("--no-settle", dest="settle", action="store_false",
                    help="request each page as soon as its tab is created, while the browser is "
                         "still starting the tab's renderer (the tables before 2026-11-28); by "
                         "default a page is requested once its tab is idle (settle_browser)")
    ap.add_argument("--lang", default="", metavar="LANGS",
                    help="with --per-dashboard: open each page with ?lang= for each of these "
                         "languages in turn (e.g. en,fr; the server's default is English), and "
                         "time until the page speaks it")
    ap.add_argument("--browser-cache", choices=("fresh", "returning"), default="fresh",
                    help="with --per-dashboard and the browser: 'returning' adds three visits "
                         "of one persistent browser profile per dashboard to each server (see "
                         "the module's docstring)")
    args = ap.parse_args(argv)
    global SETTLE
    SETTLE = args.settle
    servers = {s.strip() for s in args.servers.split(",") if s.strip()}
    if not servers or servers - {"cold", "preheat"}:
        ap.error(f"--servers: {args.servers!r}: give cold, preheat or both")
    args.server_modes = {"cold" if s == "cold" else "warm" for s in servers}
    args.langs = [x.strip() for x in args.lang.split(",") if x.strip()] or [None]
    from kernelnb.lab.i18n import LANGUAGES
    if set(args.langs) - {None, *LANGUAGES}:
        ap.error(f"--lang: {args.lang!r}: give languages among {', '.join(LANGUAGES)}")
    if args.browser_cache == "returning" and args.clients != "browser":
        ap.error("--browser-cache returning needs the browser")
    if args.per_dashboard:
        folder = (Path(args.repo).resolve() if args.repo else REPO) / "dashboards"
        names = (sorted(p.stem for p in folder.glob("*.ipynb")) if args.per_dashboard == "all"
                 else [n.strip() for n in args.per_dashboard.split(",") if n.strip()])
        if args.clients == "websocket":
            return print_per_dashboard(args, per_dashboard(args, None, names))
        from playwright.sync_api import sync_playwright
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=args.chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-dev-shm-usage"])
            rows = per_dashboard(args, browser, names, pw)
            browser.close()
        return print_per_dashboard(args, rows)
    from kernelnb.lab.server._kernelpool import default_max_kernels
    budget = default_max_kernels() if args.max_kernels is None else args.max_kernels
    try:
        sizes = _class_sizes(args.sessions, budget, args.clients == "browser")
    except ValueError as exc:
        ap.error(str(exc))
    names = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    for s in names:
        if s not in ("default", "preheat"):
            ap.error(f"--scenarios: unknown scenario {s!r} (default, preheat)")

    def plan(s, n):
        if s == "default":
            return [], "default (no preheat)"
        k = min(n if args.preheat is None else args.preheat, budget or n)
        return ["--preheat", str(k), "--preheat-dashboards", args.dashboard], f"--preheat {k}"

    outs = []
    if args.clients == "websocket":
        for n in sizes:
            for s in names:
                extra, label = plan(s, n)
                outs.append({**scenario(s, extra, args, None, n), "label": label})
    else:
        from playwright.sync_api import sync_playwright
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=args.chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-dev-shm-usage"])
            for n in sizes:
                for s in names:
                    extra, label = plan(s, n)
                    outs.append({**scenario(s, extra, args, browser, n), "label": label})
            browser.close()

    what = ("browser pages, time to the first chart" if args.clients == "browser" else
            "websocket clients, time to every widget's state")
    print(f"\nLoad: {args.dashboard}, students opening it at once, {what} (kernelnb serve on "
          f"127.0.0.1, --max-kernels {budget}, {os.cpu_count()} cores)\n")
    rows = [("", [f"{o['sessions']}: {o['label']}" for o in outs])]

    def row(name, f):
        rows.append((name, [f(o) for o in outs]))

    def ok(o):
        return [t for st, t in o["results"] if st == "ok"]

    def count(o, state):
        return sum(1 for st, _ in o["results"] if st == state)

    row("pool (or fork server) ready after (s)", lambda o: _fmt(o["pool_ready_s"]))
    row("one visitor alone (s)", lambda o: _fmt(o["alone"], ".2f"))
    row("sessions rendered / opened", lambda o: f"{len(ok(o))} / {o['sessions']}")
    row("answered 503 'class is full'", lambda o: str(count(o, "full")))
    row("failed (no answer in time)", lambda o: str(count(o, "timeout")))
    for what, fn in (("min", min), ("median", statistics.median), ("max", max)):
        row(f"all at once, {what} (s)",
            lambda o, fn=fn: _fmt(fn(ok(o)) if ok(o) else None))
    row("wall time, all pages (s)", lambda o: _fmt(o["wall"]))
    # With the Chromium page, its kernel is the server's too: one more student.
    def students(o):
        return len(ok(o)) + (1 if o.get("chromium") is not None else 0)

    row("CPU s in the burst: server + kernels", lambda o: _fmt(o["cpu_server"]))
    row("  per student rendered (CPU s)",
        lambda o: _fmt(o["cpu_server"] / students(o) if students(o) else None, ".2f"))
    row("CPU s in the burst: browsers", lambda o: _fmt(o["cpu_browser"]))
    if args.clients == "websocket" and args.chromium_page:
        row("one Chromium page meanwhile: first chart (s)",
            lambda o: _fmt(o.get("chromium")) if o.get("chromium") is not None
            else ("error" if o.get("chromium_error") else "-"))
    row("load average at the end", lambda o: _fmt(o["load"]))
    row("kernels alive after / peak", lambda o: f"{o['alive']} / {o['peak']['kernels']}")
    row("pages showing a traceback", lambda o: str(o["errors"]))
    row("kernel RSS, mean (MB)",
        lambda o: _fmt(statistics.mean(o["per_kernel"]) if o["per_kernel"] else None, ".0f"))
    row("kernel RSS, max (MB)",
        lambda o: _fmt(max(o["per_kernel"]) if o["per_kernel"] else None, ".0f"))
    row("kernels RSS total, peak (MB)", lambda o: _fmt(o["peak"]["rss"], ".0f"))
    row("server RSS before load (MB)", lambda o: _fmt(o["server_rss0"], ".0f"))
    w = max(len(r[0]) for r in rows)
    cw = max(max(len(c) for c in r[1]) for r in rows) + 2
    for name, cells in rows:
        print(f"  {name:<{w}}" + "".join(f"{c:>{cw}}" for c in cells))
    for o in outs:
        if o.get("chromium_error"):
            print(f"  Chromium page, {o['sessions']} {o['label']}: {o['chromium_error']}")
    # A page refused past the budget is the server doing its job; one without an answer is not.
    failed = any(count(o, "timeout") for o in outs)
    if failed:
        print("\nSOME SESSIONS FAILED: see benchmarks/results/load_server_*.log")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
