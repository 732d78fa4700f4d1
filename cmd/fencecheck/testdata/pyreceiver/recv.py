"""A fencing receiver in Python that speaks fencecheck's HTTP protocol
(docs/http-protocol.md) and answers right, but logs a traceback for every
read of a resource never written: the exception is caught and logged, and
the answer is the protocol's 404. With --die-on-token N it raises on a
write of token N and dies of it, as a receiver that never caught an
exception would. For fencecheck's end-to-end tests of receiver logs."""

import argparse
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

store = {}  # resource -> (token, value)
lock = threading.Lock()
die_on = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass  # quiet: only the tracebacks

    def name(self):
        prefix = "/resources/"
        if not self.path.startswith(prefix):
            return None
        return self.path[len(prefix):]

    def answer(self, code, body=b"", token=None):
        self.send_response(code)
        if token is not None:
            self.send_header("Fencing-Token", str(token))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        name = self.name()
        if name is None:
            return self.answer(200, b"ok")
        try:
            with lock:
                token, value = store[name]
        except KeyError:
            traceback.print_exc()
            sys.stderr.flush()
            return self.answer(404, b"never written")
        self.answer(200, value, token)

    def do_PUT(self):
        name = self.name()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        raw = self.headers.get("Fencing-Token", "")
        if name is None or not raw.isdigit() or raw != str(int(raw)) or int(raw) == 0:
            return self.answer(400, b"bad request")
        token = int(raw)
        if die_on is not None and token == die_on:
            threading.Thread(target=die, args=(token,)).start()
            return
        with lock:
            current = store.get(name, (0, b""))[0]
            if token <= current:
                return self.answer(409, b"stale", current)
            store[name] = (token, body)
        self.answer(204, token=token)


def check(token):
    raise OverflowError("token %d is not one this receiver can store" % token)


def die(token):
    try:
        check(token)
    except OverflowError:
        traceback.print_exc()
        sys.stderr.flush()
        import os
        os._exit(1)


def main():
    global die_on
    p = argparse.ArgumentParser()
    p.add_argument("--listen", required=True)
    p.add_argument("--die-on-token", type=int)
    a = p.parse_args()
    die_on = a.die_on_token
    host, port = a.listen.rsplit(":", 1)
    ThreadingHTTPServer((host, int(port)), Handler).serve_forever()


if __name__ == "__main__":
    main()
