// swift-tools-version: 6.0
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// A program that uses webauth's protocol layer alone, as a service that signs in as itself
// would: it depends on the WebAuthOAuth product and nothing else. Its build shows what that
// product brings (no SwiftNIO, no browsers, no listener); the tests run it against the embedded
// provider. Built by scripts/test into .build/protocol-consumer.
import PackageDescription

let package = Package(
    name: "protocol-consumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "webauth", path: "../../..")],
    targets: [
        .executableTarget(
            name: "protocol-consumer",
            dependencies: [.product(name: "WebAuthOAuth", package: "webauth")]
        )
    ]
)

// Imports state their reach and each file imports the modules whose members it uses, as in the
// package itself.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
