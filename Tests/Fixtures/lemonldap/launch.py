#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""Starts Debian's LemonLDAP::NG on 127.0.0.1 for webauth's end-to-end tests: its portal as an
OpenID Connect provider, served by the package's FastCGI server behind nginx, configured
through LemonLDAP::NG's own files (lemonldap-ng.ini and a File-backend lmConf-1.json).

Usage: launch.py DATA_DIRECTORY PORT REDIRECT_PORT

Everything lives in DATA_DIRECTORY: the configuration, the sessions, nginx's configuration,
temporary files and logs, the signing key and the FastCGI socket. Nothing in /etc is read but
what Perl itself needs; the packages' own nginx sites and services are not used. nginx listens
on 127.0.0.1:PORT only, and reaches the FastCGI server through a Unix socket in
DATA_DIRECTORY.

The configuration: the Demo authentication and user backends (the people dwho/dwho and
rtyler/rtyler), the OpenID Connect issuer with an RS256 key made here, dynamic client
registration, and two relying parties:
- a public client that must use PKCE, may ask for refresh tokens and offline_access, and is
  registered with http://127.0.0.1:REDIRECT_PORT/callback as its redirect and post-logout
  redirect URI (LemonLDAP::NG compares redirect URIs exactly, so the port is fixed);
- a confidential client (client_secret_basic or client_secret_post) that may use the client
  credentials grant; its ID and secret form-encode to themselves and their Base64 has no + or
  /, which LemonLDAP::NG's reading of HTTP Basic credentials needs.

When the portal answers its discovery document, the fixture's values are written to
DATA_DIRECTORY/fixture.json; then this script waits for its children and ends them when it is
itself ended (SIGTERM, SIGINT) or when either child exits. Python's standard library only.
"""

import grp
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

FASTCGI_SERVER = "/usr/sbin/llng-fastcgi-server"
NGINX = "/usr/sbin/nginx"
PORTAL_HTDOCS = "/usr/share/lemonldap-ng/portal/htdocs"
PORTAL_TEMPLATES = "/usr/share/lemonldap-ng/portal/templates"
JAVASCRIPT = "/usr/share/javascript"
# The FastCGI server refuses to run as root: when this script runs as root, the portal runs as
# this user, and owns DATA_DIRECTORY.
SERVICE_USER = ("nobody", "nogroup")

PUBLIC_CLIENT_ID = "webauth-public"
MACHINE_CLIENT_ID = "webauth-machine"
MACHINE_CLIENT_SECRET = "webauth-machine-secret-5b7e1d"
USERNAME = "dwho"
PASSWORD = "dwho"
KEY_ID = "webauth-fixture-sig"
ACCESS_TOKEN_SECONDS = 3600


def make_key(directory):
    """An RSA key for the issuer's signatures: the private key and its public half, as PEM."""
    private = os.path.join(directory, "oidc-key.pem")
    subprocess.run(["openssl", "genrsa", "-out", private, "2048"], check=True, capture_output=True)
    public = subprocess.run(
        ["openssl", "rsa", "-in", private, "-pubout"], check=True, capture_output=True, text=True
    ).stdout
    with open(private, encoding="ascii") as file:
        return file.read(), public


def configuration(directory, port, redirect_port, private_key, public_key):
    """LemonLDAP::NG's global configuration (what its manager would save), number 1."""
    portal = f"http://127.0.0.1:{port}/"
    session_options = {
        "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256",
    }
    redirect_uri = f"http://127.0.0.1:{redirect_port}/callback"
    exported = {"email": "mail", "name": "cn", "preferred_username": "uid"}
    return {
        "cfgNum": 1,
        "cfgAuthor": "webauth's test fixture",
        "cfgDate": str(int(time.time())),
        "cfgVersion": "2.16.1",
        "portal": portal,
        "domain": "127.0.0.1",
        "cookieName": "lemonldap",
        "securedCookie": 0,
        "authentication": "Demo",
        "userDB": "Same",
        "passwordDB": "Demo",
        "registerDB": "Null",
        # Every file the portal writes is in DATA_DIRECTORY.
        "globalStorage": "Apache::Session::File",
        "globalStorageOptions": dict(
            session_options, Directory=f"{directory}/sessions", LockDirectory=f"{directory}/sessions/lock"),
        "persistentStorage": "Apache::Session::File",
        "persistentStorageOptions": dict(
            session_options, Directory=f"{directory}/psessions", LockDirectory=f"{directory}/psessions/lock"),
        "localSessionStorage": "Cache::FileCache",
        "localSessionStorageOptions": {
            "namespace": "lemonldap-ng-sessions",
            "default_expires_in": 600,
            "directory_umask": "007",
            "cache_root": f"{directory}/cache",
            "cache_depth": 3,
        },
        "notificationStorage": "File",
        "notificationStorageOptions": {"dirName": f"{directory}/notifications"},
        "demoExportedVars": {"cn": "cn", "mail": "mail", "uid": "uid"},
        "exportedVars": {"UA": "HTTP_USER_AGENT"},
        "whatToTrace": "uid",
        "locationRules": {},
        "exportedHeaders": {},
        "portalDisplayAppslist": 0,
        # The sign-in form needs no one-time token, so that the test's browser may take its time.
        "requireToken": 0,
        "loginHistoryEnabled": 0,
        "checkXSS": 1,
        "trustedDomains": "",
        # OpenID Connect issuer.
        "issuerDBOpenIDConnectActivation": 1,
        "issuerDBOpenIDConnectPath": "^/oauth2/",
        "issuerDBOpenIDConnectRule": 1,
        "oidcServiceMetaDataIssuer": portal.rstrip("/"),
        "oidcServicePrivateKeySig": private_key,
        "oidcServicePublicKeySig": public_key,
        "oidcServiceKeyIdSig": KEY_ID,
        "oidcServiceAllowDynamicRegistration": 1,
        "oidcServiceAllowAuthorizationCodeFlow": 1,
        "oidcServiceAllowImplicitFlow": 0,
        "oidcServiceAllowHybridFlow": 0,
        "oidcServiceAccessTokenExpiration": ACCESS_TOKEN_SECONDS,
        "oidcServiceDynamicRegistrationExportedVars": exported,
        "oidcRPMetaDataOptions": {
            "public": {
                "oidcRPMetaDataOptionsClientID": PUBLIC_CLIENT_ID,
                "oidcRPMetaDataOptionsDisplayName": "webauth (public)",
                "oidcRPMetaDataOptionsPublic": 1,
                "oidcRPMetaDataOptionsRequirePKCE": 1,
                "oidcRPMetaDataOptionsRedirectUris": redirect_uri,
                "oidcRPMetaDataOptionsPostLogoutRedirectUris": redirect_uri,
                "oidcRPMetaDataOptionsRefreshToken": 1,
                "oidcRPMetaDataOptionsAllowOffline": 1,
                "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256",
                "oidcRPMetaDataOptionsBypassConsent": 0,
                "oidcRPMetaDataOptionsLogoutBypassConfirm": 0,
                "oidcRPMetaDataOptionsAccessTokenExpiration": ACCESS_TOKEN_SECONDS,
            },
            "machine": {
                "oidcRPMetaDataOptionsClientID": MACHINE_CLIENT_ID,
                "oidcRPMetaDataOptionsClientSecret": MACHINE_CLIENT_SECRET,
                "oidcRPMetaDataOptionsDisplayName": "webauth (machine)",
                "oidcRPMetaDataOptionsPublic": 0,
                "oidcRPMetaDataOptionsAllowClientCredentialsGrant": 1,
                "oidcRPMetaDataOptionsRedirectUris": redirect_uri,
                "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256",
                "oidcRPMetaDataOptionsAccessTokenExpiration": ACCESS_TOKEN_SECONDS,
            },
        },
        "oidcRPMetaDataExportedVars": {"public": exported, "machine": exported},
    }


def ini(directory):
    """lemonldap-ng.ini: the File configuration backend and caches in DATA_DIRECTORY, logs on
    standard error (the FastCGI server's output file)."""
    return f"""[all]
logLevel = notice
logger = Lemonldap::NG::Common::Logger::Std
userLogger = Lemonldap::NG::Common::Logger::Std
checkTime = 1

[configuration]
type = File
dirName = {directory}/conf
prettyPrint = 1
localStorage = Cache::FileCache
localStorageOptions = {{ 'namespace' => 'lemonldap-ng-config', 'default_expires_in' => 600, \\
    'directory_umask' => '007', 'cache_root' => '{directory}/cache', 'cache_depth' => 3, }}

[portal]
staticPrefix = /static
templateDir = {PORTAL_TEMPLATES}
languages = en

[handler]
status = 0
"""


# What nginx's fastcgi_params holds, written here so that nothing in /etc/nginx is used.
FASTCGI_PARAMS = """
    fastcgi_param QUERY_STRING $query_string;
    fastcgi_param REQUEST_METHOD $request_method;
    fastcgi_param CONTENT_TYPE $content_type;
    fastcgi_param CONTENT_LENGTH $content_length;
    fastcgi_param SCRIPT_NAME $fastcgi_script_name;
    fastcgi_param REQUEST_URI $request_uri;
    fastcgi_param DOCUMENT_URI $document_uri;
    fastcgi_param DOCUMENT_ROOT $document_root;
    fastcgi_param SERVER_PROTOCOL $server_protocol;
    fastcgi_param REQUEST_SCHEME $scheme;
    fastcgi_param GATEWAY_INTERFACE CGI/1.1;
    fastcgi_param SERVER_SOFTWARE nginx/$nginx_version;
    fastcgi_param REMOTE_ADDR $remote_addr;
    fastcgi_param REMOTE_PORT $remote_port;
    fastcgi_param SERVER_ADDR $server_addr;
    fastcgi_param SERVER_PORT $server_port;
    fastcgi_param SERVER_NAME $server_name;
"""


def nginx_conf(directory, port, user, marker):
    """nginx's whole configuration: the portal's site (as the package's portal-nginx.conf has it)
    on 127.0.0.1:PORT, with every file nginx writes in DATA_DIRECTORY, and /.webauth-launch
    answering this launch's marker (so that another server that holds the port is not taken for
    this one)."""
    user_line = f"user {user[0]} {user[1]};" if user else ""
    return f"""{user_line}
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log notice;
events {{ worker_connections 64; }}
http {{
  types {{
    text/html html;
    text/css css;
    application/javascript js;
    application/json json map;
    image/png png;
    image/jpeg jpg jpeg;
    image/gif gif;
    image/svg+xml svg;
    image/x-icon ico;
    font/woff woff;
    font/woff2 woff2;
    font/ttf ttf;
    application/vnd.ms-fontobject eot;
  }}
  default_type application/octet-stream;
  access_log {directory}/nginx-access.log;
  client_body_temp_path {directory}/nginx-tmp/body;
  proxy_temp_path {directory}/nginx-tmp/proxy;
  fastcgi_temp_path {directory}/nginx-tmp/fastcgi;
  uwsgi_temp_path {directory}/nginx-tmp/uwsgi;
  scgi_temp_path {directory}/nginx-tmp/scgi;
  upstream llng_portal_upstream {{ server unix:{directory}/llng-fastcgi.sock; }}
  server {{
    listen 127.0.0.1:{port};
    server_name 127.0.0.1;
    root {PORTAL_HTDOCS}/;
    if ($uri !~ ^/((static|javascript|favicon|\\.webauth-launch).*|.*\\.psgi)) {{
      rewrite ^/(.*)$ /index.psgi/$1 break;
    }}
    location ~ ^(?<sc>/.*\\.psgi)(?:$|/) {{
{FASTCGI_PARAMS}
      fastcgi_pass llng_portal_upstream;
      fastcgi_param HTTP_HOST $http_host;
      fastcgi_param LLTYPE psgi;
      fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
      fastcgi_split_path_info ^(.*\\.psgi)(/.*)$;
      fastcgi_param PATH_INFO $fastcgi_path_info;
    }}
    location = /.webauth-launch {{ default_type text/plain; return 200 "{marker}"; }}
    index index.psgi;
    location / {{ try_files $uri $uri/ =404; }}
    location /static/ {{ alias {PORTAL_HTDOCS}/static/; }}
    location /javascript/ {{ alias {JAVASCRIPT}/; }}
  }}
}}
"""


def service_user():
    """The (user, group) the portal and nginx's worker run as when this script is root, else None."""
    if os.geteuid() != 0:
        return None
    pwd.getpwnam(SERVICE_USER[0])
    grp.getgrnam(SERVICE_USER[1])
    return SERVICE_USER


def prepare(directory, port, redirect_port, user, marker):
    for name in ("conf", "cache", "sessions/lock", "psessions/lock", "notifications", "nginx-tmp"):
        os.makedirs(os.path.join(directory, name), exist_ok=True)
    private_key, public_key = make_key(directory)
    with open(os.path.join(directory, "conf", "lmConf-1.json"), "w", encoding="utf-8") as file:
        json.dump(configuration(directory, port, redirect_port, private_key, public_key), file, indent=1)
    with open(os.path.join(directory, "lemonldap-ng.ini"), "w", encoding="utf-8") as file:
        file.write(ini(directory))
    with open(os.path.join(directory, "nginx.conf"), "w", encoding="utf-8") as file:
        file.write(nginx_conf(directory, port, user, marker))
    if user:
        # The portal writes sessions and (on registration) new configurations here.
        uid, gid = pwd.getpwnam(user[0]).pw_uid, grp.getgrnam(user[1]).gr_gid
        for root, directories, files in os.walk(directory):
            os.chown(root, uid, gid)
            for name in directories + files:
                os.chown(os.path.join(root, name), uid, gid)


def start(directory, user):
    """The FastCGI server (one worker, in the foreground) and nginx, each writing to its own
    file in DATA_DIRECTORY."""
    environment = dict(os.environ)
    environment["LLNG_DEFAULTCONFFILE"] = os.path.join(directory, "lemonldap-ng.ini")
    environment["LLNG_DEFAULTLOGGER"] = "Lemonldap::NG::Common::Logger::Std"
    # Variables the FastCGI server would take as its options.
    for name in ("ENGINE", "NPROC", "PID", "SOCKET", "LISTEN", "USER", "GROUP", "CUSTOM_FUNCTIONS_FILE"):
        environment.pop(name, None)
    fastcgi = [
        FASTCGI_SERVER, "--foreground", "--proc", "1",
        "--pid", os.path.join(directory, "llng-fastcgi.pid"),
        "--socket", os.path.join(directory, "llng-fastcgi.sock"),
    ]
    if user:
        fastcgi += ["--user", user[0], "--group", user[1]]
    with open(os.path.join(directory, "llng.log"), "ab") as log:
        portal = subprocess.Popen(fastcgi, env=environment, stdout=log, stderr=subprocess.STDOUT, cwd=directory)
    with open(os.path.join(directory, "nginx.out"), "ab") as log:
        nginx = subprocess.Popen(
            [NGINX, "-p", directory, "-e", os.path.join(directory, "nginx-error.log"),
             "-c", os.path.join(directory, "nginx.conf")],
            stdout=log, stderr=subprocess.STDOUT, cwd=directory)
    return portal, nginx


def wait_until_ready(port, children, marker, timeout=60):
    """Waits until this launch's nginx answers its marker and the portal its discovery document,
    a child exits, or time runs out."""
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    ours = False
    while time.monotonic() < deadline:
        for name, child in children.items():
            if child.poll() is not None:
                raise SystemExit(f"{name} exited with status {child.returncode} while starting")
        try:
            if not ours:
                with opener.open(base + "/.webauth-launch", timeout=5) as response:
                    ours = response.read().decode() == marker
            if ours:
                with opener.open(base + "/.well-known/openid-configuration", timeout=5) as response:
                    if response.status == 200:
                        return json.load(response)
        except (urllib.error.URLError, OSError, ValueError):
            pass
        # Real time is the point: the portal says nothing when it is ready, so it is asked again.
        time.sleep(0.2)
    raise SystemExit(f"the portal did not answer on {base} within {timeout} s")


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    directory, port, redirect_port = os.path.abspath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    for program in (FASTCGI_SERVER, NGINX, shutil.which("openssl")):
        if not program or not os.access(program, os.X_OK):
            raise SystemExit(f"missing: {program or 'openssl'}")
    user = service_user()
    marker = secrets.token_hex(16)
    prepare(directory, port, redirect_port, user, marker)
    portal, nginx = start(directory, user)
    children = {"llng-fastcgi-server": portal, "nginx": nginx}

    def stop(*_):
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        for child in children.values():
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        metadata = wait_until_ready(port, children, marker)
    except SystemExit:
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        raise
    fixture = {
        "issuer": metadata["issuer"],
        "port": port,
        "publicClientID": PUBLIC_CLIENT_ID,
        "machineClientID": MACHINE_CLIENT_ID,
        "machineClientSecret": MACHINE_CLIENT_SECRET,
        "redirectURI": f"http://127.0.0.1:{redirect_port}/callback",
        "username": USERNAME,
        "password": PASSWORD,
        "accessTokenSeconds": ACCESS_TOKEN_SECONDS,
    }
    written = os.path.join(directory, "fixture.json.part")
    with open(written, "w", encoding="utf-8") as file:
        json.dump(fixture, file)
    os.replace(written, os.path.join(directory, "fixture.json"))
    print("LemonLDAP::NG is ready on", metadata["issuer"], flush=True)
    while True:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited with status {child.returncode}", flush=True)
                stop()
        # Real time is the point: the launcher looks at its children as a supervisor does.
        time.sleep(0.5)


if __name__ == "__main__":
    main()
