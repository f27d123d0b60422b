# Shared by scripts/install, scripts/package and scripts/package-test (sourced, not run): the
# version, the commit, the release build, and installing the programs, manual page and shell
# completions under a prefix. Expects to run from the package's root.

# Where release builds go (ignored by git, apart from the debug build in .build).
release_scratch=".build-release"

release_say() { echo "${release_program:-scripts}: $*" >&2; }

# The version, from its one place: WebAuthVersion.current in Sources/WebAuthCore/WebAuthVersion.swift.
release_version() {
    local version
    version=$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/WebAuthCore/WebAuthVersion.swift)
    if [[ ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
        release_say "cannot read the version from Sources/WebAuthCore/WebAuthVersion.swift"
        return 1
    fi
    echo "$version"
}

# The version of CHANGELOG.md's top released entry ("## [X.Y.Z] - DATE"; "Unreleased" skipped).
changelog_version() {
    sed -n '/^## \[[0-9][0-9.]*\] - [0-9-]*$/{s/^## \[\([0-9.]*\)\].*/\1/p;q;}' CHANGELOG.md
}

# Fails unless CHANGELOG.md's top released entry is the version the package carries.
check_changelog() {
    local version changelog
    version=$(release_version) || return 1
    changelog=$(changelog_version)
    if [[ $changelog != "$version" ]]; then
        release_say "CHANGELOG.md's top entry is '${changelog:-none}', but the package carries $version" \
            "(Sources/WebAuthCore/WebAuthVersion.swift): add a '## [$version] - YYYY-MM-DD' entry"
        return 1
    fi
}

# The commit being built, such as 288b0bf1c2d3, with -dirty when tracked files have changes;
# nothing outside a git work tree.
release_commit() {
    local commit
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || return 0
    if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
        commit+="-dirty"
    fi
    echo "$commit"
}

# The date the release is from, as seconds since 1970: SOURCE_DATE_EPOCH when set, else the
# commit's date, else now. The manual page and the packages carry it, so a rebuild of the same
# commit gives the same files.
release_epoch() {
    if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then
        echo "$SOURCE_DATE_EPOCH"
    else
        git log -1 --format=%ct 2>/dev/null || date +%s
    fi
}

# Installs Debian packages ("$@"), as root or through `sudo -n`, retrying once.
release_apt_install() {
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
    if ! command -v apt-get >/dev/null 2>&1; then
        release_say "no apt-get here; install by hand: $*"
        return 1
    fi
    release_say "installing Debian packages: $*"
    local attempt
    for attempt in 1 2; do
        if "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null &&
            "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -qq --no-install-recommends "$@" </dev/null >/dev/null; then
            return 0
        fi
        [[ $attempt -eq 2 ]] || { release_say "apt-get failed; retrying in 15 s"; sleep 15; }
    done
    return 1
}

# Installs each Debian package named in "$@" as PACKAGE:FILE when FILE (a command name, or an
# absolute path pattern) is missing.
release_require() {
    local missing=() entry file
    for entry in "$@"; do
        file="${entry#*:}"
        if [[ $file == /* ]]; then
            compgen -G "$file" >/dev/null && continue
        else
            command -v "$file" >/dev/null 2>&1 && continue
        fi
        missing+=("${entry%%:*}")
    done
    [[ ${#missing[@]} -eq 0 ]] || release_apt_install "${missing[@]}"
}

# Builds the three programs in release mode with the Swift runtime inside them
# (--static-swift-stdlib; `webauth`, the fast path, is a static executable: see Package.swift),
# naming the commit for `webauth --version`, and sets release_bin to the directory they are in.
# FoundationNetworking's static archive links libcurl: Debian's libcurl4-openssl-dev provides the
# library to link with. `webauth` is linked afresh each time, with lld's report of what it took
# from each archive, for scripts/check-static-fast-path, which must pass.
release_build() {
    release_require libcurl4-openssl-dev:'/usr/lib/*/libcurl.so'
    local commit product
    commit=$(release_commit)
    release_say "building webauth $(release_version) (commit ${commit:-unknown}) in release mode"
    local build=(swift build -c release --static-swift-stdlib --scratch-path "$release_scratch")
    release_bin=$(WEBAUTH_BUILD_COMMIT="$commit" "${build[@]}" --show-bin-path)
    local why_extract="$release_scratch/webauth-why-extract.tsv" link_log="$release_scratch/webauth-link.log"
    for product in webauth-full webauth webauth-scheme-handler webauth-demo; do
        if [[ $product == webauth ]]; then
            rm -f "$release_bin/webauth" "$why_extract"
            WEBAUTH_BUILD_COMMIT="$commit" "${build[@]}" --product webauth \
                -Xlinker "--why-extract=$PWD/$why_extract" 2>&1 | tee "$link_log"
            [[ ${PIPESTATUS[0]} -eq 0 ]] || return 1
        else
            WEBAUTH_BUILD_COMMIT="$commit" "${build[@]}" --product "$product"
        fi
    done
    scripts/check-static-fast-path "$release_bin/webauth" --why-extract "$why_extract" --link-log "$link_log"
    # What signs people in carries no provider: the embedded one is webauth-demo's alone.
    if nm "$release_bin/webauth-full" | grep -q 23WebAuthEmbeddedProvider; then
        release_say "webauth-full links the embedded provider (WebAuthEmbeddedProvider); only webauth-demo may"
        return 1
    fi
}

# Builds swift-argument-parser's generate-manual tool (what `swift package plugin
# generate-manual` runs, without the plugin's build of every product) and sets release_manual_tool.
release_build_manual_tool() {
    local checkout="$release_scratch/checkouts/swift-argument-parser"
    if [[ ! -f $checkout/Package.swift ]]; then
        release_say "no swift-argument-parser checkout in $release_scratch (build first)"
        return 1
    fi
    local build=(swift build -c release --package-path "$checkout" --scratch-path "$release_scratch/tools")
    "${build[@]}" --product generate-manual
    release_manual_tool="$("${build[@]}" --show-bin-path)/generate-manual"
}

# Installs the programs built by release_build under the prefix "$1": bin/webauth,
# bin/webauth-full, bin/webauth-scheme-handler, bin/webauth-demo (what `webauth demo` runs); their
# manual pages in share/man/man1 (webauth.1, generated; webauth-full.1 and webauth-demo.1, links to
# it; webauth-scheme-handler.1, from packaging/man); and the completions
# for bash, zsh and fish where each shell looks below a prefix. The manual page and the
# completions describe the command people type, `webauth` (which runs webauth-full).
release_install_prefix() {
    local prefix="$1" program
    install -d -m 0755 "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
        "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
    for program in webauth webauth-full webauth-scheme-handler webauth-demo; do
        install -m 0755 "$release_bin/$program" "$prefix/bin/$program"
    done
    local full="$release_bin/webauth-full"
    local date
    date=$(date -u -d "@$(release_epoch)" +%Y-%m-%d)
    local pages
    pages=$(mktemp -d)
    "$release_manual_tool" "$full" --date "$date" --section 1 --authors "the webauth authors" \
        --output-directory "$pages"
    if [[ ! -s $pages/webauth.1 ]]; then
        release_say "generate-manual wrote no webauth.1 (it wrote: $(ls "$pages"))"
        rm -rf "$pages"
        return 1
    fi
    install -m 0644 "$pages/webauth.1" "$prefix/share/man/man1/webauth.1"
    rm -rf "$pages"
    ln -sfn webauth.1 "$prefix/share/man/man1/webauth-full.1"
    ln -sfn webauth.1 "$prefix/share/man/man1/webauth-demo.1"
    install -m 0644 packaging/man/webauth-scheme-handler.1 "$prefix/share/man/man1/webauth-scheme-handler.1"
    "$full" --generate-completion-script bash >"$prefix/share/bash-completion/completions/webauth"
    "$full" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_webauth"
    "$full" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/webauth.fish"
    chmod 0644 "$prefix/share/bash-completion/completions/webauth" "$prefix/share/zsh/site-functions/_webauth" \
        "$prefix/share/fish/vendor_completions.d/webauth.fish"
}
