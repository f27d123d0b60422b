#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""A stand-in Kubernetes API server for webauth's tests: it answers only requests whose bearer
token the provider vouches for, the way an OIDC-configured kube-apiserver does.

With --jwks, the bearer must be an ID token: an RS256 JWT signed by a key of the provider's JWKS
(fetched with urllib, checked by jwcrypto), from --issuer, for --audience, not expired. With
--userinfo instead, the bearer must be an access token the provider's UserInfo endpoint accepts.

It serves plain HTTP on 127.0.0.1 at a port the system picks and prints one line,
``listening on http://127.0.0.1:PORT``, once it accepts connections.

    GET /version                           the server's version, as kube-apiserver answers it
    GET /api/v1/namespaces/default/pods    an empty PodList
    GET /log                               the requests so far, as JSON: path, status and the
                                           token's subject; never a token

It exits when its standard input reaches end of file, on SIGTERM, or after --lifetime seconds.

    python3 server.py (--jwks URL --issuer ISS --audience AUD | --userinfo URL) [--lifetime 300]
"""

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from jwcrypto import jwk, jwt

VERSION = {
    "major": "1",
    "minor": "31",
    "gitVersion": "v1.31.0-webauth-fixture",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}
PODS = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}


class Handler(BaseHTTPRequestHandler):
    server_version = "webauth-kube-fixture"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_GET(self):
        path = urlsplit(self.path).path.rstrip("/") or "/"
        if path == "/log":
            with self.server.lock:
                self.answer(200, self.server.log)
            return
        subject = self.authenticate()
        if subject is None:
            self.record(path, 401, None)
            self.answer(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized", "code": 401})
            return
        body = {"/version": VERSION, "/api/v1/namespaces/default/pods": PODS}.get(path)
        status = 200 if body is not None else 404
        self.record(path, status, subject)
        self.answer(status, body or {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404})

    def authenticate(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            return None
        token = header[7:]
        if self.server.userinfo:
            request = urllib.request.Request(self.server.userinfo, headers={"Authorization": header})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return json.load(response).get("sub", "") if response.status == 200 else None
            except (urllib.error.URLError, OSError, ValueError):
                return None
        try:
            with urllib.request.urlopen(self.server.jwks, timeout=30) as response:
                keys = jwk.JWKSet.from_json(response.read())
            checked = jwt.JWT(
                jwt=token,
                key=keys,
                algs=["RS256"],
                check_claims={"iss": self.server.issuer, "aud": self.server.audience, "exp": None},
            )
            return json.loads(checked.claims).get("sub")
        except Exception:  # any failure of the token is a 401, as on a real API server
            return None

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, path, status, subject):
        with self.server.lock:
            self.server.log.append({"path": path, "status": status, "subject": subject})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jwks")
    parser.add_argument("--issuer")
    parser.add_argument("--audience")
    parser.add_argument("--userinfo")
    parser.add_argument("--lifetime", type=float, default=300)
    arguments = parser.parse_args()
    if not arguments.userinfo and not (arguments.jwks and arguments.issuer and arguments.audience):
        parser.error("give --userinfo, or --jwks with --issuer and --audience")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.jwks = arguments.jwks
    server.issuer = arguments.issuer
    server.audience = arguments.audience
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
