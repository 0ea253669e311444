// kernelnb's book: draws the plotly figures of a page (divs of class "kernelnb-plotly" holding
// the figure's JSON) with the plotly.js that the site serves.
//
// * A figure follows the page's column: the width a notebook gave it (layout.width) is dropped,
//   so that nothing scrolls sideways on a phone; on a narrow screen a figure whose legend sits
//   above or beside the plot gets taller, so that the plot keeps its room.
// * A lesson figure (frames and a slider, computed when the book was built) shows under it the
//   dashboard's readout for the frame on show ("kernelnb.readouts" in its JSON).
(function () {
  "use strict";

  var NARROW = 640;

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
    var layout = fig.layout || {};
    delete layout.width;
    layout.autosize = true;
    if (el.clientWidth && el.clientWidth < NARROW) {
      if (layout.showlegend !== false) {
        // the legend above the plot, across: beside it, it would leave the plot no room
        layout.legend = Object.assign({}, layout.legend || {}, {
          orientation: "h", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom"});
        layout.height = (layout.height || 450) + 160;
      }
      (layout.sliders || []).forEach(function (slider) {
        slider.font = Object.assign({}, slider.font || {}, {size: 9});
      });
      var title = layout.title || {};
      if (typeof title === "string") {
        title = {text: title};
      }
      title.font = Object.assign({}, title.font || {}, {size: 13});
      if (title.text) {
        title.text = wrap(title.text, Math.max(24, Math.floor(el.clientWidth / 8)));
      }
      layout.title = title;
    }
    var config = Object.assign({responsive: true, displaylogo: false}, fig.config || {});
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
      if (box) {
        target.on("plotly_sliderchange", function (event) {
          var name = event && event.step && event.step.args && event.step.args[0] &&
            event.step.args[0][0];
          if (name && fig.kernelnb.readouts[name] !== undefined) {
            box.textContent = fig.kernelnb.readouts[name];
          }
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
