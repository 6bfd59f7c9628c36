#!/usr/bin/env python3
"""An origin for `thumbd-bench prefetch`: serves a folder's photos on 127.0.0.1 after a delay, and
logs when each request arrived.

Usage: prefetch_origin.py ROOT PORT LATENCY_MS LOG

  ROOT        folder of photos; GET /NAME (or /slow/NAME), any query ignored, answers ROOT/NAME
  PORT        port to listen on (127.0.0.1 only)
  LATENCY_MS  delay before every answer, in milliseconds; paths under /slow/ wait 2 s instead
              (the bench cancels a job of those and checks the requests stop)
  LOG         file to which `SECONDS PATH` (Unix time of arrival) is appended per request

Runs until killed.
"""
import http.server
import os
import sys
import threading
import time


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    root, port, latency, log = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000, sys.argv[4]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            with lock, open(log, "a") as f:
                f.write("%.6f %s\n" % (time.time(), self.path))
            delay = 2.0 if self.path.startswith("/slow/") else latency
            time.sleep(delay)
            name = self.path.split("?")[0].split("/")[-1]
            try:
                data = open(os.path.join(root, name), "rb").read()
            except OSError:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            try:
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer.daemon_threads = True
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
