#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""Django's command-line utility for the webauth test provider (see README.md)."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webauth_fixture.settings")
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise SystemExit(
            "Django is not installed for this python3; run: "
            "python3 -m pip install django-oauth-toolkit==3.4.1"
        ) from exc
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
