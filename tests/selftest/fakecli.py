# SPDX-License-Identifier: MIT
"""A stand-in for the model CLI, for `stepguard --self-test --model-cli`.

tests/selftest/run.sh installs it as DIR/claude (with a #! line naming
python3 itself, so that a ruling step's exec allow-list has the
interpreter) beside a file DIR/mode that says what to do:

  client   the host test of the self-test's stub API: talk to
           $ANTHROPIC_BASE_URL as the real CLI 2.1.332 does (POST
           /v1/messages?beta=true, streaming, on a keep-alive connection,
           next to a GET /api/hello), check every answer, check that the
           stub listens on 127.0.0.1 and nothing else, then start the
           planted hooks and MCP server as the CLI does (sh -c COMMAND; the
           server's command and args), and print "ok" only if every check
           held.  Under a ruling each start must be refused by the kernel.
  markers  the same, but write each plant's marker itself instead of
           starting anything: a write in the work directory lands, so the
           self-test must fail, naming the markers.
  silent   ask the stub nothing; start the plants; print "ok".
  exit3    as client, then exit 3.
  wrong    as client, but print "not ok".

Like the CLI, it honours --setting-sources (project settings only when
"project" is listed) and --strict-mcp-config (no .mcp.json), which the
policy's ruling options add.  It writes nothing but the markers.
"""
import errno
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import urllib.parse

problems = []


def want(cond, what):
    if not cond:
        problems.append(what)
    return cond


def sse_events(body):
    """[(event, data-object)] of a text/event-stream body."""
    out = []
    for block in body.decode().split("\n\n"):
        if not block.strip():
            continue
        ev, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                ev = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        out.append((ev, data))
    return out


# The request the real CLI sends, as captured from 2.1.332 (headers and
# body keys; the values are shortened).
HEADERS = {
    "Accept": "application/json",
    "Content-Type": "application/json",
    "User-Agent": "claude-cli/2.1.332 (external, sdk-cli)",
    "X-Stainless-Lang": "js",
    "X-Stainless-Retry-Count": "0",
    "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
    "anthropic-dangerous-direct-browser-access": "true",
    "anthropic-version": "2023-06-01",
    "x-app": "cli",
    "Connection": "keep-alive",
    "Accept-Encoding": "gzip, deflate, br, zstd",
}


def body(stream):
    return json.dumps({
        "model": "claude-stub-model",
        "max_tokens": 128000,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [],
        "metadata": {"user_id": "stepguard-self-test"},
        "thinking": {"type": "disabled"},
        "context_management": {"edits": []},
        "output_config": {},
        "stream": stream,
    }).encode()


def check_stub():
    url = urllib.parse.urlsplit(os.environ.get("ANTHROPIC_BASE_URL", ""))
    if not want(url.scheme == "http" and url.hostname == "127.0.0.1" and url.port,
                "ANTHROPIC_BASE_URL is %r, not http://127.0.0.1:PORT" % url.geturl()):
        return
    port = url.port
    hdr = dict(HEADERS, **{"x-api-key": os.environ.get("ANTHROPIC_API_KEY", "")})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)

    # 1. What the CLI asks first: a streamed message.
    conn.request("POST", "/v1/messages?beta=true", body=body(True), headers=hdr)
    sock = conn.sock
    r = conn.getresponse()
    data = r.read()
    want(r.status == 200, "stream: status %d" % r.status)
    want(r.getheader("Content-Type") == "text/event-stream", "stream: Content-Type %r" % r.getheader("Content-Type"))
    want(r.getheader("Content-Length") == str(len(data)), "stream: Content-Length %r for %d bytes" % (r.getheader("Content-Length"), len(data)))
    want((r.getheader("Connection") or "").lower() == "keep-alive", "stream: Connection %r" % r.getheader("Connection"))
    evs = sse_events(data)
    names = [e for e, _ in evs]
    want(names == ["message_start", "content_block_start", "content_block_delta",
                   "content_block_stop", "message_delta", "message_stop"], "stream: events %r" % names)
    want(all(d and d.get("type") == e for e, d in evs), "stream: an event's data has another type")
    if len(evs) == 6:
        m = evs[0][1]["message"]
        want(m.get("role") == "assistant" and m.get("model") == "claude-stub-model", "stream: message_start %r" % m)
        want(evs[2][1]["delta"] == {"type": "text_delta", "text": "ok"}, "stream: delta %r" % evs[2][1]["delta"])
        want(evs[4][1]["delta"].get("stop_reason") == "end_turn", "stream: message_delta %r" % evs[4][1])

    # 2. The same connection (keep-alive), not streaming, no query.
    conn.request("POST", "/v1/messages", body=body(False), headers=hdr)
    r = conn.getresponse()
    data = r.read()
    want(conn.sock is sock, "the stub did not keep the connection open")
    want(r.status == 200 and r.getheader("Content-Type") == "application/json", "json: %d %r" % (r.status, r.getheader("Content-Type")))
    try:
        m = json.loads(data)
        want(m.get("type") == "message" and m.get("role") == "assistant" and
             m.get("content") == [{"type": "text", "text": "ok"}] and m.get("stop_reason") == "end_turn",
             "json: message %r" % m)
    except ValueError:
        want(False, "json: not JSON: %r" % data[:200])

    # 3. What else the CLI asks: answered 404, as JSON, on the same connection.
    conn.request("GET", "/api/hello", headers=hdr)
    r = conn.getresponse()
    data = r.read()
    want(conn.sock is sock, "the stub closed the connection after a 404")
    want(r.status == 404, "GET /api/hello: status %d" % r.status)
    try:
        want(json.loads(data).get("error", {}).get("type") == "not_found_error", "404: %r" % data[:200])
    except ValueError:
        want(False, "404: not JSON: %r" % data[:200])

    # 4. A body that is not JSON: 400, not a crash.
    conn.request("POST", "/v1/messages?beta=true", body=b"{not json", headers=hdr)
    r = conn.getresponse()
    r.read()
    want(r.status == 400, "bad JSON: status %d" % r.status)
    conn.close()

    # 5. 127.0.0.1 and nothing else: no other listener on the port, in
    # either family, and no answer on another loopback address.
    for fam, path in (("tcp", "/proc/net/tcp"), ("tcp6", "/proc/net/tcp6")):
        try:
            with open(path) as f:
                rows = [l.split() for l in f.readlines()[1:]]
        except OSError:
            continue
        for row in rows:
            addr, port_hex = row[1].rsplit(":", 1)
            if row[3] == "0A" and int(port_hex, 16) == port:
                want(fam == "tcp" and addr == "0100007F", "a listener on %s %s:%d" % (fam, addr, port))
    for fam, addr in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET6, "::1")):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect((addr, port))
            want(False, "the stub answers on %s" % addr)
        except OSError as e:
            want(e.errno in (errno.ECONNREFUSED, errno.EADDRNOTAVAIL, errno.ENETUNREACH,
                             errno.EAFNOSUPPORT), "connecting to %s: %s" % (addr, e))
        finally:
            s.close()


def settings(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def plants(argv):
    """[(argv to start, marker)] of the planted hooks and servers, as the CLI finds them."""
    sources = None
    for i, a in enumerate(argv):
        if a.startswith("--setting-sources="):
            sources = a.split("=", 1)[1].split(",")
        elif a == "--setting-sources" and i + 1 < len(argv):
            sources = argv[i + 1].split(",")
    files = [os.path.join(os.environ.get("HOME", "/nonexistent"), ".claude/settings.json")]
    if sources is None or "project" in sources:
        files.append(".claude/settings.json")
    out = []
    for path in files:
        for entries in settings(path).get("hooks", {}).values():
            for entry in entries:
                for h in entry.get("hooks", []):
                    m = re.search(r"> '(.*)'$", h.get("command", ""))
                    out.append((["/bin/sh", "-c", h["command"]], m.group(1) if m else None))
    if "--strict-mcp-config" not in argv:
        for srv in settings(".mcp.json").get("mcpServers", {}).values():
            cmd = [srv["command"]] + srv.get("args", [])
            out.append((cmd, cmd[-1]))
    return out


def main():
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    with open(os.path.join(here, "mode")) as f:
        mode = f.read().strip()
    if mode != "silent":
        try:
            check_stub()
        except Exception as e:  # a failed check, whatever raised it
            problems.append("talking to the stub: %r" % e)
    for cmd, marker in plants(sys.argv[1:]):
        if mode == "markers":
            if marker:
                open(marker, "w").close()
            continue
        # As the CLI: a start that fails is noted and the session goes on.
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, timeout=20)
        except OSError as e:
            print("fakecli: %s: %s" % (cmd[0], e), file=sys.stderr)
    for p in problems:
        print("fakecli: " + p, file=sys.stderr)
    if problems:
        print("the stub failed %d check%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("not ok" if mode == "wrong" else "ok")
    return 3 if mode == "exit3" else 0


sys.exit(main())
