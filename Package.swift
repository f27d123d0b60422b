// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "webauth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebAuth", targets: ["WebAuth"]),
        .executable(name: "webauth", targets: ["webauth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The session engine: types, seams and the flow state machine. No SwiftNIO, no processes.
        .target(
            name: "WebAuthCore",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // Browsers the session can present in: the system's default browser and "no display".
        .target(
            name: "WebAuthSystemBrowser",
            dependencies: ["WebAuthCore", .product(name: "Logging", package: "swift-log")]
        ),
        // The RFC 8252 loopback HTTP callback receiver, on SwiftNIO.
        .target(
            name: "WebAuthLoopback",
            dependencies: [
                "WebAuthCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The umbrella users import: re-exports the above and wires the standard environment.
        .target(
            name: "WebAuth",
            dependencies: ["WebAuthCore", "WebAuthSystemBrowser", "WebAuthLoopback"]
        ),
        // The command-line tool's commands, as a library so tests can drive them.
        .target(
            name: "WebAuthCLI",
            dependencies: [
                "WebAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "webauth", dependencies: ["WebAuthCLI"]),
        .executableTarget(
            name: "webauth-benchmarks",
            dependencies: ["WebAuth", "WebAuthTestSupport"],
            path: "Benchmarks/webauth-benchmarks"
        ),
        // Shared helpers for this package's tests and benchmarks (a local authorization page, a
        // headless-Chromium launcher script). Not a product.
        .target(
            name: "WebAuthTestSupport",
            dependencies: [
                "WebAuthCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/WebAuthTestSupport"
        ),
        .testTarget(name: "WebAuthCoreTests", dependencies: ["WebAuthCore"]),
        .testTarget(name: "WebAuthSystemBrowserTests", dependencies: ["WebAuthSystemBrowser", "WebAuthCore"]),
        .testTarget(
            name: "WebAuthLoopbackTests",
            dependencies: [
                "WebAuthLoopback",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "WebAuthTests", dependencies: ["WebAuth", "WebAuthTestSupport"]),
        .testTarget(name: "WebAuthCLITests", dependencies: ["WebAuthCLI", "WebAuthTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
