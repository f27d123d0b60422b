# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""URLs: DOT's endpoints under /o/ (so the issuer is http://127.0.0.1:PORT/o), the sign-in page at
/accounts/login/, and the discovery documents of views.py in front of DOT's own."""

from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from oauth2_provider import urls as oauth2_urls

from .views import FixtureOpenIDConfigurationView, FixtureServerMetadataView


oauth2_patterns = oauth2_urls.base_urlpatterns + oauth2_urls.oidc_urlpatterns + oauth2_urls.metadata_urlpatterns

urlpatterns = [
    # Before DOT's patterns, which serve the same paths without the added endpoints.
    re_path(r"^o/\.well-known/openid-configuration/?$", FixtureOpenIDConfigurationView.as_view()),
    path("o/.well-known/oauth-authorization-server", FixtureServerMetadataView.as_view()),
    # RFC 8414 §3.1: the metadata of issuer http://host/o lives at /.well-known/oauth-authorization-server/o.
    path(".well-known/oauth-authorization-server/o", FixtureServerMetadataView.as_view()),
    path("o/", include((oauth2_patterns, "oauth2_provider"), namespace="oauth2_provider")),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(template_name="registration/login.html"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]
