// kernelnb: a dashboard page that knows when its kernel is gone, and says so.
//
// A dashboard's widgets live in a Python kernel on the server. When that kernel is gone (it died,
// it was ended past its memory limit or after a while without use, the server was restarted) or
// the connection to it is lost, ipywidgets leaves the page with broken controls. This script
// watches the page's kernel connection (the widget manager's, on Voila's window.jupyterapp); when
// the kernel is reported dead, or the connection stays down for a few seconds, it asks the server
// what became of the kernel (GET <base>kernelnb/api/kernels/<id>) and puts one plain message in
// place of the widgets, with one button that brings the dashboard back: a reload, which opens it
// at the settings its address holds (the page keeps them there) with the points clicked in (kept
// in the browser's storage).
(function () {
  "use strict";

  var DOWN_MS = 3000;          // connection down this long: ask the server what happened
  var CHECK_EVERY_MS = 5000;   // while it stays down, ask again this often
  var POLL_MS = 8000;          // and, connected or not, ask this often
  var config = {};
  try {
    config = JSON.parse(document.getElementById("jupyter-config-data").textContent);
  } catch (e) {
    return;                    // not a Voila page
  }
  var base = config.baseUrl || "/";
  var kernelId = config.kernelId;
  // The texts in every language the server speaks ({default, en: {...}, fr: {...}}, set by the
  // page template from kernelnb.lab.server.app.watch_texts); the English below are the fallbacks.
  var allTexts = window.kernelnbWatchTexts || {};
  var shown = false;
  var downSince = null;
  var timer = null;

  // The page's language: the one its kernel speaks (window.kernelnbLang, set by the dashboard's
  // URL-state widget), else the URL's lang (a value naming no language here: English), else the
  // browser's languages, else the server's default.
  function language() {
    var known = function (code) {
      var primary = String(code || "").toLowerCase().split(/[-_]/)[0];
      return allTexts[primary] && primary !== "default" ? primary : null;
    };
    if (known(window.kernelnbLang)) {
      return known(window.kernelnbLang);
    }
    var asked = new URL(window.location.href).searchParams.get("lang");
    if (asked !== null) {
      return known(asked) || "en";
    }
    var wanted = navigator.languages || [navigator.language];
    for (var i = 0; i < wanted.length; i++) {
      if (known(wanted[i])) {
        return known(wanted[i]);
      }
    }
    return known(allTexts["default"]) || "en";
  }

  function t(key, fallback) {
    var texts = allTexts[language()] || {};
    return texts[key] || fallback;
  }

  // "20 minutes", "1 minute", "45 seconds": how long the kernel waited unused
  function duration(seconds) {
    if (seconds < 90) {
      var s = Math.max(1, Math.round(seconds));
      return s + " " + (s === 1 ? t("second", "second") : t("seconds", "seconds"));
    }
    var m = Math.round(seconds / 60);
    return m + " " + (m === 1 ? t("minute", "minute") : t("minutes", "minutes"));
  }

  function message(fate) {
    if (!fate) {
      return t("unreachable", "The server is not answering: it may have been restarted, or " +
               "the connection to it is lost.");
    }
    if (fate.state === "unknown") {
      return t("restarted", "The server was restarted since this page was opened: this " +
               "dashboard's session ended with it.");
    }
    switch (fate.reason) {
      case "culled_idle":
        return fate.idle_seconds
          ? t("culled_idle_n", "This dashboard stopped after {n} without use, to free the " +
              "server for others.").replace("{n}", duration(fate.idle_seconds))
          : t("culled_idle", "This dashboard stopped after a while without use, to free the " +
              "server for others.");
      case "culled_unconnected":
        return t("culled_unconnected", "This dashboard stopped because its page was closed or " +
                 "unreachable for a while.");
      case "memory":
        return t("memory", "This dashboard stopped: a setting needed more memory than a " +
                 "dashboard may use ({n} MB).").replace("{n}", fate.limit_mb || "?");
      case "died":
        return t("died", "This dashboard's Python process stopped unexpectedly (it may have " +
                 "run out of memory, or been stopped on the server).");
      case "shutdown":
        return t("shutdown", "This dashboard was shut down on the server.");
      default:
        return t("lost", "The connection to this dashboard was lost.");
    }
  }

  function show(fate) {
    if (shown) {
      return;
    }
    shown = true;
    if (timer) {
      clearInterval(timer);
    }
    document.body.classList.add("kernelnb-gone");
    var box = document.createElement("div");
    box.className = "kernelnb-gone-box";
    box.setAttribute("role", "alert");
    var text = document.createElement("p");
    text.className = "kernelnb-gone-message";
    text.textContent = message(fate);
    var hint = document.createElement("p");
    hint.className = "kernelnb-gone-hint";
    hint.textContent = t("hint", "Your settings are kept: bringing it back opens it where you " +
                         "left it.");
    var button = document.createElement("button");
    button.className = "kernelnb-gone-button";
    button.type = "button";
    button.textContent = t("button", "Bring the dashboard back");
    var atDefaults = fate && fate.reason === "memory";
    if (atDefaults) {
      // the settings that needed the memory would end the new kernel too: back at the defaults
      hint.textContent = t("hint_memory", "It comes back at its defaults, not at the setting " +
                           "that needed the memory.");
    }
    button.addEventListener("click", function () {
      button.disabled = true;
      if (atDefaults) {
        var url = new URL(window.location.href);
        var kept = new URLSearchParams();
        ["token", "lang"].forEach(function (k) {
          if (url.searchParams.has(k)) kept.set(k, url.searchParams.get(k));
        });
        url.search = kept.toString() ? "?" + kept.toString() : "";
        window.location.href = url.href;
      } else {
        window.location.reload();
      }
    });
    box.appendChild(text);
    box.appendChild(hint);
    box.appendChild(button);
    document.body.insertBefore(box, document.body.firstChild);
    window.kernelnbGone = {reason: fate ? (fate.reason || fate.state) : "unreachable",
                           message: text.textContent};
  }

  function ask(then) {
    var url = base + "kernelnb/api/kernels/" + encodeURIComponent(kernelId);
    fetch(url, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      var type = r.headers.get("Content-Type") || "";
      if (!r.ok || type.indexOf("json") < 0) {
        // a server that does not know this page (restarted with another token, or not kernelnb)
        return r.status === 404 ? {state: "unknown"} : null;
      }
      return r.json();
    }).then(then, function () {
      then(null);
    });
  }

  function judge(fate) {
    if (shown) {
      return;
    }
    if (fate && fate.state === "alive") {
      // the kernel lives: only the connection is down; say so once it stays down a while
      if (downSince !== null && Date.now() - downSince > 4 * DOWN_MS) {
        show({state: "alive", reason: "lost"});
      }
      return;
    }
    show(fate);
  }

  function connectionDown() {
    if (downSince === null) {
      downSince = Date.now();
      setTimeout(function () {
        if (downSince !== null) {
          ask(judge);
          timer = setInterval(function () {
            if (downSince === null) {
              clearInterval(timer);
              timer = null;
            } else {
              ask(judge);
            }
          }, CHECK_EVERY_MS);
        }
      }, DOWN_MS);
    }
  }

  function attach(kernel) {
    kernel.statusChanged.connect(function (_k, status) {
      if (status === "dead" || status === "autorestarting" || status === "restarting") {
        // the kernel process is gone: its widgets with it, whatever the server does next
        ask(function (fate) {
          show(fate && fate.state !== "alive" ? fate : {state: "ended", reason: "died"});
        });
      }
    });
    // a kernel shut down on the server (culled after a while without use, or ended) says so on
    // its iopub channel, and the websocket stays open: ask what happened
    if (kernel.iopubMessage) {
      kernel.iopubMessage.connect(function (_k, msg) {
        if (msg && msg.header && msg.header.msg_type === "shutdown_reply") {
          setTimeout(function () { ask(judge); }, 300);
        }
      });
    }
    // and, whatever the channel said or did not say, ask now and then
    setInterval(function () {
      if (!shown && downSince === null && document.visibilityState !== "hidden") {
        ask(function (fate) {
          if (fate && (fate.state === "ended" || fate.state === "unknown")) {
            show(fate);
          }
        });
      }
    }, POLL_MS);
    kernel.connectionStatusChanged.connect(function (_k, status) {
      if (status === "connected") {
        downSince = null;
      } else {
        connectionDown();
      }
    });
    if (kernel.connectionStatus && kernel.connectionStatus !== "connected") {
      connectionDown();
    }
  }

  // Voila's application starts after this script: wait for its widget manager's kernel.
  var tries = 0;
  var waiting = setInterval(function () {
    var app = window.jupyterapp;
    var manager = app && app.widgetManager;
    var kernel = manager && manager.kernel;
    tries += 1;
    if (kernel && kernel.statusChanged && kernel.connectionStatusChanged) {
      clearInterval(waiting);
      attach(kernel);
      // the page's other scripts (kernelnb-busy.js) take the kernel from here
      window.kernelnbKernel = kernel;
      window.dispatchEvent(new CustomEvent("kernelnb-kernel", {detail: kernel}));
    } else if (tries > 1200) {     // 2 minutes: a page that never started has its own message
      clearInterval(waiting);
    }
  }, 100);
})();
