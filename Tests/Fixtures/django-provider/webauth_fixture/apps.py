# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

from django.apps import AppConfig


class WebauthFixtureConfig(AppConfig):
    name = "webauth_fixture"
    verbose_name = "webauth test provider"
