/* Draws the notebooks' plotly figures: each .stmviz-plotly holds its figure's JSON (plotly's
   mimetype, as the notebook saved it) in a <script type="application/json">, never run as code.
   plotly.js is the installed plotly package's copy in _static, loaded before this file (both deferred). */
(function () {
  "use strict";
  function draw(box) {
    var spec = JSON.parse(box.querySelector("script.stmviz-plotly-spec").textContent);
    var config = Object.assign({ responsive: true, displaylogo: false }, spec.config || {});
    var layout = Object.assign({}, spec.layout || {});
    box.style.minHeight = "";
    return window.Plotly.newPlot(box, spec.data || [], layout, config).then(function () {
      box.classList.add("stmviz-plotly-drawn");
    });
  }
  function drawAll() {
    document.querySelectorAll(".stmviz-plotly").forEach(function (box) {
      try {
        draw(box);
      } catch (error) {
        box.classList.add("stmviz-plotly-failed");
        box.textContent = "This figure could not be drawn: " + error;
      }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
