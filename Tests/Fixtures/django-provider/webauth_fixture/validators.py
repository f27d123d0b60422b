# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""The fixture's OAuth2Validator: the standard OpenID Connect claims of the Django user."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class FixtureValidator(OAuth2Validator):
    """Adds profile and email claims; DOT hands each one out only with its scope (`oidc_claim_scope`)."""

    # The request-agnostic form (no `request` parameter), so discovery lists the claims too.
    def get_additional_claims(self):
        return {
            "name": lambda request: request.user.get_full_name(),
            "given_name": lambda request: request.user.first_name,
            "family_name": lambda request: request.user.last_name,
            "preferred_username": lambda request: request.user.username,
            "email": lambda request: request.user.email,
            "email_verified": lambda request: True,
        }
