// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the webauth authors. Licensed under the Apache License, Version 2.0: see
// LICENSE and NOTICE beside this file.
import PackageDescription

// The commit the programs are built from, for `webauth --version`. scripts/install and
// scripts/package set WEBAUTH_BUILD_COMMIT (hexadecimal digits, "-dirty" when the work tree had
// changes); a plain `swift build` leaves it out and the program says "unknown commit". Anything
// else is ignored, so the value is always a safe C string literal.
let buildCommit: String? = Context.environment["WEBAUTH_BUILD_COMMIT"].flatMap { value in
    let hexadecimal = value.hasSuffix("-dirty") ? value.dropLast(6) : Substring(value)
    let isCommit = (7...64).contains(hexadecimal.count) && hexadecimal.allSatisfy { $0.isASCII && $0.isHexDigit }
    return isCommit ? value.lowercased() : nil
}

let package = Package(
    name: "webauth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebAuth", targets: ["WebAuth"]),
        .library(name: "WebAuthCompat", targets: ["WebAuthCompat"]),
        .library(name: "WebAuthOAuth", targets: ["WebAuthOAuth"]),
        .library(name: "WebAuthSignIn", targets: ["WebAuthSignIn"]),
        .library(name: "WebAuthURLSession", targets: ["WebAuthURLSession"]),
        .library(name: "WebAuthEmbeddedProvider", targets: ["WebAuthEmbeddedProvider"]),
        .library(name: "WebAuthTesting", targets: ["WebAuthTesting"]),
        .library(name: "WebAuthTokenStore", targets: ["WebAuthTokenStore"]),
        .executable(name: "webauth", targets: ["webauth"]),
        .executable(name: "webauth-full", targets: ["webauth-full"]),
        .executable(name: "webauth-demo", targets: ["webauth-demo"]),
        .executable(name: "webauth-scheme-handler", targets: ["webauth-scheme-handler"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // `swift package generate-documentation` (scripts/docs): the DocC catalogs and the
        // snippets under Snippets/. A plugin only: nothing of it is linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The session engine: types, seams and the flow state machine. No SwiftNIO, no processes.
        .target(
            name: "WebAuthCore",
            dependencies: ["WebAuthPlatform", .product(name: "Logging", package: "swift-log")]
        ),
        // The system calls, behind small typed functions: descriptors, paths, locks, pipes, Unix
        // and netlink sockets, signals, terminals, process identity. No Foundation (the fast path
        // links it); the only place that imports the C library, with WebAuthProcess.
        .target(name: "WebAuthPlatform", dependencies: ["WebAuthSystemCalls"]),
        // The GNU and Linux calls Swift's Glibc module does not export (memfd_create, pipe2,
        // prctl), in C: called directly, since a static program cannot look them up (dlsym).
        .target(name: "WebAuthSystemCalls"),
        // Starting programs safely: posix_spawn, no shell, no inherited descriptors. Internal.
        .target(name: "WebAuthProcess", dependencies: ["WebAuthPlatform"]),
        // Browsers the session can present in: the system's default browser and "no display".
        .target(
            name: "WebAuthSystemBrowser",
            dependencies: [
                "WebAuthCore", "WebAuthProcess", "WebAuthPlatform", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The RFC 8252 loopback HTTP callback receiver, on SwiftNIO.
        .target(
            name: "WebAuthLoopback",
            dependencies: [
                "WebAuthCore", "WebAuthPlatform",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Browsers the session launches and steers itself: Chromium over the DevTools protocol on
        // a pipe, Firefox over WebDriver BiDi.
        .target(
            name: "WebAuthControlledBrowsers",
            dependencies: [
                "WebAuthProcess", "WebAuthPlatform",
                "WebAuthCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // What both ends of the desktop's Unix sockets share, without SwiftNIO: the private
        // socket directory, the scheme socket's wire protocol, the blocking client calls and the
        // forwarder the scheme handler runs. Every system call of the desktop code is here.
        .target(name: "WebAuthDesktopSocket", dependencies: ["WebAuthCore", "WebAuthPlatform"]),
        // Custom URL schemes on the Linux desktop: registration and the sessions' socket
        // servers, on SwiftNIO, with the one Unix-socket line server (`UnixSocketServer`: the
        // peer check, the connection cap, the line framing and the first line's deadline) that
        // the token agent runs on too.
        .target(
            name: "WebAuthDesktop",
            dependencies: [
                "WebAuthProcess", "WebAuthPlatform", "WebAuthCore", "WebAuthDesktopSocket",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The tiny program the desktop runs for a registered scheme: forwards the URL and exits.
        // It depends on the socket target alone, so that SwiftNIO is not linked into it.
        .executableTarget(name: "webauth-scheme-handler", dependencies: ["WebAuthDesktopSocket"]),
        // The umbrella users import: re-exports the above and wires the standard environment.
        .target(
            name: "WebAuth",
            dependencies: [
                "WebAuthCore", "WebAuthSystemBrowser", "WebAuthLoopback", "WebAuthControlledBrowsers",
                "WebAuthDesktop", "WebAuthDesktopSocket", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Apple's AuthenticationServices names and signatures, on Linux.
        .target(name: "WebAuthCompat", dependencies: ["WebAuth", "WebAuthPlatform"]),
        // The OAuth 2.0 / OpenID Connect protocol without the I/O stack: discovery, PKCE, the token
        // endpoint, refresh, the device flow, client credentials, token exchange, JWT client
        // authentication, DPoP, JWKS and ID tokens, registration, OAuth 1.0a signing; HTTP
        // through a transport protocol. On the core's values only: no session is run here, and
        // no browser, listener or SwiftNIO is linked.
        .target(
            name: "WebAuthOAuth",
            dependencies: [
                "WebAuthCore", "WebAuthTokenFiles", "WebAuthPlatform", "WebAuthCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA for private_key_jwt client assertions (already linked through JWTKit).
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The protocol layer's HTTP over Foundation's URLSession, for a program that wants it
        // rather than the default CurlTransport. Its own target because FoundationNetworking
        // makes every start of a program that links it load libcurl and its 30 libraries, which
        // the command-line programs, on CurlTransport, do not pay.
        .target(
            name: "WebAuthURLSession",
            dependencies: [
                "WebAuthOAuth", "WebAuthCore", "WebAuthPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Signing a person in: the protocol layer's authorization code, RP-initiated logout and
        // OAuth 1.0a flows run on a WebAuthSession with the package's browsers and receivers.
        .target(
            name: "WebAuthSignIn",
            dependencies: [
                "WebAuthOAuth", "WebAuth", "WebAuthPlatform", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Where signed-in tokens live between runs: the desktop keyring (Secret Service, through
        // secret-tool) or 0600 files in a 0700 directory, locked across processes.
        .target(
            name: "WebAuthTokenStore",
            dependencies: [
                "WebAuthOAuth", "WebAuthCore", "WebAuthProcess", "WebAuthTokenFiles", "WebAuthPlatform",
                "WebAuthAgentProtocol",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The file store's layout and entry format, on FoundationEssentials: where the files
        // are, which ones are trusted, and a strict reader of a stored entry's cached token.
        .target(name: "WebAuthTokenFiles", dependencies: ["WebAuthPlatform"]),
        // What `webauth` answers before loading anything else: a cached, fresh token for
        // `token`, `git-credential get` and `exec-credential`; otherwise it runs `webauth-full`.
        .target(
            name: "WebAuthFastPath",
            dependencies: ["WebAuthTokenFiles", "WebAuthCredentialHelpers", "WebAuthPlatform", "WebAuthAgentProtocol"]),
        // The token agent's wire protocol (versioned JSON lines, bounded), its socket's path and
        // a blocking client, on FoundationEssentials, so that the fast path speaks it too.
        .target(name: "WebAuthAgentProtocol", dependencies: ["WebAuthPlatform", "WebAuthTokenFiles"]),
        // `webauth agent`: one process that holds sign-ins in memory, refreshes them ahead of
        // expiry and serves tokens over a Unix socket, on SwiftNIO.
        .target(
            name: "WebAuthAgent",
            dependencies: [
                "WebAuthAgentProtocol", "WebAuthDesktop", "WebAuthTokenStore", "WebAuthOAuth", "WebAuthCore",
                "WebAuthProcess", "WebAuthPlatform", "WebAuthDesktopSocket", "WebAuthTokenFiles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What other programs speak to get a token from webauth: git's credential helper
        // protocol and client-go's ExecCredential. Pure codecs, whose fast-path parts use the
        // token files' JSON reader and writer and PlainURL rather than Foundation's.
        .target(name: "WebAuthCredentialHelpers", dependencies: ["WebAuthTokenFiles"]),
        // A real OAuth 2.0 / OpenID Connect provider on 127.0.0.1 and a scripted user agent that
        // signs in on its pages: what `webauth demo` runs, and what tests sign in against. It
        // does not use WebAuthOAuth, so it checks that client independently.
        .target(
            name: "WebAuthEmbeddedProvider",
            dependencies: [
                "WebAuthCore", "WebAuthPlatform", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // For testing sign-in code with no real provider or browser: re-exports the embedded
        // provider and adds a local authorization page and a redirect-following browser.
        .target(
            name: "WebAuthTesting",
            dependencies: [
                "WebAuthCore", "WebAuthEmbeddedProvider", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The commit the programs were built from (see `buildCommit` above), in C because only
        // a C definition can carry a value. A new commit recompiles this file and WebAuthCLI,
        // which imports it, and relinks webauth-full; nothing else.
        .target(
            name: "WebAuthBuildInfo",
            cSettings: buildCommit.map { [.define("WEBAUTH_BUILD_COMMIT", to: "\"\($0)\"")] } ?? []
        ),
        // libcurl's easy interface for CurlTransport, found at run time in the libcurl that
        // FoundationNetworking loads, so that no libcurl headers are needed to build. In C
        // because curl_easy_setopt is variadic, which Swift cannot call.
        .target(name: "WebAuthCurl"),
        // The command-line tool's commands, as a library so tests can drive them.
        .target(
            name: "WebAuthCLI",
            dependencies: [
                "WebAuthBuildInfo",
                "WebAuth",
                "WebAuthProcess",
                "WebAuthPlatform",
                "WebAuthOAuth",
                "WebAuthSignIn",
                "WebAuthTokenStore",
                "WebAuthCredentialHelpers",
                "WebAuthFastPath",
                "WebAuthAgent",
                "WebAuthAgentProtocol", "WebAuthCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // `webauth`: the fast path, linked as a static executable in release builds, so that it
        // starts with no dynamic loader and no shared library to map or relocate (a static
        // program starts in half the time of one linked with -static-stdlib); everything else
        // runs `webauth-full`, built beside it by `swift build`. (Not a dependency: SwiftPM would
        // link the full program's code, and its libraries, into this one.) glibc's caveats for
        // static programs (NSS, DNS, iconv, dlopen) do not apply to what it calls:
        // scripts/check-static-fast-path checks that on every release build of the packages.
        .executableTarget(
            name: "webauth", dependencies: ["WebAuthFastPath"],
            exclude: ["fast-path.order"],
            linkerSettings: [
                // FoundationEssentials' own archives, which a static link must name after it.
                // lld, shipped with the toolchain, because it finds archive members in any order.
                // The functions a cached token runs placed together at the start of the code
                // (fast-path.order, written by scripts/fast-path-symbol-order from profiles): the
                // kernel maps a whole page-cache folio at each fault, so code spread over the
                // binary costs about 2 MiB more memory. A name the binary no longer has is
                // skipped without a warning; scripts/check-static-fast-path fails when most are.
                // An executable's flags only: the libraries users depend on carry none.
                .unsafeFlags(
                    [
                        "-static-executable", "-Xlinker", "-lFoundationEssentials", "-Xlinker", "-l_FoundationCShims",
                        "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-lswiftSynchronization",
                        "-use-ld=lld", "-Xlinker",
                        "--symbol-ordering-file=\(Context.packageDirectory)/Sources/webauth/fast-path.order",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // The full program: every command, through swift-argument-parser.
        .executableTarget(name: "webauth-full", dependencies: ["WebAuthCLI"]),
        // `webauth demo`'s program, which `webauth-full` runs for it: the only program that
        // links the embedded provider, so the one that signs people in carries none of it.
        .executableTarget(name: "webauth-demo", dependencies: ["WebAuthCLI", "WebAuthEmbeddedProvider", "WebAuth"]),
        // An example browser app that handles other programs' sign-ins with Apple's names
        // (ASWebAuthenticationSessionWebBrowserSessionManager), driving headless Chromium; the
        // browser-app tests run it as a separate process. Not a product.
        .executableTarget(
            name: "webauth-example-browser", dependencies: ["WebAuth", "WebAuthCompat"],
            path: "Examples/webauth-example-browser"),
        // A command-line program that shows on which thread Apple's sessions call their
        // completion handlers (dispatchMain() or a blocked main thread); the compatibility
        // tests run it as a separate process. Not a product.
        .executableTarget(
            name: "webauth-example-main-thread", dependencies: ["WebAuth", "WebAuthCompat"],
            path: "Examples/webauth-example-main-thread"),
        .executableTarget(
            name: "webauth-benchmarks",
            dependencies: [
                "WebAuth", "WebAuthTestSupport", "WebAuthOAuth", "WebAuthSignIn", "WebAuthTokenStore",
                "WebAuthTokenFiles",
                "WebAuthProcess", "WebAuthPlatform", "WebAuthLoopback", "WebAuthEmbeddedProvider",
                // Only for the head-parsing figure: the listener's parser against SwiftNIO's.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/webauth-benchmarks"
        ),
        // Fuzz targets (libFuzzer with `scripts/fuzz`; in an ordinary build they replay the
        // files named on their command line): one per kind of outside input.
        .target(name: "FuzzHarness", path: "Fuzz/FuzzHarness"),
        .executableTarget(
            name: "FuzzLoopbackRequest",
            dependencies: [
                "FuzzHarness", "WebAuthLoopback", "WebAuthCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Fuzz/FuzzLoopbackRequest"),
        .executableTarget(
            name: "FuzzAuthorizationResponse", dependencies: ["FuzzHarness", "WebAuthOAuth", "WebAuthCore"],
            path: "Fuzz/FuzzAuthorizationResponse"),
        .executableTarget(
            name: "FuzzEndpointResponse",
            dependencies: ["FuzzHarness", "WebAuthOAuth", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Fuzz/FuzzEndpointResponse"),
        .executableTarget(
            name: "FuzzIDToken",
            dependencies: [
                "FuzzHarness", "WebAuthOAuth", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"), "WebAuthCore",
            ],
            path: "Fuzz/FuzzIDToken"),
        .executableTarget(
            name: "FuzzDevTools", dependencies: ["FuzzHarness", "WebAuthControlledBrowsers"], path: "Fuzz/FuzzDevTools"),
        .executableTarget(
            name: "FuzzBiDiMessage", dependencies: ["FuzzHarness", "WebAuthControlledBrowsers"],
            path: "Fuzz/FuzzBiDiMessage"),
        .executableTarget(
            name: "FuzzSchemeSocket",
            dependencies: [
                "FuzzHarness", "WebAuthDesktop", "WebAuthDesktopSocket", "WebAuthCore",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/FuzzSchemeSocket"),
        .executableTarget(
            name: "FuzzBrowserSocket", dependencies: ["FuzzHarness", "WebAuthDesktop", "WebAuthCore"],
            path: "Fuzz/FuzzBrowserSocket"),
        .executableTarget(
            name: "FuzzTokenEntry",
            dependencies: ["FuzzHarness", "WebAuthTokenStore", "WebAuthTokenFiles", "WebAuthOAuth"],
            path: "Fuzz/FuzzTokenEntry"),
        .executableTarget(
            name: "FuzzCachedEntryReader",
            dependencies: ["FuzzHarness", "WebAuthTokenFiles", "WebAuthTokenStore", "WebAuthAgentProtocol"],
            path: "Fuzz/FuzzCachedEntryReader"),
        .executableTarget(
            name: "FuzzSecretServiceReply", dependencies: ["FuzzHarness", "WebAuthFastPath", "WebAuthTokenFiles"],
            path: "Fuzz/FuzzSecretServiceReply"),
        .executableTarget(
            name: "FuzzProfileIndex", dependencies: ["FuzzHarness", "WebAuthTokenStore"], path: "Fuzz/FuzzProfileIndex"),
        // Shared helpers for this package's tests and benchmarks (an offline headless-Chromium
        // launcher script); re-exports WebAuthTesting. Not a product.
        .target(
            name: "WebAuthTestSupport",
            dependencies: [
                "WebAuthCore",
                "WebAuthPlatform",
                "WebAuthProcess",
                "WebAuthTesting",
                "WebAuthControlledBrowsers",
                "WebAuthOAuth", "WebAuthSignIn", "WebAuth", "WebAuthEmbeddedProvider",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Tests/WebAuthTestSupport"
        ),
        .testTarget(
            name: "WebAuthCoreTests",
            dependencies: ["WebAuthPlatform", "WebAuthCore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "WebAuthPlatformTests", dependencies: ["WebAuthPlatform"]),
        .testTarget(
            name: "WebAuthSystemBrowserTests",
            dependencies: ["WebAuthPlatform", "WebAuthSystemBrowser", "WebAuthCore", "WebAuthTestSupport"]),
        .testTarget(
            name: "WebAuthLoopbackTests",
            dependencies: [
                "WebAuthLoopback", "WebAuthTestSupport", "WebAuthProcess", "WebAuthPlatform", "WebAuthCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WebAuthTests",
            dependencies: [
                "WebAuthCore", "WebAuthEmbeddedProvider", "WebAuthTesting", "WebAuth", "WebAuthTestSupport",
                "WebAuthPlatform",
            ]),
        .testTarget(
            name: "WebAuthControlledBrowsersTests",
            dependencies: [
                "WebAuthCore", "WebAuthEmbeddedProvider", "WebAuthTesting", "WebAuthProcess", "WebAuthPlatform",
                "WebAuthControlledBrowsers", "WebAuthTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WebAuthDesktopTests",
            dependencies: [
                "WebAuthCore", "WebAuthDesktopSocket", "WebAuthPlatform", "WebAuthSystemBrowser", "WebAuthTesting",
                "WebAuthDesktop", "WebAuthTestSupport", "WebAuthEmbeddedProvider",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WebAuthCompatTests",
            dependencies: [
                "WebAuthCompat", "WebAuthTestSupport", "WebAuthOAuth", "WebAuthSignIn", "WebAuth",
                "WebAuthEmbeddedProvider", "WebAuthPlatform", "WebAuthTesting",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        .testTarget(
            name: "WebAuthOAuthTests",
            dependencies: [
                "WebAuthOAuth", "WebAuthSignIn", "WebAuthURLSession", "WebAuthTestSupport", "WebAuthControlledBrowsers",
                "WebAuthProcess", "WebAuthPlatform", "WebAuth", "WebAuthCore", "WebAuthEmbeddedProvider",
                "WebAuthTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .testTarget(
            name: "WebAuthTokenStoreTests",
            dependencies: [
                "WebAuthTokenStore", "WebAuthSignIn", "WebAuthTestSupport", "WebAuthProcess", "WebAuthPlatform",
                "WebAuth", "WebAuthEmbeddedProvider", "WebAuthOAuth",
            ]
        ),
        .testTarget(
            name: "WebAuthTestingTests",
            dependencies: [
                "WebAuthTesting", "WebAuthEmbeddedProvider", "WebAuthOAuth", "WebAuthSignIn", "WebAuth",
                "WebAuthPlatform", "WebAuthCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .testTarget(
            name: "WebAuthCLITests",
            dependencies: [
                "WebAuthCLI", "WebAuthTestSupport", "WebAuthProcess", "WebAuthPlatform", "WebAuthFastPath",
                "WebAuthTokenFiles", "WebAuthSignIn", "WebAuth", "WebAuthCredentialHelpers", "WebAuthEmbeddedProvider",
                "WebAuthOAuth", "WebAuthTesting", "WebAuthTokenStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "WebAuthCredentialHelpersTests", dependencies: ["WebAuthCredentialHelpers"]),
        .testTarget(name: "WebAuthTokenFilesTests", dependencies: ["WebAuthTokenFiles", "WebAuthTokenStore"]),
        .testTarget(
            name: "WebAuthAgentTests",
            dependencies: [
                "WebAuthAgent", "WebAuthAgentProtocol", "WebAuthTestSupport", "WebAuthProcess", "WebAuthTokenStore",
                "WebAuthOAuth", "WebAuthSignIn", "WebAuthPlatform", "WebAuthTokenFiles", "WebAuthCore",
                "WebAuthDesktop",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "FuzzTests", dependencies: ["WebAuthTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target says how far each of its imports reaches (`public import` only where the
// module's types are part of its API, `package import` where they are part of the package's) and
// imports every module whose members it uses, rather than seeing them through another's.
let cTargets: Set<String> = ["WebAuthSystemCalls", "WebAuthCurl", "WebAuthBuildInfo"]
for target in package.targets where !cTargets.contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
