# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""Discovery documents that also name the endpoints DOT serves but does not list.

DOT 3.4.1's OpenID Connect discovery document has no `revocation_endpoint`, and neither discovery
document has a `device_authorization_endpoint`, although both endpoints are served (under /o/).
Providers in the wild list them, and the clients under test look for them there, so these views
add them — nothing else changes.
"""

import json

from django.http import JsonResponse
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views import ConnectDiscoveryInfoView, OAuthServerMetadataView


def _with_fields(response, fields):
    """A copy of the JSON `response` with `fields` added where absent, and the same headers."""
    if response.status_code != 200:
        return response
    data = json.loads(response.content)
    for key, value in fields.items():
        data.setdefault(key, value)
    extended = JsonResponse(data)
    for header, value in response.items():
        if header.lower() not in ("content-type", "content-length"):
            extended[header] = value
    return extended


class FixtureOpenIDConfigurationView(ConnectDiscoveryInfoView):
    """/o/.well-known/openid-configuration, plus revocation, introspection and device endpoints."""

    def get(self, request, *args, **kwargs):
        methods = oauth2_settings.OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED
        grant_types = ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]
        return _with_fields(
            super().get(request, *args, **kwargs),
            {
                "revocation_endpoint": self._get_endpoint_url(request, "revoke-token", required=True),
                "revocation_endpoint_auth_methods_supported": methods,
                "introspection_endpoint": self._get_endpoint_url(request, "introspect", required=True),
                "device_authorization_endpoint": self._get_endpoint_url(
                    request, "device-authorization", required=True
                ),
                "grant_types_supported": grant_types,
            },
        )


class FixtureServerMetadataView(OAuthServerMetadataView):
    """RFC 8414 metadata, plus the device authorization and userinfo endpoints."""

    def get(self, request, *args, **kwargs):
        return _with_fields(
            super().get(request, *args, **kwargs),
            {
                "device_authorization_endpoint": self._get_endpoint_url(
                    request, "device-authorization", required=True
                ),
                "userinfo_endpoint": self._get_endpoint_url(request, "user-info", required=True),
            },
        )
