"""Load: many students open a dashboard at the same moment.

Starts ``kernelnb serve`` on a free loopback port, then opens N pages (default 20) of one dashboard
at once in headless Chromium (one browser, N contexts, all on 127.0.0.1), and measures for each the
time from the request to its first plotly chart, checks that every kernel is still alive at the end,
and reports the resident memory (RSS) of the kernel processes. Bounded: every page has a deadline
and the run stops by itself.

    python benchmarks/bench_dashboards_load.py [--sessions 20] [--dashboard svm_playground]
                                               [--deadline 300]
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

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


def kernel_pids(server_pid):
    pids = []
    for p in children(server_pid):
        try:
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "ipykernel_launcher" in cmd:
            pids.append(p)
    return pids


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--dashboard", default="svm_playground")
    ap.add_argument("--deadline", type=float, default=300.0,
                    help="seconds each page may take to show its chart")
    ap.add_argument("--chromium", default=os.environ.get("KERNELNB_CHROMIUM")
                    or shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)
    if args.sessions < 1 or args.sessions > 64:
        ap.error(f"--sessions must be in 1..64, got {args.sessions}")

    from playwright.sync_api import sync_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    (REPO / "benchmarks" / "results").mkdir(exist_ok=True)
    log = open(REPO / "benchmarks" / "results" / "load_server.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "kernelnb.cli", "serve", "--no-browser",
                               "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            try:
                urllib.request.urlopen(base, timeout=2).close()
                break
            except OSError:
                time.sleep(0.3)
        else:
            raise SystemExit("server did not start; see benchmarks/results/load_server.log")
        server_rss0 = rss_mb(server.pid)

        url = f"{base}voila/render/{args.dashboard}.ipynb"
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
        results = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=args.chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-dev-shm-usage"])
            contexts = [browser.new_context(viewport={"width": 1280, "height": 900})
                        for _ in range(args.sessions)]
            for c in contexts:
                # the page stamps the moment its first chart has data (ms since navigation start)
                c.add_init_script("""(() => {
                  const id = setInterval(() => {
                    const g = document.querySelector('.js-plotly-plot');
                    if (g && g.data && g.data.length) {
                      window.__kernelnbFirstChart = performance.now(); clearInterval(id);
                    }
                  }, 50);
                })();""")
            pages = [c.new_page() for c in contexts]
            start = time.monotonic()
            for pg in pages:        # all requests go out before any chart is awaited
                pg.goto(url, wait_until="commit", timeout=args.deadline * 1000)
            for pg in pages:
                left = max(1.0, args.deadline - (time.monotonic() - start))
                try:
                    t = pg.wait_for_function("() => window.__kernelnbFirstChart",
                                             timeout=left * 1000).json_value()
                    results.append(("ok", t / 1000))
                except Exception as exc:  # noqa: BLE001 - reported in the table
                    results.append(("timeout", type(exc).__name__))
            wall = time.monotonic() - start
            ks = kernel_pids(server.pid)
            alive = [k for k in ks if Path(f"/proc/{k}").exists()]
            per_kernel = [rss_mb(k) for k in alive]
            errors = sum("Traceback" in pg.inner_text("body")
                         for pg, (status, _) in zip(pages, results) if status == "ok")
            for c in contexts:
                c.close()
            browser.close()
        stop.set()
        sampler.join(timeout=2)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    ok = [t for s, t in results if s == "ok"]
    print(f"\nLoad: {args.sessions} sessions of {args.dashboard} opened at once "
          f"(Voila on 127.0.0.1, {os.cpu_count()} cores)\n")
    rows = [
        ("sessions rendered / opened", f"{len(ok)} / {args.sessions}"),
        ("time to first chart, min (s)", f"{min(ok):.1f}" if ok else "-"),
        ("time to first chart, median (s)", f"{statistics.median(ok):.1f}" if ok else "-"),
        ("time to first chart, max (s)", f"{max(ok):.1f}" if ok else "-"),
        ("wall time, all pages (s)", f"{wall:.1f}"),
        ("kernels alive at the end / peak", f"{len(alive)} / {peak['kernels']}"),
        ("pages showing a traceback", f"{errors}"),
        ("kernel RSS per session, mean (MB)",
         f"{statistics.mean(per_kernel):.0f}" if per_kernel else "-"),
        ("kernel RSS per session, max (MB)", f"{max(per_kernel):.0f}" if per_kernel else "-"),
        ("kernels RSS total, peak (MB)", f"{peak['rss']:.0f}"),
        ("server RSS before load (MB)", f"{server_rss0:.0f}"),
    ]
    w = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"  {k:<{w}}  {v:>10}")
    if len(ok) < args.sessions or len(alive) < len(ok):
        print("\nSOME SESSIONS FAILED: see benchmarks/results/load_server.log")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
