// kernelnb: what a dashboard page's controls and charts say to a screen reader and the keyboard.
//
// The dashboards are ipywidgets controls and plotly charts, rendered by Voila. ipywidgets 8 leaves
// gaps that WCAG 2.2 AA does not (criterion 4.1.2, name, role, value; 1.3.1, info and
// relationships): a slider's <label> is never tied to noUiSlider's handle (jupyter-widgets/
// ipywidgets#2650), so the handle has no accessible name; its value text is noUiSlider's, which for
// a logarithmic slider is the exponent ("-2" for C = 0.01), not what the readout shows; toggle
// buttons show their state only by a CSS class. This script mends the page as ipywidgets draws it,
// and again whenever it redraws (a MutationObserver):
//
// * a slider's handle is named by the slider's label (aria-labelledby) and its value text is its
//   readout's text (what the student sees: 0.01, not -2); the readout, an editable field, is named
//   by the same label;
// * a group of toggle buttons is a named group and each button says whether it is pressed
//   (aria-pressed), as is a single toggle button;
// * a chart (each plotly figure, marked by the dashboard with the CSS class kernelnb-chart-<id>)
//   is a figure named and described by the texts the dashboard writes for it (the elements with
//   the ids kernelnb-chart-name-<id> and kernelnb-chart-desc-<id>, see
//   kernelnb.lab.app._a11y); plotly's own drawing (axis ticks read out one by one) is hidden
//   from the accessibility tree, its toolbar is not;
// * the dashboard's status line (CSS class kernelnb-status) is a polite live region: it stays in
//   the page while its text changes, so what it says after each change is announced;
// * the page has one main landmark (Voila's cells) and a skip link to it; labels whose tooltip
//   ipywidgets wrote as the word "null" lose it.
// Nothing here changes a value or sends anything to the kernel.
(function () {
  "use strict";

  var texts = window.kernelnbWatchTexts || {};
  var uid = 0;

  function language() {
    var lang = String(window.kernelnbLang || document.documentElement.lang || "en");
    return lang.toLowerCase().split(/[-_]/)[0];
  }

  function t(key, fallback) {
    var table = texts[language()] || {};
    return table[key] || fallback;
  }

  function idOf(el) {
    if (!el.id) {
      uid += 1;
      el.id = "kernelnb-a11y-" + uid;
    }
    return el.id;
  }

  function setAttr(el, name, value) {
    if (value === null || value === undefined) {
      if (el.hasAttribute(name)) {
        el.removeAttribute(name);
      }
    } else if (el.getAttribute(name) !== String(value)) {
      el.setAttribute(name, String(value));
    }
  }

  // The visible label of a widget (ipywidgets' description), or null when it has none.
  function labelOf(box) {
    var label = box.querySelector(":scope > label.widget-label, :scope > label");
    if (label && label.textContent.trim() && label.style.display !== "none") {
      return label;
    }
    return null;
  }

  function sliders(root) {
    root.querySelectorAll(".widget-slider, .jupyter-widget-slider").forEach(function (box) {
      var label = labelOf(box);
      var handles = box.querySelectorAll("[role=slider]");
      var readout = box.querySelector(".widget-readout");
      var shown = readout && readout.style.display !== "none" ? readout.textContent.trim() : "";
      // a range slider's readout holds both ends ("0.20 – 0.80"); one per handle
      var parts = handles.length > 1 ? shown.split(/\s*[–-]\s*(?=[^\s])/) : [shown];
      handles.forEach(function (handle, i) {
        if (label) {
          setAttr(handle, "aria-labelledby", idOf(label));
        }
        var text = parts.length === handles.length ? parts[i] : shown;
        if (text) {
          setAttr(handle, "aria-valuetext", text);
        }
      });
      if (readout && label) {
        setAttr(readout, "role", "textbox");
        setAttr(readout, "aria-labelledby", idOf(label));
      }
    });
  }

  function toggles(root) {
    root.querySelectorAll(".widget-toggle-buttons, .jupyter-widget-toggle-buttons")
      .forEach(function (box) {
        var label = labelOf(box);
        var group = box.querySelector(":scope > div") || box;
        setAttr(group, "role", "group");
        if (label) {
          setAttr(group, "aria-labelledby", idOf(label));
        }
      });
    root.querySelectorAll("button.widget-toggle-button, button.jupyter-widget-toggle-button")
      .forEach(function (button) {
        setAttr(button, "aria-pressed", button.classList.contains("mod-active") ? "true" : "false");
      });
  }

  function charts(root) {
    root.querySelectorAll("[class*='kernelnb-chart-']").forEach(function (box) {
      var match = /(?:^|\s)kernelnb-chart-([\w-]+)(?:\s|$)/.exec(box.className);
      if (!match || match[1] === "texts") {
        return;
      }
      var key = match[1];
      setAttr(box, "role", "figure");
      if (document.getElementById("kernelnb-chart-name-" + key)) {
        setAttr(box, "aria-labelledby", "kernelnb-chart-name-" + key);
      }
      if (document.getElementById("kernelnb-chart-desc-" + key)) {
        setAttr(box, "aria-describedby", "kernelnb-chart-desc-" + key);
      }
      // plotly's SVG layers read out every tick label and legend entry; the figure's name and
      // description say what the chart shows, and its table gives the numbers
      box.querySelectorAll("svg.main-svg").forEach(function (svg) {
        setAttr(svg, "aria-hidden", "true");
      });
    });
  }

  function statusRegions(root) {
    root.querySelectorAll(".kernelnb-status").forEach(function (el) {
      setAttr(el, "role", "status");
      setAttr(el, "aria-live", "polite");
      setAttr(el, "aria-atomic", "true");
    });
    // an error message (an update refused, a setting too large) is said at once
    root.querySelectorAll(".kernelnb-error").forEach(function (el) {
      setAttr(el, "role", "alert");
    });
  }

  function nullTooltips(root) {
    root.querySelectorAll("[title='null']").forEach(function (el) {
      el.removeAttribute("title");
    });
  }

  function landmarks() {
    var cells = document.getElementById("rendered_cells");
    if (!cells) {
      return;
    }
    setAttr(cells, "role", "main");
    setAttr(cells, "tabindex", "-1");
    var skip = document.querySelector("a.kernelnb-skip");
    if (!skip) {
      skip = document.createElement("a");
      skip.className = "kernelnb-skip";
      skip.href = "#rendered_cells";
      document.body.insertBefore(skip, document.body.firstChild);
    }
    var text = t("skip", "Skip to the dashboard");
    if (skip.textContent !== text) {
      skip.textContent = text;
    }
  }

  function mend() {
    var root = document.body;
    if (!root) {
      return;
    }
    landmarks();
    sliders(root);
    toggles(root);
    charts(root);
    statusRegions(root);
    nullTooltips(root);
  }

  var scheduled = false;
  function schedule() {
    if (!scheduled) {
      scheduled = true;
      // after the current burst of changes (one frame), once
      window.requestAnimationFrame(function () {
        scheduled = false;
        mend();
      });
    }
  }

  function start() {
    mend();
    new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        var r = records[i];
        // the attributes this script writes itself are not a reason to run again
        if (r.type === "attributes" && /^(aria-|role$|tabindex$)/.test(r.attributeName) &&
            r.attributeName !== "aria-valuetext") {
          continue;
        }
        // nor is a change inside a chart's SVG (plotly redrawing its marks, thousands of records
        // a step): what this script mends there, the SVG roots, are added to the chart's div
        var node = r.target.nodeType === 1 ? r.target : r.target.parentNode;
        if (node && node.ownerSVGElement) {
          continue;
        }
        schedule();
        return;
      }
    }).observe(document.body, {
      subtree: true, childList: true, characterData: true, attributes: true,
      attributeFilter: ["class", "style", "title", "aria-valuetext", "lang"]
    });
  }

  window.kernelnbMendAccessibility = mend;
  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
