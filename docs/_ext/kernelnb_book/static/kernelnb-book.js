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
    (layout.sliders || []).forEach(function (slider) {
      slider.font = Object.assign({}, slider.font || {}, {size: 9});
      if (slider.currentvalue) {
        slider.currentvalue.font = Object.assign({}, slider.currentvalue.font || {}, {size: 11});
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
    box.setAttribute("aria-live", "polite");
    box.textContent = extra.readouts[extra.active] || "";
    return box;
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
    if (box) {
      el.appendChild(box);
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
      if (box) {
        target.on("plotly_sliderchange", function (event) {
          var name = event && event.step && event.step.args && event.step.args[0] &&
            event.step.args[0][0];
          if (name && fig.kernelnb.readouts[name] !== undefined) {
            box.textContent = fig.kernelnb.readouts[name];
          }
        });
      }
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

  function drawAll() {
    var els = document.querySelectorAll("div.kernelnb-plotly");
    for (var i = 0; i < els.length; i++) {
      draw(els[i]);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
