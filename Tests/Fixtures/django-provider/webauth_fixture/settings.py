# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""Settings of the webauth test provider: django-oauth-toolkit as an OAuth 2.0 / OpenID Connect
provider on http://127.0.0.1:PORT, for end-to-end tests only (see ../README.md).

Everything that differs per launch comes from the environment:

WEBAUTH_FIXTURE_DATA_DIR   required; an existing private directory for the SQLite database, the
                           Django secret key and the OIDC signing key (both made on first use).
WEBAUTH_FIXTURE_PORT       required; the port the server listens on, on 127.0.0.1. The issuer is
                           http://127.0.0.1:PORT/o exactly.
WEBAUTH_FIXTURE_ISS_PARAMETER   "1" (default) adds RFC 9207 `iss` to authorization responses.
WEBAUTH_FIXTURE_DEVICE_INTERVAL the device flow's polling interval in seconds (default 1).
"""

import os
import secrets
import tempfile
from pathlib import Path


def _required(name):
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(f"{name} is not set: the webauth test provider needs it (see README.md)")
    return value


DATA_DIR = Path(_required("WEBAUTH_FIXTURE_DATA_DIR"))
if not DATA_DIR.is_dir():
    raise RuntimeError(f"WEBAUTH_FIXTURE_DATA_DIR={DATA_DIR} is not a directory")
PORT = int(_required("WEBAUTH_FIXTURE_PORT"))
ORIGIN = f"http://127.0.0.1:{PORT}"
ISSUER = f"{ORIGIN}/o"


def _private_file(name, make):
    """The text of DATA_DIR/name, written with `make()` (mode 0600) by the first process to get here.

    The server and the fixture command start at the same time; the file appears whole (a hard link
    to a finished file) or not at all, so both read the same complete key.
    """
    path = DATA_DIR / name
    if not path.exists():
        descriptor, draft = tempfile.mkstemp(dir=DATA_DIR, prefix=f".{name}.")  # mode 0600
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(make())
            try:
                os.link(draft, path)
            except FileExistsError:
                pass  # another process was first: use its file
        finally:
            os.unlink(draft)
    return path.read_text()


def _rsa_private_key_pem():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.PKCS8,
        encryption_algorithm=serialization.NoEncryption(),
    ).decode()


BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = _private_file("django-secret-key", lambda: secrets.token_urlsafe(50))
OIDC_RSA_PRIVATE_KEY = _private_file("oidc-rsa-private-key.pem", _rsa_private_key_pem)

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "oauth2_provider",
    "webauth_fixture",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "webauth_fixture.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "provider.sqlite3",
        # The server answers requests on several threads; let writers wait for each other.
        "OPTIONS": {"timeout": 30},
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
STATIC_URL = "static/"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/login/"

# Cookies named after the port, so that two providers on 127.0.0.1 (cookies ignore the port) never
# read each other's session in a browser profile they share.
SESSION_COOKIE_NAME = f"webauth_fixture_{PORT}_session"
CSRF_COOKIE_NAME = f"webauth_fixture_{PORT}_csrftoken"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": OIDC_RSA_PRIVATE_KEY,
    "OIDC_ISS_ENDPOINT": ISSUER,
    "SCOPES": {
        "openid": "OpenID Connect sign-in",
        "profile": "Your name and username",
        "email": "Your email address",
    },
    "DEFAULT_SCOPES": ["openid"],
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("WEBAUTH_FIXTURE_ACCESS_TOKEN_SECONDS", "3600")),
    "OAUTH2_VALIDATOR_CLASS": "webauth_fixture.validators.FixtureValidator",
    "OAUTH_DEVICE_VERIFICATION_URI": f"{ISSUER}/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": f"{ISSUER}/device/?user_code={{user_code}}",
    "DEVICE_FLOW_INTERVAL": int(os.environ.get("WEBAUTH_FIXTURE_DEVICE_INTERVAL", "1")),
    # RFC 9700 (OAuth 2.0 Security BCP) behaviour now rather than in DOT 4.0: S256 only, no implicit
    # or password grants, access tokens never in a query string, RFC 9207 `iss` in responses.
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": os.environ.get("WEBAUTH_FIXTURE_ISS_PARAMETER", "1") == "1",
    # OpenID Connect RP-Initiated Logout at /o/logout/ (`end_session_endpoint` in discovery). DOT's
    # defaults otherwise: a signed-in person always confirms on its page, expired ID tokens are
    # accepted as hints, and the person's tokens for every client are deleted.
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
}

# Errors and warnings on standard error (Django sends request errors nowhere visible with DEBUG off).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "oauth2_provider": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "oauthlib": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}

# Django's default PBKDF2 work factor makes every sign-in and every confidential client's token
# request take about a second on a busy CI machine; a test provider needs no such protection.
PASSWORD_HASHERS = ["webauth_fixture.hashers.FixturePBKDF2PasswordHasher"]
