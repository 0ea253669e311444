"""The Python ``configurable-http-proxy`` (0.4.0) with three fixes its websocket proxying needs to
carry a Jupyter kernel websocket; run as a script with the proxy's command-line options.

1. The subprotocol: the proxy connects to the server with the browser's
   ``Sec-WebSocket-Protocol`` header (the server picks ``v1.kernel.websocket.jupyter.org``) but
   answers the browser with no subprotocol, so the two ends speak different protocols. Here the
   browser gets the one the server picked.
2. Binary frames from the browser are passed on as text frames (``write_message`` without
   ``binary=True``): a v1 frame, or any message with binary buffers, then fails to decode. Here
   they stay binary.
3. A connection the server closes stays open towards the browser, which then waits forever. Here
   the browser's side is closed too.

The Node.js ``configurable-http-proxy`` (Zero to JupyterHub's, and the one the recipes in
``deploy/`` name) does both; the tests use the Python package because CI has no Node.js.
"""
from configurable_http_proxy import handlers
from configurable_http_proxy.cli import main

_start_ws_client = handlers.ProxyHandler.start_ws_client


async def _start_ws_client_closing(self, path=None):
    await _start_ws_client(self, path)
    client = self.ws_client
    if client is None:
        return
    forward = client._on_message_callback          # the proxy's own (it drops the None)

    def forward_and_close(message):
        forward(message)
        if message is None:                         # the server closed the connection
            self.close()

    client._on_message_callback = forward_and_close


def _select_subprotocol(self, subprotocols):
    chosen = getattr(self.ws_client, "selected_subprotocol", None) if self.ws_client else None
    return chosen if chosen in subprotocols else None


def _on_message(self, message):
    if self.ws_client:
        prefix = self.target["prefix"] if self.target else ""
        if prefix:
            self.proxy.update_last_activity(prefix)
        self.ws_client.write_message(message, binary=isinstance(message, bytes))


handlers.ProxyHandler.select_subprotocol = _select_subprotocol
handlers.ProxyHandler.on_message = _on_message
handlers.ProxyHandler.start_ws_client = _start_ws_client_closing

if __name__ == "__main__":
    main()
