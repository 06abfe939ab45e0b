#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stub of the Anthropic Messages API for the real-CLI tests.

    stub_api.py PORT_FILE REQUEST_LOG [SECONDS]

Listens on 127.0.0.1 only, on a port the kernel picks, which it writes
to PORT_FILE once it accepts connections.  Every message is answered
"ok" (a Server-Sent Events stream when the request asks for one, else
one JSON message); every request line goes to REQUEST_LOG.  It serves
for at most SECONDS (default 600) and stops when its parent exits, so a
failed test never leaves it running.
"""
import http.server
import json
import os
import socketserver
import sys
import threading
import time

PORT_FILE, LOG = sys.argv[1], sys.argv[2]
LIMIT = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
PARENT = os.getppid()
log = open(LOG, "a", buffering=1)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self):
        self._send(404, "application/json",
                   b'{"type":"error","error":{"type":"not_found_error","message":"stub"}}')

    def do_GET(self):
        log.write("GET %s\n" % self.path)
        self._not_found()

    do_HEAD = do_GET

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n else b""
        path = self.path.split("?")[0]
        log.write("POST %s %d\n" % (path, len(body)))
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        if path.endswith("/count_tokens"):
            return self._send(200, "application/json", b'{"input_tokens":1}')
        if not path.endswith("/v1/messages"):
            return self._not_found()
        msg = {"id": "msg_stub", "type": "message", "role": "assistant",
               "model": req.get("model", "stub"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        if not req.get("stream"):
            msg["content"] = [{"type": "text", "text": "ok"}]
            msg["stop_reason"] = "end_turn"
            return self._send(200, "application/json", json.dumps(msg).encode())
        events = [
            ("message_start", {"type": "message_start", "message": msg}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": "ok"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        data = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events)
        self._send(200, "text/event-stream", data.encode())


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def watchdog(srv):
    start = time.monotonic()
    while time.monotonic() - start < LIMIT and os.getppid() == PARENT:
        time.sleep(0.5)
    srv.shutdown()


srv = Server(("127.0.0.1", 0), Handler)
threading.Thread(target=watchdog, args=(srv,), daemon=True).start()
tmp = PORT_FILE + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(tmp, PORT_FILE)
srv.serve_forever()
