// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the webauth authors. Licensed under the Apache License, Version 2.0: see
// LICENSE and NOTICE in the repository's root.
import Foundation
import PackageDescription

// A GTK 4 desktop app that signs in with Apple's API, as seed 000's SwiftUI app does: its own
// URL scheme through its .desktop entry, a single instance that receives the callback URL in
// GApplication's `open` signal, and the completion handler on the main thread. A package of its
// own so that the root package builds without GTK's headers (Debian: libgtk-4-dev).
//
// The root package is a dependency by path; its identity is its directory's name, whatever the
// checkout is called.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
let webauth = root.lastPathComponent.lowercased()

let package = Package(
    name: "webauth-example-gtk",
    products: [
        .executable(name: "webauth-example-gtk", targets: ["webauth-example-gtk"]),
        .library(name: "GLibMainQueue", targets: ["GLibMainQueue"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // GTK 4 and GLib, found with pkg-config.
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // The main dispatch queue drained by GLib's main loop: a GLib source on libdispatch's
        // wake-up handle for run loops. In C, because the handle's functions have no Swift
        // declarations.
        .target(name: "CMainQueueDrain", dependencies: ["CGtk"]),
        // The drain as Swift calls it, and what it tells webauth's sessions.
        .target(
            name: "GLibMainQueue",
            dependencies: ["CMainQueueDrain", .product(name: "WebAuthCompat", package: webauth)]
        ),
        // The window: widgets, actions and GApplication's signals, in C (GTK's casts and
        // signal macros), calling the app back through a table of functions.
        .target(name: "GtkWindowShim", dependencies: ["CGtk"]),
        // The app: seed 000's view model, a window, its scheme, its sign-in.
        .executableTarget(
            name: "webauth-example-gtk",
            dependencies: [
                "GtkWindowShim", "GLibMainQueue",
                .product(name: "WebAuth", package: webauth),
                .product(name: "WebAuthCompat", package: webauth),
                .product(name: "WebAuthOAuth", package: webauth),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // For the example's test (scripts/test-desktop-example): the embedded provider with a
        // client for the app's scheme, and the person's browser, scripted, which signs in on the
        // provider's pages and hands the callback URL to xdg-open.
        .executableTarget(
            name: "webauth-example-gtk-provider",
            dependencies: [.product(name: "WebAuthEmbeddedProvider", package: webauth)]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Imports state their reach and each file imports the modules whose members it uses, as in the
// package itself.
for target in package.targets
where target.type != .system && !["CMainQueueDrain", "GtkWindowShim"].contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
