// kernelnb: a dashboard's charts say at once that a change of a control is being computed.
//
// A control's new value goes to the dashboard's Python kernel, which refits and sends the new
// pictures (how long that takes: benchmarks/bench_slider_latency.py). Until the first new
// picture is drawn, the charts would show the old result as if it were the answer to the new
// setting. So, as soon as the student moves a control (a slider's key or release, a change of a
// field, list or box, a button), every chart of the page is marked stale, in the browser,
// without waiting for the kernel: it is faded (the CSS class kernelnb-busy, in the page
// template) and says aria-busy="true", which tells a screen reader the region is being updated.
// The mark goes when the chart is next redrawn (a partial result or the final one), else a while
// after the kernel says it is idle again (a change that draws nothing new), else after MAX_MS.
// Nothing here sends anything to the kernel; the kernel connection comes from kernelnb-watch.js.
(function () {
  "use strict";

  var QUIET_MS = 1500;    // the kernel idle this long and no chart redrawn: nothing is coming
  var MAX_MS = 20000;     // a mark never stays longer
  var CONTROLS = ".widget-slider, .jupyter-widget-slider, .widget-dropdown, .widget-select, " +
    ".widget-text, .widget-checkbox, .widget-toggle-buttons, .widget-toggle-button, " +
    ".widget-button, .jupyter-widget-toggle-buttons, .jupyter-widget-toggle-button, " +
    ".jupyter-button, .widget-inline-hbox";
  var SLIDER_KEYS = {ArrowLeft: 1, ArrowRight: 1, ArrowUp: 1, ArrowDown: 1, PageUp: 1,
                     PageDown: 1, Home: 1, End: 1};
  var observed = new WeakSet();
  var marked = [];
  var maxTimer = null;
  var quietTimer = null;

  function charts() {
    return Array.prototype.filter.call(
      document.querySelectorAll("[class*='kernelnb-chart-']"),
      function (box) {
        // a chart of the dashboard that is shown (one hidden by its toggle has no box)
        return /(?:^|\s)kernelnb-chart-(?!texts\b)[\w-]+/.test(box.className) &&
          box.getClientRects().length > 0;
      });
  }

  function unmark(box) {
    box.classList.remove("kernelnb-busy");
    box.removeAttribute("aria-busy");
    marked = marked.filter(function (b) { return b !== box; });
    if (!marked.length) {
      clearTimeout(maxTimer);
      clearTimeout(quietTimer);
    }
  }

  function watch(box) {
    // a redraw of the chart (plotly rewrites its SVG) ends the mark on that chart
    // (the figure widget's element is plotly's own div; the mark's class and aria-busy on it are
    // this script's, not a redraw)
    var plot = box.matches(".js-plotly-plot") ? box : box.querySelector(".js-plotly-plot");
    if (!plot || observed.has(plot)) {
      return;
    }
    observed.add(plot);
    new MutationObserver(function (records) {
      var redrawn = records.some(function (r) {
        return !(r.target === box && r.type === "attributes" &&
                 (r.attributeName === "class" || r.attributeName === "aria-busy"));
      });
      if (redrawn && box.classList.contains("kernelnb-busy")) {
        unmark(box);
      }
    }).observe(plot, {subtree: true, childList: true, attributes: true, characterData: true});
  }

  function clearAll() {
    marked.slice().forEach(unmark);
  }

  function markAll() {
    var boxes = charts();
    boxes.forEach(function (box) {
      watch(box);
      box.classList.add("kernelnb-busy");
      box.setAttribute("aria-busy", "true");
      if (marked.indexOf(box) < 0) {
        marked.push(box);
      }
    });
    clearTimeout(maxTimer);
    clearTimeout(quietTimer);
    if (boxes.length) {
      maxTimer = setTimeout(clearAll, MAX_MS);
      // a key that moved nothing (a slider at its end) sends nothing: the kernel never turns
      // busy, and the mark goes after twice the quiet time (a message does turn it busy first)
      quietTimer = setTimeout(clearAll, 2 * QUIET_MS);
    }
  }

  function fromControl(target) {
    return target && target.closest && target.closest(CONTROLS) &&
      !target.closest("[class*='kernelnb-chart-']");
  }

  document.addEventListener("keydown", function (e) {
    if (SLIDER_KEYS[e.key] && e.target && e.target.getAttribute &&
        e.target.getAttribute("role") === "slider" && fromControl(e.target)) {
      markAll();
    }
  }, true);
  document.addEventListener("pointerup", function (e) {
    if (e.target && e.target.closest && e.target.closest(".noUi-target") && fromControl(e.target)) {
      markAll();
    }
  }, true);
  document.addEventListener("change", function (e) {
    if (fromControl(e.target)) {
      markAll();
    }
  }, true);
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest && e.target.closest("button");
    if (button && fromControl(button) && !button.disabled) {
      markAll();
    }
  }, true);

  // The kernel idle: what the change draws has been sent; a chart not redrawn by then stays as
  // it is (a change that draws nothing new), so its mark goes soon after.
  function attach(kernel) {
    kernel.statusChanged.connect(function (_k, status) {
      clearTimeout(quietTimer);
      if (status === "idle" && marked.length) {
        quietTimer = setTimeout(clearAll, QUIET_MS);
      }
    });
  }

  // kernelnb-watch.js waits for Voila's kernel connection and hands it on
  if (window.kernelnbKernel) {
    attach(window.kernelnbKernel);
  } else {
    window.addEventListener("kernelnb-kernel", function (e) { attach(e.detail); }, {once: true});
  }
})();
