"""The server: kernelnb's dashboards served by Voila, standalone or inside a Jupyter server.

Its modules:

* :mod:`~kernelnb.lab.server.app`: the Voila application of ``kernelnb serve``
  (:class:`~kernelnb.lab.server.app.KernelnbVoila`), its handlers and the Jupyter server extension
  (``kernelnb.lab.server``, enabled on Binder and JupyterHub);
* :mod:`~kernelnb.lab.server.config`: the Voila and kernel settings, built once for
  ``kernelnb serve``, the JupyterHub single-user server and Binder;
* :mod:`~kernelnb.lab.server.gallery`: the landing page, and where the dashboards and static files
  are;
* :mod:`~kernelnb.lab.server._security`: the Host check and the security headers;
  :mod:`~kernelnb.lab.server._websocket`: the checked kernel websocket;
* :mod:`~kernelnb.lab.server._kernelpool`: the kernel budget, culling and preheated pools, with
  :mod:`~kernelnb.lab.server._memory`, each kernel's memory limit and watch;
* :mod:`~kernelnb.lab.server._forkserver` and :mod:`~kernelnb.lab.server._forkserver_process`:
  dashboard kernels forked from a process that has imported what they import;
* :mod:`~kernelnb.lab.server._plotly_bundle`: plotly's widget bundle, rewritten once and served.

This package's own module imports nothing, so that the fork server (started as
``python -m kernelnb.lab.server._forkserver_process``) and the command line stay light.
"""


def _jupyter_server_extension_points():
    return [{"module": "kernelnb.lab.server.app"}]
