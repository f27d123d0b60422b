// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The command line: `webauth-example-gtk --issuer URL --client-id ID --scheme SCHEME
/// [--scope S]… [--sign-in-now] [--quit-when-signed-in] [URL…]`.
struct ExampleOptions {
    var issuer: URL
    var clientID: String
    var scheme: String
    var scopes: [String]
    var signInNow = false
    var quitWhenSignedIn = false
    /// URLs to open: what the desktop adds (`%u`) when it starts the app for its scheme.
    var urls: [String] = []

    /// The redirect URI registered for the app: `SCHEME:/callback`.
    var redirectURI: URL { URL(string: "\(scheme):/callback")! }

    /// The application's ID (GApplication's, the D-Bus name, the .desktop file's name).
    static let applicationID = "org.example.WebAuthGtk"

    static let usage = """
        usage: webauth-example-gtk --issuer URL --client-id ID --scheme SCHEME [--scope S]... \
        [--sign-in-now] [--quit-when-signed-in]
        """

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> ExampleOptions {
        var issuer: URL?
        var clientID: String?
        var scheme: String?
        var scopes: [String] = []
        var options = ExampleOptions(issuer: URL(fileURLWithPath: "/"), clientID: "", scheme: "", scopes: [])
        var remaining = arguments[...]
        func value(_ option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--issuer":
                let text = try value(argument)
                guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http" else {
                    throw UsageError("--issuer must be an http(s) URL")
                }
                issuer = url
            case "--client-id": clientID = try value(argument)
            case "--scheme": scheme = try value(argument).lowercased()
            case "--scope": scopes.append(try value(argument))
            case "--sign-in-now": options.signInNow = true
            case "--quit-when-signed-in": options.quitWhenSignedIn = true
            case "-h", "--help": throw UsageError(nil)
            default:
                guard !argument.hasPrefix("-"), argument.contains(":") else {
                    throw UsageError("unknown argument '\(argument)'")
                }
                options.urls.append(argument)
            }
        }
        guard let issuer, let clientID, let scheme else {
            throw UsageError("--issuer, --client-id and --scheme are required")
        }
        guard scheme.first?.isLetter == true,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { throw UsageError("'\(scheme)' is not a URL scheme") }
        options.issuer = issuer
        options.clientID = clientID
        options.scheme = scheme
        options.scopes = scopes.isEmpty ? ["openid", "profile"] : scopes
        return options
    }

    /// The command line the .desktop entry runs: the same provider and client.
    var desktopCommand: [String] {
        var command = [
            Self.executablePath, "--issuer", issuer.absoluteString, "--client-id", clientID, "--scheme", scheme,
        ]
        for scope in scopes { command += ["--scope", scope] }
        return command
    }

    /// This program's absolute path.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    struct UsageError: Error {
        let message: String?
        init(_ message: String?) { self.message = message }
    }
}
