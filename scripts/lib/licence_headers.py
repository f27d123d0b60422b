# Copyright 2026 the webauth authors
# SPDX-License-Identifier: Apache-2.0

"""Every source file of the package starts with its licence, in two lines:

    // Copyright 2026 the webauth authors
    // SPDX-License-Identifier: Apache-2.0

(with `#` for shell and Python), after a `#!` line or a `// swift-tools-version` line where the
file must start with one, and inside `// snippet.hide` for a snippet, whose leading comment DocC
would show. Run by scripts/format.sh: `check` lists the files without it, `add` adds it.
"""

import os
import subprocess
import sys

COPYRIGHT = "Copyright 2026 the webauth authors"
SPDX = "SPDX-License-Identifier: Apache-2.0"


def source_files():
    """The files git tracks (and new ones it would), that are source code of the package."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        check=True, capture_output=True, text=True).stdout.split("\n")
    for path in listed:
        if not path or not os.path.isfile(path):
            continue
        name = os.path.basename(path)
        top = path.split("/")[0]
        if path.endswith((".swift", ".c", ".h")) and (
                top in ("Sources", "Tests", "Benchmarks", "Fuzz", "Snippets", "Examples") or name == "Package.swift"):
            yield path, "//"
        elif path.endswith(".py") and top in ("Tests", "scripts"):
            yield path, "#"
        elif top in ("scripts", ".ci", "contrib") and "." not in name:
            with open(path, encoding="utf-8", errors="replace") as file:
                if file.readline().startswith("#!") and "sh" in open(path, errors="replace").readline():
                    yield path, "#"


def header(comment, path):
    lines = [f"{comment} {COPYRIGHT}", f"{comment} {SPDX}"]
    if path.startswith("Snippets/"):
        lines = ["// snippet.hide"] + lines + ["// snippet.show"]
    return lines


def is_script(lines, comment):
    return comment == "#" and bool(lines) and lines[0].startswith("#!")


def has_header(lines, comment):
    # A script's header closes its leading comment, which its `--help` prints from the top.
    return f"{comment} {SPDX}" in lines[: 60 if is_script(lines, comment) else 6]


def with_header(text, comment, path):
    lines = text.split("\n")
    keep = 0
    if is_script(lines, comment):
        keep = 1
        while keep < len(lines) and lines[keep].startswith("#"):
            keep += 1
        return "\n".join(lines[:keep] + ["#"] * (keep > 1) + header(comment, path) + lines[keep:])
    if lines and (lines[0].startswith("#!") or lines[0].startswith("// swift-tools-version")):
        keep = 1
    rest = lines[keep:]
    added = header(comment, path)
    if rest and rest[0].strip():
        added = added + [""]
    return "\n".join(lines[:keep] + added + rest)


def main(mode):
    missing = []
    for path, comment in source_files():
        with open(path, encoding="utf-8") as file:
            text = file.read()
        if has_header(text.split("\n"), comment):
            continue
        if mode == "add":
            with open(path, "w", encoding="utf-8") as file:
                file.write(with_header(text, comment, path))
        else:
            missing.append(path)
    for path in missing:
        print(f"{path}: has no licence header ({SPDX}); scripts/format.sh adds it")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "check"))
