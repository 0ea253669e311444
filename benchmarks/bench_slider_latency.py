"""Slider latency in the browser: from a key press on a dashboard's slider to its chart's change.

For each server (``default``: ``kernelnb serve`` as it starts; ``preheat``: ``kernelnb serve
--preheat N --preheat-dashboards <the dashboards>``), each dashboard is opened alone in headless
Chromium (Playwright, ``/usr/bin/chromium``) and, once its first chart is drawn and the page has
been quiet for a second, its first ``--sliders`` enabled sliders (default 3; a disabled slider is
a control the current setting does not use) are each stepped ``--steps`` times (default 3): the
handle is focused and ArrowRight pressed, as a student does (ArrowLeft at the slider's end).
A MutationObserver on every plotly chart of the page notes each change of the charts' DOM; per step,
two times from the key press (the page's own ``keydown`` timestamp): to the first change of a chart
(something visible moved: a partial result or the complete one) and to the last change before the
page is quiet again for ``--quiet`` seconds (the final picture).
A step that changes nothing within ``--timeout`` seconds counts as missing.  Apart from the
charts' DOM, the time at which the page marks its charts stale (``kernelnb-busy.js`` sets
``aria-busy`` on them at the key press, before the kernel answers) is its own column: it says
the page took the key, not that a new picture is there, so it is not counted as a change.
Per dashboard and server: p50, p95 and max of each, over all its steps.  To say where the time
goes, the page's websocket is watched too: per step, the time to the last message from the
kernel (the kernel's compute and its widget messages) and the kilobytes received by then, and
those of the whole step (until the page is quiet: what comes after the final picture too); the
rest, to the final picture, is the browser's (plotly's redraw).  The split is approximate: the
page's JavaScript takes a message off the socket only when it is free, so while plotly redraws a
first (partial) picture the next message waits, and that wait is counted in the kernel's column.
The bar: the final picture within 200 ms at p95, something visible within 100 ms.

Usage::

    python benchmarks/bench_slider_latency.py [--dashboards feature_selection,density_explorer]
        [--servers default,preheat] [--results benchmarks/results/slider_latency.json]

The machine may be shared: compare dashboards measured in the same run.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import types

from _common import load_now, load_text, save_table
from bench_dashboards_load import REPO, free_port, start_server, wait_pool, wait_server

# Before any page script: every message a websocket of the page receives is noted (time, bytes).
WS_JS = """(() => {
  window.__kbWs = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', e => {
      const d = e.data;
      const n = typeof d === 'string' ? d.length : (d.byteLength || d.size || 0);
      window.__kbWs.push([performance.now(), n]);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();"""

OBSERVE_JS = """() => {
  window.__kbMut = [];
  window.__kbKey = null;
  document.addEventListener('keydown', e => { window.__kbKey = e.timeStamp; }, true);
  window.__kbBusy = [];
  // a change of the chart: anything but the stale mark the page puts on the chart's own element
  const obs = new MutationObserver(ms => {
    if (ms.some(m => !(m.type === 'attributes' && m.target.classList &&
                       m.target.classList.contains('js-plotly-plot') &&
                       ['class', 'aria-busy'].includes(m.attributeName))))
      window.__kbMut.push(performance.now());
  });
  // the page marking its charts stale at once (kernelnb-busy.js: aria-busy on a chart's box)
  new MutationObserver(ms => {
    if (ms.some(m => m.target.getAttribute('aria-busy') === 'true'))
      window.__kbBusy.push(performance.now());
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['aria-busy']});
  for (const el of document.querySelectorAll('.js-plotly-plot')) {
    obs.observe(el, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return document.querySelectorAll('.js-plotly-plot').length;
}"""


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def wait_quiet(page, quiet, timeout, since=None):
    """Wait until no chart changed for ``quiet`` seconds (and at least ``quiet`` after
    ``since``, a page timestamp); returns the page's mutation times."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        now, muts = page.evaluate("() => [performance.now(), window.__kbMut]")
        last = max(muts[-1] if muts else 0, since or 0)
        if now - last >= quiet * 1000:
            return muts
        time.sleep(0.05)
    return page.evaluate("() => window.__kbMut")


def measure_dashboard(browser, url, args):
    """[(first ms, last ms, last kernel message ms, kB received by the last change, stale mark
    ms or None, kB of the whole step) or None per step], and the number of charts."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(WS_JS)
    page = ctx.new_page()
    out = []
    try:
        page.goto(url, wait_until="commit", timeout=args.deadline * 1000)
        page.wait_for_selector(".js-plotly-plot", state="visible", timeout=args.deadline * 1000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.js-plotly-plot')]"
            ".some(el => el.data && el.data.length > 0)", timeout=args.deadline * 1000)
        page.evaluate("() => window.__kbMut = []")
        n_charts = page.evaluate(OBSERVE_JS)
        wait_quiet(page, 1.0, args.deadline)
        # the page's enabled sliders (a control the current setting does not use is disabled)
        handles = page.locator(".noUi-target:not([disabled]) .noUi-handle")
        for s in range(min(args.sliders, handles.count())):
            handle = handles.nth(s)
            for _ in range(args.steps):
                page.evaluate("() => { window.__kbMut = []; window.__kbKey = null; "
                              "window.__kbWs = []; window.__kbBusy = []; }")
                handle.focus()
                at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute(
                    "aria-valuemax")
                handle.press("ArrowLeft" if at_end else "ArrowRight")
                key = page.evaluate("() => window.__kbKey")
                muts = wait_quiet(page, args.quiet, args.timeout, since=key)
                after = [m for m in muts if key is not None and m >= key]
                every = [(t, n) for t, n in page.evaluate("() => window.__kbWs")
                         if key is not None and t >= key]
                ws = [(t, n) for t, n in every if not after or t <= after[-1]]
                busy = [b - key for b in page.evaluate("() => window.__kbBusy")
                        if key is not None and b >= key]
                out.append((after[0] - key, after[-1] - key,
                            (ws[-1][0] - key) if ws else 0.0,
                            sum(n for _, n in ws) / 1000,
                            busy[0] if busy else None,
                            sum(n for _, n in every) / 1000) if after else None)
        return out, n_charts
    finally:
        ctx.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dashboards", default="all",
                    help="comma-separated names (of dashboards/*.ipynb), or all")
    ap.add_argument("--servers", default="default,preheat")
    ap.add_argument("--sliders", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--quiet", type=float, default=1.0,
                    help="seconds without a chart change that end a step")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--deadline", type=float, default=120.0, help="seconds to open a page")
    ap.add_argument("--chromium", default=os.environ.get("KERNELNB_CHROMIUM")
                    or shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--results", default=None, metavar="FILE")
    args = ap.parse_args(argv)
    names = (sorted(p.stem for p in (REPO / "dashboards").glob("*.ipynb"))
             if args.dashboards == "all" else
             [n.strip() for n in args.dashboards.split(",") if n.strip()])
    load0 = load_now()
    print(f"# load average at start: {load0:.2f}", flush=True)
    from playwright.sync_api import sync_playwright
    rows = []
    serve = types.SimpleNamespace(repo=None, serve_arg=[])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=args.chromium, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-dev-shm-usage"])
        for server_name in [s.strip() for s in args.servers.split(",") if s.strip()]:
            extra = ([] if server_name == "default" else
                     ["--preheat", str(len(names)), "--preheat-dashboards", ",".join(names)])
            port = free_port()
            base = f"http://127.0.0.1:{port}/"
            (REPO / "benchmarks" / "results").mkdir(exist_ok=True)
            log_path = REPO / "benchmarks" / "results" / f"slider_latency_{server_name}.log"
            with open(log_path, "w") as log:
                server = start_server(port, extra, serve, log)
                try:
                    wait_server(base, log)
                    if server_name == "preheat":
                        wait_pool(base, len(names), 60 * len(names))
                    for name in names:
                        steps, n_charts = measure_dashboard(
                            browser, f"{base}voila/render/{name}.ipynb", args)
                        got = [s for s in steps if s is not None]
                        first = [s[0] for s in got]
                        last = [s[1] for s in got]
                        kernel = [s[2] for s in got]
                        kb = [s[3] for s in got]
                        stale = [s[4] for s in got if s[4] is not None]
                        kb_all = [s[5] for s in got]
                        row = [name, server_name, f"{len(got)}/{len(steps)}"]
                        for xs in (last, first):
                            row += [f"{percentile(xs, q):.0f}" if xs else "" for q in (.5, .95)]
                            row.append(f"{max(xs):.0f}" if xs else "")
                        row += [f"{percentile(stale, .95):.0f}" if stale else "",
                                f"{percentile(kernel, .5):.0f}" if kernel else "",
                                f"{percentile([b - a for a, b in zip(kernel, last)], .5):.0f}"
                                if kernel else "",
                                f"{percentile(kb, .5):.0f}" if kb else "",
                                f"{percentile(kb_all, .5):.0f}" if kb_all else ""]
                        rows.append(row)
                        print("  done: " + " | ".join(row), file=sys.stderr, flush=True)
                finally:
                    server.send_signal(signal.SIGINT)
                    try:
                        server.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        server.kill()
        browser.close()
    load1 = load_now()
    cols = ["dashboard", "server", "steps changed", "final p50 (ms)", "final p95", "final max",
            "first change p50 (ms)", "first p95", "first max", "charts marked stale p95 (ms)",
            "last kernel message p50 (ms)", "browser after it p50 (ms)", "kB received p50",
            "kB of the whole step p50"]
    print()
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"# {load_text(load0, load1)}")
    if args.results:
        save_table(args.results, title="Slider latency in Chromium, per dashboard",
                   setup=f"{args.sliders} sliders x {args.steps} ArrowRight steps per dashboard, "
                         "from the keydown to the first and to the last change of the page's "
                         f"plotly charts (quiet {args.quiet:g} s after); default and preheated "
                         "kernelnb serve",
                   columns=cols, rows=rows, load=load_text(load0, load1))
    return rows


if __name__ == "__main__":
    main()
