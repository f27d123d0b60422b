from django.apps import AppConfig


class WebauthFixtureConfig(AppConfig):
    name = "webauth_fixture"
    verbose_name = "webauth test provider"
