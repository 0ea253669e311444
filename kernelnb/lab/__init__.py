"""The lab: what puts the library in people's hands.

* :mod:`kernelnb.lab.app`: one class per dashboard (widgets, plotly ``FigureWidget``s and a pure
  ``update(**params)``), and the gallery;
* :mod:`kernelnb.lab.viz`: figures, pure functions from a fitted model or data to a plotly figure;
* :mod:`kernelnb.lab.server` and :mod:`kernelnb.lab.cli`: ``kernelnb serve`` (Voila with the
  gallery, a kernel budget, culling and preheating) and ``kernelnb lab``.

The lab imports the library and the reproductions; neither imports the lab.
"""
