"""A kernel websocket that a visitor cannot use to freeze the server.

The Jupyter kernel websocket carries binary frames whose first 8 bytes are a count of offsets
("v1.kernel.websocket.jupyter.org" protocol). Two readers in the stack trust that count:

* jupyter_server's ``deserialize_msg_from_ws_v1`` for every frame a browser sends, and
* Voila's ``read_header_from_binary_message`` for every binary frame the server sends; for a
  client that did not ask for the v1 protocol those frames are in the legacy format, so the
  "count" is 4 bytes of count and 4 bytes of offset read as one integer (about 8.6e17).

Either way the server builds a list of that many integers: one CPU pinned, memory growing until the
machine gives out, every other page frozen. Here every count a visitor sends is bounded by the
frame's length before anything is built, a frame that does not parse closes that one connection,
and the Voila handler refuses clients that do not speak the v1 protocol at all. Served to v1 clients
only, every binary frame the server sends is one jupyter_server itself wrote in the v1 format
(``serialize_msg_to_ws_v1``, whose count is the message's number of parts), so Voila's own reader
of outgoing frames is left as it is.
"""
from __future__ import annotations

import json

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado import web

__all__ = ["V1_PROTOCOL", "MAX_MESSAGE_BYTES", "parse_v1_offsets", "v1_frame", "HardenedConnection",
           "HardenedVoilaWebsocketHandler", "hardened_connection_class"]

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"

#: Largest websocket frame a visitor may send (tornado's default is 10 MiB). A dashboard's
#: messages are slider moves, clicks and widget state: kilobytes.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

# A v1 frame: channel, header, parent_header, metadata, content and buffers: 5 parts + buffers.
_MAX_PARTS = 4096


def parse_v1_offsets(frame: bytes) -> list[int] | None:
    """The offsets of a v1 frame, or None when ``frame`` is not a well-formed v1 frame.

    The frame starts with n (8 bytes, little-endian) and n offsets of 8 bytes each; the offsets
    must be non-decreasing, start after that table and end within the frame. Nothing proportional
    to n is allocated before n is checked against the frame's length.
    """
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        return None
    size = len(frame)
    if size < 8:
        return None
    n = int.from_bytes(frame[:8], "little")
    # At least the channel and the header (3 offsets), the table must fit in the frame.
    if n < 3 or n > _MAX_PARTS or 8 * (n + 1) > size:
        return None
    offsets = [int.from_bytes(frame[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    if offsets[0] < 8 * (n + 1) or offsets[-1] > size:
        return None
    if any(b < a for a, b in zip(offsets, offsets[1:])):
        return None
    return offsets


def v1_frame(channel: str, msg: dict, buffers=()) -> bytes:
    """A v1 frame of the Jupyter message ``msg`` (header, parent_header, metadata, content) on
    ``channel``, with binary ``buffers``: what a page's kernel connection sends."""
    parts = [channel.encode()] + [json.dumps(msg[k]).encode()
                                  for k in ("header", "parent_header", "metadata", "content")]
    parts += [bytes(b) for b in buffers]
    n = len(parts) + 1
    offsets, pos = [], 8 * (n + 1)
    for part in parts:
        offsets.append(pos)
        pos += len(part)
    offsets.append(pos)
    return (n.to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets)
            + b"".join(parts))


class HardenedConnection(ZMQChannelsWebsocketConnection):
    """jupyter_server's kernel connection with every incoming frame checked before it is parsed.

    A frame that is not what the negotiated protocol says closes this connection (code 1003) and
    is logged; the kernel and every other connection go on.
    """

    def _reject(self, why: str) -> None:
        self.log.warning("kernelnb: closing kernel websocket %s: %s", self.kernel_id, why)
        handler = self.websocket_handler
        if handler is not None and handler.ws_connection is not None:
            handler.close(1003, "malformed message")

    def handle_incoming_message(self, incoming_msg) -> None:
        if self.subprotocol == V1_PROTOCOL:
            if parse_v1_offsets(incoming_msg) is None:
                self._reject("not a well-formed v1 frame")
                return
        else:
            if isinstance(incoming_msg, (bytes, bytearray)):
                # The legacy binary format has the same unchecked count; nothing kernelnb serves
                # sends it, so it is refused rather than parsed.
                self._reject("legacy binary frame")
                return
            try:
                msg = json.loads(incoming_msg)
            except (TypeError, ValueError):
                self._reject("not JSON")
                return
            if not isinstance(msg, dict) or not isinstance(msg.get("header"), dict):
                self._reject("no message header")
                return
        try:
            super().handle_incoming_message(incoming_msg)
        except Exception as exc:  # noqa: BLE001 - a bad message ends its connection, not the server
            self._reject(f"{type(exc).__name__}: {exc}")


def hardened_connection_class(cls):
    """``cls`` if it already checks frames, else a subclass of it that does (server extension).

    Only jupyter_server's own connection class (or a subclass) is hardened; another class (a kernel
    gateway's, say) is someone else's and is returned unchanged.
    """
    if cls is None:
        return HardenedConnection
    if issubclass(cls, HardenedConnection) or not issubclass(cls, ZMQChannelsWebsocketConnection):
        return cls
    if cls is ZMQChannelsWebsocketConnection:
        return HardenedConnection
    return type(f"Hardened{cls.__name__}", (HardenedConnection, cls), {})


def _voila_handler_base():
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler
    return VoilaKernelWebsocketHandler


class HardenedVoilaWebsocketHandler(_voila_handler_base()):
    """Voila's kernel websocket handler, for clients speaking the v1 protocol only.

    Voila's handler drops ``execute_input`` messages (so that code is not sent to the page) by
    reading the header of every outgoing binary frame as v1. This one refuses (HTTP 400, before
    the upgrade) a client that does not offer the v1 subprotocol: the frames sent to it would be
    in the legacy format, which Voila's reader takes for v1 (a count of about 8.6e17). Voila's own
    page and JupyterLab always offer it. The handler is put in Voila's place by
    :class:`kernelnb.lab.server.app.KernelnbVoila` (Voila has no setting for its handler classes).
    """

    @property
    def max_message_size(self):
        return min(self.settings.get("websocket_max_message_size", MAX_MESSAGE_BYTES),
                   MAX_MESSAGE_BYTES)

    async def get(self, *args, **kwargs):
        offered = self.request.headers.get("Sec-WebSocket-Protocol", "")
        if V1_PROTOCOL not in [p.strip() for p in offered.split(",")]:
            raise web.HTTPError(
                400, f"this server's kernel websocket requires the {V1_PROTOCOL} subprotocol")
        return await super().get(*args, **kwargs)

    def select_subprotocol(self, subprotocols):
        return V1_PROTOCOL if V1_PROTOCOL in subprotocols else None
