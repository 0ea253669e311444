// kernelnb: the LaTeX typesetter of a dashboard page whose notebook writes no TeX.
//
// Voila's page typesets with JupyterLab's MathJax 2 plugin when the server names a MathJax URL,
// and otherwise with the MathJax 3 it bundles: 16 scripts (0.9 MB) that every page loads, compiles
// and runs at start, to typeset the markdown of dashboards that write their math in Unicode.
// kernelnb names this script as that URL for such a page (kernelnb.lab.server.app.plain_math_hook).
// It answers the calls that the plugin and ipywidgets' controls make (MathJax 2's Hub API) and
// leaves every text as written; queued callbacks still run, in order.
(function () {
  "use strict";
  if (window.MathJax) {
    return; // a MathJax already on the page typesets as before
  }
  var nothing = function () {};
  window.MathJax = {
    Hub: {
      Config: nothing,
      Configured: nothing,
      Register: {StartupHook: nothing},
      Queue: function () {
        for (var i = 0; i < arguments.length; i++) {
          if (typeof arguments[i] === "function") {
            arguments[i]();
          }
        }
      }
    },
    Ajax: {},
    InputJax: {TeX: {resetEquationNumbers: nothing}}
  };
})();
