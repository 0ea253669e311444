// kernelnb's book: draws the plotly figures of a page (divs of class "kernelnb-plotly" holding
// the figure's JSON) with the plotly.js that the site serves.
//
// * A figure follows the page's column: the width a notebook gave it (layout.width) is dropped,
//   so that nothing scrolls sideways on a phone. A title above a legend that lies above the plot
//   becomes the legend's heading (plotly makes room for a legend there, not for a title beside
//   it, and a legend of several rows would run over the title).
// * On a narrow screen (a phone) the plot keeps its room: the margins shrink, a colour bar gets
//   thin, the legend goes above the plot, across, with the figure's title as its heading (plotly
//   makes room for a legend there, not for a title beside it), and once drawn the figure's
//   height is fitted to its plot (a single plot with equal scales on x and y gets the height its
//   width calls for, not a tall empty box); notes written over the plots (subplots' titles) get
//   smaller and wrap to their column.
// * A lesson figure (frames and a slider, computed when the book was built) shows under it the
//   dashboard's readout for the frame on show ("kernelnb.readouts" in its JSON), and fits the
//   axes that have no range of their own to each frame's data ("kernelnb.autorange").
// * A figure's plotly slider over its frames (layout.sliders: the keyboard cannot reach it and
//   it tells a screen reader nothing) is drawn instead as the page's own control: a native
//   <input type="range"> named by a <label for> (the slider's prefix, "C = " giving "C"), its
//   aria-valuetext and an <output> beside it showing the step's label (a log slider's real value,
//   "0.01", not its exponent), moving the figure to the step's frame (Plotly.animate); a
//   persistent role="status" region then says what changed ("C = 0.01: <the readout>").
// * Languages: a page says its own (<html lang>, set by kernelnb_book); on it, what is written in
//   another language is marked so (lang). The theme's words (skip link, buttons, sidebars'
//   headings, previous/next) are in the book's language, so on a French page they are marked
//   English; a link of the navigation (sidebars, toctrees, previous/next) to a page in another
//   language than the text around it carries that page's language, and a toctree's caption does
//   when every link under it goes to pages of one other language ("Le cours en français" on an
//   English page). The pages' languages come from kernelnb_book (window.kernelnbPageLanguages).
// * An array that a trace repeats from an earlier trace of the same list (the figure's data or
//   one frame's) comes as {"kernelnb_same": [position, key]}: it is copied from there before
//   plotly.js reads the figure (a surface's heat map and its level lines share their grid).
(function () {
  "use strict";

  var NARROW = 640;
  var SAME = "kernelnb_same";
  // The smallest height of a plot area on a narrow screen (pixels), and the largest one as a
  // multiple of its width.
  var MIN_PLOT = 220, MAX_PLOT_RATIO = 1.3;

  function resolveShared(traces) {
    (traces || []).forEach(function (trace) {
      Object.keys(trace).forEach(function (key) {
        var value = trace[key];
        if (value && typeof value === "object" && Array.isArray(value[SAME])) {
          var source = traces[value[SAME][0]][value[SAME][1]];
          // a copy: plotly.js may decode a binary array in place
          trace[key] = (source && typeof source === "object" && !Array.isArray(source)) ?
            Object.assign({}, source) : source;
        }
      });
    });
  }

  // A title's lines cut at spaces to at most `width` characters (plotly draws a title on one
  // line per <br>, and a long one runs out of a phone's narrow figure).
  function wrap(text, width) {
    return text.split("<br>").map(function (line) {
      if (line.length <= width || line.indexOf("<") >= 0) {
        return line;
      }
      var out = [], current = "";
      line.split(" ").forEach(function (word) {
        if (current && (current + " " + word).length > width) {
          out.push(current);
          current = word;
        } else {
          current = current ? current + " " + word : word;
        }
      });
      out.push(current);
      return out.join("<br>");
    }).join("<br>");
  }

  function titleText(title) {
    if (typeof title === "string") {
      return title;
    }
    return (title && title.text) || "";
  }

  // Trace types that plotly leaves out of the legend unless told otherwise.
  var NO_LEGEND = ["heatmap", "contour", "histogram2d", "histogram2dcontour", "surface",
                   "image", "choropleth", "densitymapbox", "densitymap", "table"];

  function legendShown(layout, data) {
    if (layout.showlegend === false) {
      return false;
    }
    var entries = (data || []).filter(function (t) {
      return t.visible !== false && (t.showlegend === true ||
        (t.showlegend !== false && NO_LEGEND.indexOf(t.type || "scatter") < 0));
    }).length;
    return layout.showlegend === true || entries > 1;
  }

  // Notes written on the figure (a subplot's title, above all): smaller, and cut to the width
  // of their column; returns the lines the tallest note above the plots takes.
  function narrowNotes(layout, room) {
    var notes = (layout.annotations || []).filter(function (a) {
      return a.showarrow === false && typeof a.text === "string";
    });
    var rows = {};
    notes.forEach(function (a) {
      var y = String(Math.round(100 * (a.y || 0)));
      rows[y] = (rows[y] || 0) + 1;
    });
    var columns = Math.max.apply(null, [1].concat(Object.keys(rows).map(function (y) {
      return rows[y];
    })));
    var lines = 0;
    notes.forEach(function (a) {
      var size = Math.min((a.font && a.font.size) || 12, 11);
      a.font = Object.assign({}, a.font || {}, {size: size});
      a.text = wrap(a.text, Math.max(14, Math.floor(room / columns / (0.55 * size))));
      if (a.yref === "paper" && (a.y || 0) >= 0.99 && a.yanchor === "bottom") {
        lines = Math.max(lines, a.text.split("<br>").length);
      }
    });
    return lines;
  }

  function showsScale(trace) {
    var colored = ["heatmap", "contour", "histogram2d", "histogram2dcontour", "surface"];
    return (colored.indexOf(trace.type) >= 0 && trace.showscale !== false) ||
      (trace.marker && trace.marker.showscale === true);
  }

  // The title of a narrow figure, or of one of its frames, moved into the legend's heading.
  function titleIntoLegend(layoutLike, base, chars) {
    if (!layoutLike.title) {
      return;
    }
    var text = titleText(layoutLike.title);
    layoutLike.title = {text: ""};
    var heading = base.legendTitle ? text + "<br>" + base.legendTitle : text;
    layoutLike.legend = Object.assign({}, layoutLike.legend || {}, {
      title: {text: wrap(heading, chars), side: "top", font: {size: base.size || 12}}});
  }

  // A wide figure whose legend lies above the plot, across (as the dashboards draw theirs):
  // its title becomes the legend's heading too, so that a legend of several rows does not run
  // over the title.
  function wideLayout(fig, width) {
    var layout = fig.layout, legend = layout.legend || {};
    var above = legend.orientation === "h" && typeof legend.y === "number" && legend.y >= 1;
    if (!above || !titleText(layout.title) || !legendShown(layout, fig.data)) {
      return;
    }
    var size = (layout.title.font && layout.title.font.size) || 15;
    var base = {legendTitle: titleText(legend.title), size: size};
    var chars = Math.max(40, Math.floor(width / (0.55 * size)));
    var margin = Object.assign({t: 100}, layout.margin || {});
    fig.kernelnbTitle = {title: layout.title, margin: margin.t};
    titleIntoLegend(layout, base, chars);
    (fig.frames || []).forEach(function (frame) {
      if (frame.layout && frame.layout.title) {
        titleIntoLegend(frame.layout, base, chars);
      }
    });
    margin.t = 10;
    layout.margin = margin;
  }

  function narrowLayout(fig, width) {
    var layout = fig.layout, data = fig.data || [];
    var chars = Math.max(24, Math.floor(width / 7.5));
    var margin = Object.assign({l: 80, r: 80, t: 100, b: 80}, layout.margin || {});
    var scale = data.some(showsScale);
    margin.l = Math.min(margin.l, 50);
    margin.r = scale ? Math.min(margin.r, 46) : Math.min(margin.r, 12);
    data.forEach(function (trace) {
      if (showsScale(trace)) {
        var bar = trace.colorbar || (trace.marker && trace.marker.colorbar) || {};
        var title = typeof bar.title === "string" ? {text: bar.title} : (bar.title || {});
        bar = Object.assign({}, bar, {thickness: 9, xpad: 4, tickfont: {size: 9},
                                      title: Object.assign({}, title, {side: "top",
                                                                       font: {size: 10}})});
        if (trace.colorbar || !trace.marker) {
          trace.colorbar = bar;
        } else {
          trace.marker.colorbar = bar;
        }
      }
    });
    var noteLines = narrowNotes(layout, width - margin.l - margin.r);
    if (legendShown(layout, data)) {
      var legendTitle = titleText((layout.legend || {}).title);
      // the legend above the plot, across: beside it, it would leave the plot no room; the
      // figure's title becomes its heading, so that plotly's room for the legend holds both
      layout.legend = Object.assign({}, layout.legend || {}, {
        orientation: "h", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom",
        font: {size: 10}});
      var base = {legendTitle: legendTitle};
      if (titleText(layout.title)) {
        fig.kernelnbTitle = {title: layout.title, margin: margin.t};
        titleIntoLegend(layout, base, chars);
      } else if (legendTitle) {
        layout.legend.title = {text: wrap(legendTitle, chars), side: "top"};
      }
      (fig.frames || []).forEach(function (frame) {
        if (frame.layout && frame.layout.title) {
          titleIntoLegend(frame.layout, base, chars);
        }
      });
      margin.t = 10;
      fig.kernelnbNoteLines = noteLines;
    } else {
      var title = layout.title || {};
      title = typeof title === "string" ? {text: title} : title;
      // at the top (plotly centres a title in the top margin, which holds subplots' titles too)
      title = Object.assign(title, {yref: "container", y: 1, yanchor: "top", pad: {t: 16}});
      title.font = Object.assign({}, title.font || {}, {size: 13});
      if (title.text) {
        title.text = wrap(title.text, chars);
        margin.t = 24 + 17 * title.text.split("<br>").length + 14 * noteLines;
      }
      layout.title = title;
      (fig.frames || []).forEach(function (frame) {
        var t = frame.layout && frame.layout.title;
        if (t) {
          t = typeof t === "string" ? {text: t} : t;
          t.text = wrap(t.text || "", chars);
          frame.layout.title = t;
        }
      });
    }
    layout.margin = margin;
  }

  // On a narrow screen, the figure's height fitted to its plot once plotly has laid it out.
  function fitHeight(target) {
    var full = target._fullLayout;
    if (!full || !full._size) {
      return null;
    }
    var size = full._size, xa = full.xaxis, ya = full.yaxis;
    var plot = size.h;
    var single = !full.xaxis2 && !full.yaxis2;
    if (single && xa && ya && ya.scaleanchor === "x" && xa.range && ya.range) {
      var dx = Math.abs(xa.range[1] - xa.range[0]), dy = Math.abs(ya.range[1] - ya.range[0]);
      if (dx > 0 && dy > 0) {
        plot = size.w * (dy / dx) * (ya.scaleratio || 1);
      }
    }
    plot = Math.min(Math.max(plot, MIN_PLOT), MAX_PLOT_RATIO * size.w);
    var height = Math.round(size.t + plot + size.b);
    if (Math.abs(height - full.height) < 8) {
      return null;
    }
    return Plotly.relayout(target, {height: height});
  }

  function spec(el) {
    var holder = el.querySelector('script[type="application/json"]');
    return holder ? JSON.parse(holder.textContent) : null;
  }

  function readoutBox(el, fig) {
    var extra = fig.kernelnb;
    if (!extra || !extra.readouts) {
      return null;
    }
    var box = document.createElement("p");
    box.className = "kernelnb-frame-readout";
    box.textContent = extra.readouts[extra.active] || "";
    return box;
  }

  var controls = 0;

  // The steps of a figure's first plotly slider that each show a frame (method "animate"),
  // taken out of its layout; null when it has none.
  function takeSlider(layout) {
    var sliders = layout.sliders || [];
    var slider = sliders[0];
    var steps = ((slider && slider.steps) || []).filter(function (step) {
      return step.method === "animate" && step.args && step.args[0] && step.args[0].length;
    });
    if (!slider || !steps.length || steps.length !== slider.steps.length) {
      return null;
    }
    delete layout.sliders;
    // the room plotly kept under the plot for the slider
    if (typeof layout.height === "number") {
      layout.height = Math.max(layout.height - 50, 200);
    }
    if (layout.margin && typeof layout.margin.b === "number" && layout.margin.b >= 110) {
      layout.margin.b -= 40;
    }
    var prefix = (slider.currentvalue && slider.currentvalue.prefix) || "";
    var name = prefix.replace(/[=:\s]+$/, "").trim();
    return {
      name: name || "Frame",
      active: Math.min(Math.max(slider.active || 0, 0), steps.length - 1),
      steps: steps.map(function (step) {
        return {label: String(step.label !== undefined ? step.label : step.args[0][0]),
                frame: step.args[0][0],
                options: step.args[1] || {mode: "immediate", frame: {duration: 0, redraw: true},
                                          transition: {duration: 0}}};
      })
    };
  }

  // The native control that moves the figure over its frames (see the header).
  function frameControl(el, target, fig, slider, box) {
    controls += 1;
    var id = "kernelnb-frame-control-" + controls;
    var wrap = document.createElement("div");
    wrap.className = "kernelnb-frame-control";
    var label = document.createElement("label");
    label.setAttribute("for", id);
    label.textContent = slider.name;
    var input = document.createElement("input");
    input.type = "range";
    input.id = id;
    input.min = "0";
    input.max = String(slider.steps.length - 1);
    input.step = "1";
    input.value = String(slider.active);
    var output = document.createElement("output");
    output.setAttribute("for", id);
    var status = document.createElement("div");
    status.className = "kernelnb-frame-status";
    status.setAttribute("role", "status");
    wrap.appendChild(label);
    wrap.appendChild(input);
    wrap.appendChild(output);
    var readouts = (fig.kernelnb && fig.kernelnb.readouts) || {};
    // the chart's name and description for the frame on show, written by the dashboard's own
    // describer (Dashboard.describe), tied to the figure the page shows
    var descriptions = (fig.kernelnb && fig.kernelnb.descriptions) || {};
    var described = null;
    if (Object.keys(descriptions).length) {
      described = document.createElement("p");
      described.id = id + "-description";
      described.className = "kernelnb-frame-description";
      described.hidden = true;
      wrap.appendChild(described);
      el.setAttribute("aria-describedby", described.id);
    }

    function show(index) {
      var step = slider.steps[index];
      var description = descriptions[step.frame];
      if (described && description) {
        described.textContent = description[1];
        el.setAttribute("aria-label", description[0]);
      }
      input.setAttribute("aria-valuetext", step.label);
      output.textContent = step.label;
      if (box && readouts[step.frame] !== undefined) {
        box.textContent = readouts[step.frame];
      }
      return step;
    }
    show(slider.active);
    var shown = slider.active;
    input.addEventListener("input", function () {
      var index = Number(input.value);
      if (index === shown) {
        return;
      }
      shown = index;
      var step = show(index);
      Plotly.animate(target, [step.frame], step.options).then(function () {
        if (shown !== index) {
          return;  // moved on meanwhile: the later frame says what changed
        }
        var readout = readouts[step.frame];
        status.textContent = slider.name + " = " + step.label +
          (readout ? ": " + readout : "");
      }, function () {
        // an animation cut short by the next key press: that one's frame is shown
      });
    });
    return {control: wrap, status: status};
  }

  function draw(el) {
    if (el.getAttribute("data-drawn")) {
      return;
    }
    el.setAttribute("data-drawn", "pending");
    var fig = spec(el);
    if (!fig || typeof Plotly === "undefined") {
      el.setAttribute("data-drawn", "failed");
      console.error("kernelnb: plotly.js is missing, a figure cannot be drawn");
      return;
    }
    resolveShared(fig.data);
    (fig.frames || []).forEach(function (frame) {
      resolveShared(frame.data);
    });
    var layout = fig.layout || {};
    fig.layout = layout;
    delete layout.width;
    layout.autosize = true;
    var slider = fig.frames && fig.frames.length ? takeSlider(layout) : null;
    var narrow = el.clientWidth && el.clientWidth < NARROW;
    if (narrow) {
      narrowLayout(fig, el.clientWidth);
    } else {
      wideLayout(fig, el.clientWidth || 800);
    }
    var config = Object.assign({responsive: true, displaylogo: false}, fig.config || {});
    if (narrow) {
      // on a phone the tool bar would sit over the title; a double tap still resets the axes
      config.displayModeBar = false;
    }
    var target = document.createElement("div");
    target.className = "kernelnb-plotly-graph";
    el.appendChild(target);
    var box = readoutBox(el, fig);
    var control = slider ? frameControl(el, target, fig, slider, box) : null;
    if (control) {
      el.appendChild(control.control);
    }
    if (box) {
      el.appendChild(box);
    }
    if (control) {
      el.appendChild(control.status);
    }
    Plotly.newPlot(target, fig.data || [], layout, config).then(function () {
      if (fig.frames && fig.frames.length) {
        return Plotly.addFrames(target, fig.frames);
      }
    }).then(function () {
      var moved = fig.kernelnbTitle;
      if (moved && !target._fullLayout.showlegend) {
        // plotly drew no legend after all: the title goes back above the plot
        var title = typeof moved.title === "string" ? {text: moved.title} : moved.title;
        var text = titleText(title), restored = {"legend.title.text": ""};
        if (narrow) {
          text = wrap(text, Math.max(24, Math.floor(el.clientWidth / 7.5)));
          title = Object.assign({}, title, {font: {size: 13}, yref: "container", y: 1,
                                            yanchor: "top", pad: {t: 16}});
        }
        restored.title = Object.assign({}, title, {text: text});
        restored["margin.t"] = Math.max(moved.margin, 24 + 17 * text.split("<br>").length);
        return Plotly.relayout(target, restored);
      }
    }).then(function () {
      if (narrow) {
        el.style.minHeight = "";
        return fitHeight(target);
      }
    }).then(function () {
      var lines = fig.kernelnbNoteLines, size = target._fullLayout._size;
      if (narrow && lines && size && size.h > 0) {
        // the legend above the subplots' titles, not over them
        return Plotly.relayout(target, {"legend.y": 1 + (14 * lines + 8) / size.h});
      }
    }).then(function () {
      var fitted = (fig.kernelnb && fig.kernelnb.autorange) || [];
      if (fig.frames && fig.frames.length && (narrow || fitted.length)) {
        target.on("plotly_animated", function () {
          // plotly does not fit an axis to a frame's data again by itself
          var update = {};
          fitted.forEach(function (axis) {
            update[axis + ".autorange"] = true;
          });
          var done = fitted.length ? Plotly.relayout(target, update) : Promise.resolve();
          // a frame may change the axes' ranges, and so the height the plot calls for
          done.then(function () {
            return narrow ? fitHeight(target) : null;
          });
        });
      }
      el.setAttribute("data-drawn", "yes");
      el.dispatchEvent(new CustomEvent("kernelnb-drawn", {bubbles: true}));
    }, function (err) {
      el.setAttribute("data-drawn", "failed");
      console.error("kernelnb: a figure could not be drawn", err);
    });
  }

  var CHROME = [".skip-link", ".bd-header", ".bd-header-article", ".bd-sidebar-primary",
                ".bd-sidebar-secondary", ".prev-next-area", ".bd-footer", ".bd-footer-content",
                ".bd-footer-article", ".search-button__wrapper"];
  var NAVIGATION = [".bd-sidebar-primary a[href]", ".bd-sidebar-secondary a[href]",
                    ".toctree-wrapper a[href]", ".prev-next-area a[href]"];

  function markLanguages() {
    var info = window.kernelnbPageLanguages;
    if (!info || !info.page) {
      return;
    }
    var rootAttr = document.documentElement.getAttribute("data-content_root") || "./";
    var root = new URL(rootAttr, location.href).pathname;
    function targetLanguage(a) {
      var url = new URL(a.getAttribute("href"), location.href);
      if (url.origin !== location.origin || url.pathname.indexOf(root) !== 0) {
        return null;
      }
      var rel = decodeURIComponent(url.pathname.slice(root.length)) || "index.html";
      return info.others[rel] || info.page;
    }
    function effective(el) {
      var holder = el.parentElement && el.parentElement.closest("[lang]");
      return holder ? holder.getAttribute("lang") : info.page;
    }
    if (info.book && info.book !== info.page) {
      CHROME.forEach(function (selector) {
        document.querySelectorAll(selector).forEach(function (el) {
          el.setAttribute("lang", info.book);
        });
      });
    }
    document.querySelectorAll(NAVIGATION.join(",")).forEach(function (a) {
      var lang = targetLanguage(a);
      var el = a.querySelector(".prev-next-title") || a;
      if (lang && lang !== effective(el)) {
        el.setAttribute("lang", lang);
      }
    });
    document.querySelectorAll(".caption").forEach(function (caption) {
      var list = caption.nextElementSibling;
      var links = list ? Array.prototype.slice.call(list.querySelectorAll("a[href]")) : [];
      var langs = links.map(targetLanguage).filter(function (lang, i, all) {
        return lang && all.indexOf(lang) === i;
      });
      if (links.length && langs.length === 1 && langs[0] !== effective(caption)) {
        caption.setAttribute("lang", langs[0]);
      }
    });
  }

  // The theme's sidebar toggles (a <summary> holding only a chevron icon) named after the
  // page whose sub-pages they show; a region that scrolls sideways (a wide table, a long line of
  // code) reached with the keyboard, so that it can be scrolled without a mouse.
  function nameToggles() {
    document.querySelectorAll("li.has-children > details > summary").forEach(function (summary) {
      var link = summary.parentElement.parentElement.querySelector(":scope > a");
      if (!summary.textContent.trim() && !summary.getAttribute("aria-label") && link) {
        summary.setAttribute("aria-label", "Sub-pages of " + link.textContent.trim());
        if (link.hasAttribute("lang")) {
          summary.setAttribute("lang", link.getAttribute("lang"));
        }
      }
    });
  }

  var SCROLLERS = ".bd-article table, .bd-article .pst-scrollable-table-container, " +
    ".bd-article div.cell_output, .bd-article div.output, .bd-article div.highlight pre";

  function focusScrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
      }
    });
  }

  function drawAll() {
    var els = document.querySelectorAll("div.kernelnb-plotly");
    for (var i = 0; i < els.length; i++) {
      draw(els[i]);
    }
  }

  function start() {
    try {
      markLanguages();
      nameToggles();
      focusScrollers();
      window.addEventListener("resize", focusScrollers);
    } catch (err) {
      console.error("kernelnb: the page's languages could not be marked", err);
    }
    drawAll();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
