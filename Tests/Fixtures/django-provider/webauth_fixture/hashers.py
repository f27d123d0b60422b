# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""A quick password hasher for the test provider (passwords and client secrets alike)."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FixturePBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2-SHA256 with 10,000 iterations instead of Django's million: test secrets only."""

    algorithm = "pbkdf2_sha256_webauth_fixture"
    iterations = 10_000
