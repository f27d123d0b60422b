#!/usr/bin/env bash
# Formats the package's Swift code with swift-format and the repository's .swift-format, and
# keeps every source file's licence header (scripts/lib/licence_headers.py).
#
#   scripts/format.sh           rewrite files in place, adding missing licence headers
#   scripts/format.sh --check   change nothing; exit 1 and name the files if anything is
#                               unformatted, breaks a lint rule or has no licence header (CI)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
    sed -n '2,7s/^# \{0,1\}//p' "$0"
}

mode=format
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    -h | --help) usage; exit 0 ;;
    *) echo "format.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac

# The toolchain's bundled formatter (`swift format`), else a standalone swift-format.
if swift format --version >/dev/null 2>&1; then
    swift_format=(swift format)
elif command -v swift-format >/dev/null 2>&1; then
    swift_format=(swift-format)
else
    echo "format.sh: swift-format not found (needs Swift 6 or a swift-format on PATH)" >&2
    exit 2
fi

# The examples by their sources only: Examples/gtk-app is a package of its own, whose .build/
# holds other packages' checkouts.
paths=()
for path in Sources Tests Benchmarks Fuzz Snippets Package.swift Examples/webauth-example-browser \
    Examples/webauth-example-main-thread Examples/gtk-app/Sources Examples/gtk-app/Package.swift; do
    if [[ -e "$path" ]]; then paths+=("$path"); fi
done

if [[ "$mode" == format ]]; then
    python3 scripts/lib/licence_headers.py add
    "${swift_format[@]}" format --in-place --parallel --recursive --configuration .swift-format "${paths[@]}"
    exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# 1. Lint in strict mode: every finding (formatting or rule) is an error and makes the exit
#    status non-zero. Findings look like `path:line:column: error: [Rule] message`.
lint_status=0
"${swift_format[@]}" lint --strict --parallel --recursive --configuration .swift-format "${paths[@]}" \
    >"$scratch/findings" 2>&1 || lint_status=$?

# 2. Belt and braces: format a copy and compare, so "passed" also means format.sh would change
#    nothing.
mkdir "$scratch/copy"
cp -R --parents "${paths[@]}" .swift-format "$scratch/copy/"
(cd "$scratch/copy" && "${swift_format[@]}" format --in-place --parallel --recursive \
    --configuration .swift-format "${paths[@]}") >>"$scratch/findings" 2>&1 || lint_status=$?
while IFS= read -r -d '' file; do
    cmp -s "$file" "$scratch/copy/$file" || echo "$file: would be reformatted" >>"$scratch/reformat"
done < <(find "${paths[@]}" -name '*.swift' -type f -print0)

# 3. Every source file's licence header, Swift or not.
python3 scripts/lib/licence_headers.py check >>"$scratch/headers" || lint_status=$?

if [[ $lint_status -eq 0 && ! -s "$scratch/findings" && ! -s "$scratch/reformat" && ! -s "$scratch/headers" ]]; then
    echo "format check passed: ${paths[*]}"
    exit 0
fi

touch "$scratch/reformat" "$scratch/headers"
sort -t: -k1,1 -k2,2n -k3,3n "$scratch/findings" "$scratch/reformat" "$scratch/headers" >&2
files=$( (sed -nE 's/^(.+\.swift):([0-9]+:[0-9]+: | would be reformatted$).*/\1/p' \
    "$scratch/findings" "$scratch/reformat"; sed -nE 's/^(.+): has no licence header.*/\1/p' "$scratch/headers") | sort -u)
echo >&2
if [[ -n "$files" ]]; then
    mapfile -t file_list <<<"$files"
    echo "format check FAILED in ${#file_list[@]} file(s):" >&2
    printf '  %s\n' "${file_list[@]}" >&2
    echo "Run scripts/format.sh to fix the formatting; other findings need a change by hand." >&2
else
    echo "format check FAILED (swift-format exit status $lint_status)" >&2
fi
exit 1
