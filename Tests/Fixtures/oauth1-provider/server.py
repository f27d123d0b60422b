#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""An OAuth 1.0a provider for webauth's tests, written independently of the Swift client.

Every signature is checked by oauthlib's RFC 5849 server endpoints (RequestTokenEndpoint,
AuthorizationEndpoint, AccessTokenEndpoint, ResourceEndpoint); this file only stores tokens.
It serves plain HTTP on 127.0.0.1 at a port the system picks and prints one line,
``listening on http://127.0.0.1:PORT``, once it accepts connections.

    POST /initiate    temporary credentials (oauth_callback must be a loopback http URI)
    GET  /authorize   no login form: redirects straight to the callback with oauth_token and
                      oauth_verifier (or, with ?deny=1, with denied=<token> as Twitter does)
    POST /token       token credentials, plus user_id and screen_name
    GET  /photos      a protected resource: 200 and JSON for a valid signed request, else 401
    GET  /log         the requests received so far (method, path, status, whether an
                      Authorization header came), as JSON; never tokens, secrets or queries

It exits when its standard input reaches end of file (so it dies with the test process that
started it), on SIGTERM, or after --lifetime seconds.

    python3 server.py --consumer-key KEY --consumer-secret SECRET [--lifetime 120]
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from oauthlib.oauth1 import (
    AccessTokenEndpoint,
    AuthorizationEndpoint,
    RequestTokenEndpoint,
    RequestValidator,
    ResourceEndpoint,
)
from oauthlib.oauth1.rfc5849 import errors

USER_ID = "6253282"
SCREEN_NAME = "jane_doe"


class Validator(RequestValidator):
    """Keeps one client and its tokens in memory. oauthlib's defaults stay in force: keys,
    tokens, nonces and verifiers of 20 to 30 letters and digits, timestamps within 600 s."""

    def __init__(self, consumer_key, consumer_secret):
        super().__init__()
        self.consumer_key = consumer_key
        self.consumer_secret = consumer_secret
        self.lock = threading.Lock()
        self.request_tokens = {}  # token -> {secret, callback, verifier}
        self.access_tokens = {}  # token -> secret
        self.nonces = set()

    # Plain HTTP on loopback, for the test only.
    @property
    def enforce_ssl(self):
        return False

    @property
    def dummy_client(self):
        return "dummyClientKeyForTiming0"

    @property
    def dummy_request_token(self):
        return "dummyRequestTokenForTiming00"

    @property
    def dummy_access_token(self):
        return "dummyAccessTokenForTiming000"

    def validate_client_key(self, client_key, request):
        return client_key == self.consumer_key

    def get_client_secret(self, client_key, request):
        return self.consumer_secret if client_key == self.consumer_key else "dummy-secret"

    def validate_timestamp_and_nonce(self, client_key, timestamp, nonce, request, request_token=None,
                                     access_token=None):
        key = (client_key, timestamp, nonce, request_token, access_token)
        with self.lock:
            if key in self.nonces:
                return False
            self.nonces.add(key)
            return True

    def get_default_realms(self, client_key, request):
        return []

    def validate_requested_realms(self, client_key, realms, request):
        return True

    def validate_redirect_uri(self, client_key, redirect_uri, request):
        parts = urlsplit(redirect_uri)
        return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1", "localhost")

    def save_request_token(self, token, request):
        with self.lock:
            self.request_tokens[token["oauth_token"]] = {
                "secret": token["oauth_token_secret"],
                "callback": request.redirect_uri,
                "verifier": None,
            }

    def verify_request_token(self, token, request):
        with self.lock:
            return token in self.request_tokens

    def get_realms(self, token, request):
        return []

    def verify_realms(self, token, realms, request):
        return True

    def get_redirect_uri(self, token, request):
        with self.lock:
            return self.request_tokens[token]["callback"]

    def save_verifier(self, token, verifier, request):
        with self.lock:
            self.request_tokens[token]["verifier"] = verifier["oauth_verifier"]

    def validate_request_token(self, client_key, token, request):
        with self.lock:
            return client_key == self.consumer_key and token in self.request_tokens

    def get_request_token_secret(self, client_key, token, request):
        with self.lock:
            entry = self.request_tokens.get(token)
            return entry["secret"] if entry else "dummy-request-token-secret"

    def validate_verifier(self, client_key, token, verifier, request):
        with self.lock:
            entry = self.request_tokens.get(token)
            return bool(entry and entry["verifier"] and entry["verifier"] == verifier)

    def invalidate_request_token(self, client_key, request_token, request):
        with self.lock:
            self.request_tokens.pop(request_token, None)

    def save_access_token(self, token, request):
        with self.lock:
            self.access_tokens[token["oauth_token"]] = token["oauth_token_secret"]

    def validate_access_token(self, client_key, token, request):
        with self.lock:
            return client_key == self.consumer_key and token in self.access_tokens

    def get_access_token_secret(self, client_key, token, request):
        with self.lock:
            return self.access_tokens.get(token, "dummy-access-token-secret")

    def validate_realms(self, client_key, token, request, uri=None, realms=None):
        return True


class Provider:
    def __init__(self, consumer_key, consumer_secret):
        self.validator = Validator(consumer_key, consumer_secret)
        self.request_token = RequestTokenEndpoint(self.validator)
        self.authorization = AuthorizationEndpoint(self.validator)
        self.access_token = AccessTokenEndpoint(self.validator)
        self.resource = ResourceEndpoint(self.validator)
        self.log = []
        self.log_lock = threading.Lock()

    def record(self, method, path, status, signed):
        with self.log_lock:
            self.log.append({"method": method, "path": path, "status": status, "authorization": signed})


def make_handler(provider):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # stderr stays quiet: URLs carry tokens
            pass

        def absolute_uri(self):
            return "http://%s%s" % (self.headers.get("Host", "127.0.0.1"), self.path)

        def read_body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length).decode("utf-8") if length else ""

        def respond(self, status, body=b"", headers=None):
            path = urlsplit(self.path).path
            if path != "/log":
                provider.record(self.command, path, status, "Authorization" in self.headers)
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            # One request per connection: the tests' scripted browser reads until the server closes.
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            self.wfile.write(body)

        def answer(self, result):
            headers, body, status = result
            self.respond(status, (body or "").encode("utf-8"), headers)

        def do_POST(self):
            body = self.read_body()
            headers = dict(self.headers.items())
            path = urlsplit(self.path).path
            if path == "/initiate":
                self.answer(provider.request_token.create_request_token_response(
                    self.absolute_uri(), "POST", body, headers))
            elif path == "/token":
                self.answer(provider.access_token.create_access_token_response(
                    self.absolute_uri(), "POST", body, headers,
                    credentials={"user_id": USER_ID, "screen_name": SCREEN_NAME}))
            else:
                self.respond(404, b"not found", {"Content-Type": "text/plain"})

        def do_GET(self):
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query))
            if parts.path == "/authorize":
                try:
                    if query.get("deny") == "1":
                        token = query.get("oauth_token", "")
                        if not provider.validator.verify_request_token(token, None):
                            raise errors.InvalidClientError()
                        callback = provider.validator.get_redirect_uri(token, None)
                        separator = "&" if "?" in callback else "?"
                        self.respond(302, b"", {"Location": callback + separator + "denied=" + token})
                        return
                    self.answer(provider.authorization.create_authorization_response(
                        self.absolute_uri(), "GET", None, dict(self.headers.items()), realms=[]))
                except errors.OAuth1Error as error:
                    self.respond(error.status_code, error.urlencoded.encode("utf-8"),
                                 {"Content-Type": "application/x-www-form-urlencoded"})
            elif parts.path == "/photos":
                valid, _ = provider.resource.validate_protected_resource_request(
                    self.absolute_uri(), "GET", None, dict(self.headers.items()), realms=[])
                if valid:
                    body = json.dumps({"file": query.get("file"), "owner": SCREEN_NAME}).encode("utf-8")
                    self.respond(200, body, {"Content-Type": "application/json"})
                else:
                    self.respond(401, b"invalid signature",
                                 {"Content-Type": "text/plain", "WWW-Authenticate": 'OAuth realm="Photos"'})
            elif parts.path == "/log":
                with provider.log_lock:
                    body = json.dumps(provider.log).encode("utf-8")
                self.respond(200, body, {"Content-Type": "application/json"})
            else:
                self.respond(404, b"not found", {"Content-Type": "text/plain"})

    return Handler


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--consumer-key", required=True)
    parser.add_argument("--consumer-secret", required=True)
    parser.add_argument("--lifetime", type=float, default=120)
    arguments = parser.parse_args()

    provider = Provider(arguments.consumer_key, arguments.consumer_secret)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(provider))
    server.daemon_threads = True
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    lifetime = threading.Timer(arguments.lifetime, lambda: os._exit(3))
    lifetime.daemon = True
    lifetime.start()
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
