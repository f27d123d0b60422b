#!/usr/bin/env python3
# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0
"""Calls a Kubernetes API server the way a program using the official Python client does: the
kubeconfig's ``users[].user.exec`` plugin (webauth exec-credential) is the only source of the
credential. Prints the server's gitVersion and the number of pods in "default", then exits 0; on
any failure prints the error on one line to stderr and exits 1.

    python3 client.py --kubeconfig FILE
"""

import argparse
import sys

from kubernetes import client, config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig", required=True)
    arguments = parser.parse_args()
    try:
        config.load_kube_config(config_file=arguments.kubeconfig)
        version = client.VersionApi().get_code()
        pods = client.CoreV1Api().list_namespaced_pod("default")
    except Exception as error:  # report whatever the client raised, on one line
        print("%s: %s" % (type(error).__name__, str(error).replace("\n", " ")), file=sys.stderr)
        sys.exit(1)
    print(version.git_version)
    print(len(pods.items))


if __name__ == "__main__":
    main()
