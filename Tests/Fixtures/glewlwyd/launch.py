#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""Starts Debian's glewlwyd on 127.0.0.1 for webauth's end-to-end tests, configured through
its own admin REST API: an OpenID Connect plugin with pushed authorization requests required
(RFC 9126) and DPoP (draft 07) with nonces, a confidential client and a person who signs in
on glewlwyd's real login page.

Usage: launch.py DATA_DIRECTORY PORT REDIRECT_PORT

Everything lives in DATA_DIRECTORY: the SQLite database (made from the package's own schema),
the configuration, the signing key and glewlwyd's log. When glewlwyd is configured, the
fixture's values are written to DATA_DIRECTORY/fixture.json; then this script waits for
glewlwyd and ends it when it is itself ended. Python's standard library only.
"""

import base64
import http.cookiejar
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

SCHEMA = "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3"
PACKAGED_CONFIG = "/etc/glewlwyd/glewlwyd.conf"
WEBAPP = "/usr/share/glewlwyd/webapp/"
ADMIN = ("admin", "password")  # the package schema's administrator
CLIENT_ID = "webauth-cli"
CLIENT_SECRET = "webauth-cli-secret-4f1c9a"
USERNAME = "person"
PASSWORD = "person-password-7d2e"
# JWT client authentication (RFC 7523 §2.2, OpenID Connect Core §9).
JWT_KEY_CLIENT_ID = "webauth-jwt-key"
JWT_KEY_ID = "webauth-jwt-key-1"
JWT_SECRET_CLIENT_ID = "webauth-jwt-secret"
JWT_SECRET = "webauth-jwt-secret-value-0b8e2c5d71a94f36"


def plugin_defaults():
    """The OIDC plugin's defaults, as the package's admin page has them (admin.js)."""
    source = open(os.path.join(WEBAPP, "admin.js"), encoding="utf-8").read()
    start = source.index('{"oauth-as-iss-id"')
    depth = 0
    for end in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            break
    import re

    literal = source[start : end + 1].replace("!0", "true").replace("!1", "false")
    literal = re.sub(r"([{,])([A-Za-z_][A-Za-z0-9_]*):", r'\1"\2":', literal)
    return json.loads(literal)


def make_webapp(directory):
    """The login page's files: a copy of the package's (glewlwyd serves no symbolic link), with
    config.json, which Debian ships as a directory holding the file
    (/etc/glewlwyd/config-2.7.json/config.json), so that glewlwyd cannot serve it and the page
    never leaves "Loading..."."""
    webapp = os.path.join(directory, "webapp")
    shutil.copytree(WEBAPP, webapp, ignore=shutil.ignore_patterns("config.json"))
    packaged = os.path.realpath(os.path.join(WEBAPP, "config.json"))
    if os.path.isdir(packaged):
        packaged = os.path.join(packaged, "config.json")
    with open(packaged, encoding="utf-8") as source, open(os.path.join(webapp, "config.json"), "w") as copy:
        copy.write(source.read())
    return webapp + "/"


def write_configuration(directory, port):
    """The packaged configuration with the port, loopback address, URL, files and database of
    this launch."""
    replacements = {
        "port=": f"port={port}",
        "#bind_address=": 'bind_address="127.0.0.1"',
        "external_url=": f'external_url="http://127.0.0.1:{port}"',
        "# static_files_path=": f'static_files_path="{make_webapp(directory)}"',
        "log_mode=": 'log_mode="file"',
        "log_level=": 'log_level="DEBUG"',
        "log_file=": f'log_file="{directory}/glewlwyd.log"',
        "@include": f'database = {{ type = "sqlite3"; path = "{directory}/glewlwyd.db"; }};',
    }
    lines = []
    for line in open(PACKAGED_CONFIG, encoding="utf-8").read().splitlines():
        for prefix, replacement in replacements.items():
            if line.startswith(prefix):
                line = replacement
                break
        lines.append(line)
    path = os.path.join(directory, "glewlwyd.conf")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


class Admin:
    """glewlwyd's admin REST API, signed in as the administrator."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}/api"
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), urllib.request.ProxyHandler({})
        )

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base + path, method=method, data=data, headers={"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            raise SystemExit(f"glewlwyd admin API: {method} {path} answered {error.code}: {error.read()[:300]!r}")


def registration_parameters():
    """Dynamic client registration (RFC 7591, with RFC 7592's management) when
    WEBAUTH_GLEWLWYD_REGISTRATION asks for it: "open" registers anyone; "token" asks for an
    initial access token carrying the scope "registration"; unset leaves registration off."""
    mode = os.environ.get("WEBAUTH_GLEWLWYD_REGISTRATION", "")
    if mode not in ("open", "token"):
        return {}
    return {
        "register-client-allowed": True,
        "register-client-auth-scope": ["registration"] if mode == "token" else [],
        "register-client-credentials-scope": [],
        "register-client-management-allowed": True,
        "register-default-properties": {},
    }


def register_jwt_clients(admin, directory, redirect_uri):
    """Two more confidential clients: one registered for private_key_jwt with the JWKS of a
    P-256 key made here (the private key is left in DATA_DIRECTORY/client-key.pem, mode 0600),
    one for client_secret_jwt. Both may also use the client credentials grant. Returns their
    part of fixture.json."""
    key = os.path.join(directory, "client-key.pem")
    subprocess.run(
        ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key],
        check=True, capture_output=True,
    )
    os.chmod(key, 0o600)
    der = subprocess.run(
        ["openssl", "ec", "-in", key, "-pubout", "-outform", "DER"], check=True, capture_output=True
    ).stdout
    point = der[-64:]  # SubjectPublicKeyInfo ends with the uncompressed point 04 || x || y.
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    jwk = {"kty": "EC", "crv": "P-256", "x": encode(point[:32]), "y": encode(point[32:]), "kid": JWT_KEY_ID}
    jwk.update({"use": "sig", "alg": "ES256"})
    common = {
        "enabled": True,
        "confidential": True,
        "redirect_uri": [redirect_uri],
        "authorization_type": ["code", "refresh_token", "client_credentials"],
        "scope": ["openid"],
    }
    admin.call(
        "POST",
        "/client/",
        dict(common, client_id=JWT_KEY_CLIENT_ID, name="webauth private_key_jwt",
             token_endpoint_auth_method=["private_key_jwt"], jwks={"keys": [jwk]}),
    )
    admin.call(
        "POST",
        "/client/",
        dict(common, client_id=JWT_SECRET_CLIENT_ID, name="webauth client_secret_jwt",
             client_secret=JWT_SECRET, token_endpoint_auth_method=["client_secret_jwt"]),
    )
    return {
        "jwtKeyClientID": JWT_KEY_CLIENT_ID,
        "clientKeyFile": key,
        "clientKeyID": JWT_KEY_ID,
        "jwtSecretClientID": JWT_SECRET_CLIENT_ID,
        "jwtSecret": JWT_SECRET,
    }


def wait_until_serving(port, process, deadline):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"glewlwyd exited while starting ({process.returncode})")
        try:
            with opener.open(f"http://127.0.0.1:{port}/api/auth/scheme/", timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            # Real time is the point: glewlwyd says nothing when it is ready, so it is asked again.
            time.sleep(0.1)
    raise SystemExit("glewlwyd did not answer in time")


def main():
    directory, port, redirect_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    database = sqlite3.connect(os.path.join(directory, "glewlwyd.db"))
    database.executescript(open(SCHEMA, encoding="utf-8").read())
    database.close()
    configuration = write_configuration(directory, port)
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    public = subprocess.run(["openssl", "rsa", "-in", key, "-pubout"], check=True, capture_output=True).stdout

    glewlwyd = subprocess.Popen(
        ["glewlwyd", "--config-file", configuration],
        stdout=open(os.path.join(directory, "glewlwyd.out"), "w"),
        stderr=subprocess.STDOUT,
    )
    signal.signal(signal.SIGTERM, lambda *_: (glewlwyd.terminate(), sys.exit(0)))
    wait_until_serving(port, glewlwyd, time.monotonic() + 60)

    issuer = f"http://127.0.0.1:{port}/api/oidc"
    admin = Admin(port)
    admin.call("POST", "/auth/", {"username": ADMIN[0], "password": ADMIN[1]})
    parameters = plugin_defaults()
    parameters.update(
        {
            "iss": issuer,
            "jwt-type": "rsa",
            "jwt-key-size": "256",
            "key": open(key, encoding="utf-8").read(),
            "cert": public.decode(),
            "allowed-scope": ["openid"],
            "name-claim": "on-demand",
            "email-claim": "on-demand",
            "pkce-allowed": True,
            "pkce-required": True,
            "oauth-as-iss-id": True,
            "auth-type-token-enabled": False,
            "auth-type-id-token-enabled": False,
            "auth-type-none-enabled": False,
            "refresh-token-rolling": True,
            "introspection-revocation-allowed": True,
            "introspection-revocation-allow-target-client": True,
            "oauth-par-allowed": True,
            "oauth-par-required": True,
            "oauth-dpop-allowed": True,
            "oauth-dpop-nonce-mandatory": True,
            # How old (and how far ahead) a proof's iat may be, in seconds. glewlwyd's own check
            # calls the first mandatory; left out, both are 0, and a proof made in one second and
            # checked in the next is refused ("Invalid DPoP"), which a loaded machine meets.
            "oauth-dpop-iat-duration": 60,
            "oauth-dpop-iat-gap-duration": 5,
            # Client assertions (client_secret_jwt, private_key_jwt) ride on request objects.
            "request-parameter-allow": True,
            # The client credentials grant (for the JWT clients' tests without a browser).
            "allow-non-oidc": True,
        }
    )
    parameters.update(registration_parameters())
    admin.call(
        "POST",
        "/mod/plugin/",
        {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect", "enabled": True, "parameters": parameters},
    )
    # The person types the password on the login page for the openid scope.
    admin.call(
        "PUT",
        "/scope/openid",
        {
            "name": "openid",
            "display_name": "Open ID",
            "description": "OpenID Connect",
            "password_required": True,
            "password_max_age": 0,
            "scheme": {},
        },
    )
    redirect_uri = f"http://127.0.0.1:{redirect_port}/callback"
    admin.call(
        "POST",
        "/client/",
        {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "name": "webauth",
            "enabled": True,
            "confidential": True,
            "token_endpoint_auth_method": ["client_secret_basic"],
            "redirect_uri": [redirect_uri],
            "authorization_type": ["code", "refresh_token"],
            "scope": ["openid"],
        },
    )
    admin.call(
        "POST",
        "/user/",
        {
            "username": USERNAME,
            "name": "A Person",
            "email": "person@example.com",
            "password": PASSWORD,
            "scope": ["openid"],
            "enabled": True,
        },
    )
    jwt_clients = register_jwt_clients(admin, directory, redirect_uri)
    fixture = {
        **jwt_clients,
        "issuer": issuer,
        "clientID": CLIENT_ID,
        "clientSecret": CLIENT_SECRET,
        "redirectURI": redirect_uri,
        "username": USERNAME,
        "password": PASSWORD,
    }
    written = os.path.join(directory, "fixture.json.part")
    with open(written, "w", encoding="utf-8") as file:
        json.dump(fixture, file)
    os.rename(written, os.path.join(directory, "fixture.json"))
    sys.exit(glewlwyd.wait())


if __name__ == "__main__":
    main()
