#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""A git smart-HTTP server for webauth's tests, whose passwords are OAuth access tokens.

Every request must carry HTTP Basic credentials. The password is checked the way a real forge
checks a token: by calling the provider's UserInfo endpoint with it as a bearer token (no
caching, so a revoked token fails at once). A good token lets `git http-backend` (Debian's git)
serve the request as CGI, pushes included; anything else gets 401 with a Basic challenge, which
makes git ask its credential helpers, then tell them `erase`.

It serves plain HTTP on 127.0.0.1 at a port the system picks and prints one line,
``listening on http://127.0.0.1:PORT``, once it accepts connections.

    GET  /log   the requests so far, as JSON: method, path, status, username and whether the
                token was accepted; never a password, token or query

It exits when its standard input reaches end of file (so it dies with the test process that
started it), on SIGTERM, or after --lifetime seconds.

    python3 server.py --repositories DIR --userinfo URL [--lifetime 300]
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class Handler(BaseHTTPRequestHandler):
    server_version = "webauth-git-fixture"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # /log is the record; nothing goes to stderr

    def do_GET(self):
        if urlsplit(self.path).path == "/log":
            with self.server.lock:
                body = json.dumps(self.server.log).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.serve_git()

    def do_POST(self):
        self.serve_git()

    def serve_git(self):
        body = self.read_body()
        username, accepted = self.check_credentials()
        if not accepted:
            self.record(401, username, False)
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="webauth git fixture"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status = self.run_backend(body, username)
        self.record(status, username, True)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def check_credentials(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return None, False
        try:
            username, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return None, False
        if not password:
            return username, False
        request = urllib.request.Request(self.server.userinfo, headers={"Authorization": "Bearer " + password})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return username, response.status == 200
        except (urllib.error.URLError, OSError):
            return username, False

    def run_backend(self, body, username):
        url = urlsplit(self.path)
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.server.repositories,
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": url.path,
            "QUERY_STRING": url.query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": username or "",
            "REMOTE_ADDR": self.client_address[0],
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": self.server.repositories,
        }
        if self.headers.get("Content-Encoding"):
            environment["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            environment["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        result = subprocess.run(["git", "http-backend"], input=body, env=environment, capture_output=True)
        head, _, payload = result.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = result.stdout.partition(b"\n\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        return status

    def record(self, status, username, accepted):
        with self.server.lock:
            self.server.log.append(
                {
                    "method": self.command,
                    "path": urlsplit(self.path).path,
                    "status": status,
                    "username": username,
                    "accepted": accepted,
                }
            )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repositories", required=True)
    parser.add_argument("--userinfo", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    arguments = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.repositories = os.path.abspath(arguments.repositories)
    server.userinfo = arguments.userinfo
    server.log = []
    server.lock = threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)

    def end_on_eof():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=end_on_eof, daemon=True).start()
    # Real time is the point: the server's own lifetime, a bound should the test never end it.
    time.sleep(arguments.lifetime)
    os._exit(0)


if __name__ == "__main__":
    main()
