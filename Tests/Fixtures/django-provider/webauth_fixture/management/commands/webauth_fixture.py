# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""`manage.py webauth_fixture`: makes the test user and the OAuth applications, and prints as JSON
everything a test needs to use them (the plain client secret included; DOT stores only its hash).

Run it on a fresh database with `--migrate`, which first creates the tables (as `manage.py migrate`
would, without starting Django twice). Running it again replaces the user's password and the
applications (their client ids and secrets change).
"""

import json
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from oauth2_provider.generators import generate_client_id, generate_client_secret
from oauth2_provider.models import get_application_model


REDIRECT_URI = "http://127.0.0.1/callback"


class Command(BaseCommand):
    help = "Creates the test user and OAuth applications and prints them as JSON."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="alice")
        parser.add_argument("--password", default=None, help="default: a new random one")
        parser.add_argument("--migrate", action="store_true", help="run `migrate` first")

    def handle(self, *args, username, password, migrate, **options):
        if migrate:
            call_command("migrate", verbosity=0, interactive=False)
        password = password or secrets.token_urlsafe(18)
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=username)
        user.first_name = "Alice"
        user.last_name = "Tester"
        user.email = f"{username}@example.com"
        user.set_password(password)
        user.save()

        Application = get_application_model()
        Application.objects.filter(name__startswith="webauth ").delete()

        def make(name, client_type, grant_type, redirect_uris):
            client_secret = generate_client_secret()
            application = Application(
                name=name,
                client_id=generate_client_id(),
                # Set before saving, which replaces it with its hash: this is the only copy.
                client_secret=client_secret,
                hash_client_secret=True,
                client_type=client_type,
                authorization_grant_type=grant_type,
                redirect_uris=redirect_uris,
                # RP-initiated logout returns to the same loopback address (any port, as for
                # redirect URIs).
                post_logout_redirect_uris=redirect_uris,
                algorithm=Application.RS256_ALGORITHM,
                skip_authorization=False,
            )
            application.save()
            return application, client_secret

        public, _ = make(
            "webauth public client",
            Application.CLIENT_PUBLIC,
            Application.GRANT_AUTHORIZATION_CODE,
            REDIRECT_URI,
        )
        confidential, confidential_secret = make(
            "webauth confidential client",
            Application.CLIENT_CONFIDENTIAL,
            Application.GRANT_AUTHORIZATION_CODE,
            REDIRECT_URI,
        )
        device, _ = make(
            "webauth device client",
            Application.CLIENT_PUBLIC,
            Application.GRANT_DEVICE_CODE,
            "",
        )
        machine, machine_secret = make(
            "webauth machine client",
            Application.CLIENT_CONFIDENTIAL,
            Application.GRANT_CLIENT_CREDENTIALS,
            "",
        )

        self.stdout.write(
            json.dumps(
                {
                    "username": username,
                    "password": password,
                    "redirect_uri": REDIRECT_URI,
                    "scopes": list(settings.OAUTH2_PROVIDER["SCOPES"]),
                    "public_client_id": public.client_id,
                    "confidential_client_id": confidential.client_id,
                    "confidential_client_secret": confidential_secret,
                    "device_client_id": device.client_id,
                    "machine_client_id": machine.client_id,
                    "machine_client_secret": machine_secret,
                }
            )
        )
