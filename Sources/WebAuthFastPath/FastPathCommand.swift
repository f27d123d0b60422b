// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthCredentialHelpers
import WebAuthTokenFiles

/// The command lines the fast path answers alone, recognised before any argument parser runs:
/// the everyday calls of `webauth token`, `webauth git-credential … get` and
/// `webauth exec-credential`, with only the options a cached read needs. Everything else —
/// another command or option, `--help`, an option given twice, a value the full parser might
/// read differently or refuse — is `nil`, and the full program decides.
///
/// Options are written `--name VALUE` or `--name=VALUE`; a value must not start with `-`. The
/// helpers' sign-in options are skipped when ``SignInOptionSyntax`` is sure the full program
/// takes them.
///
/// ```swift
/// FastPathCommand(arguments: ["token", "--profile", "work"])  // .token(profile: "work", …)
/// FastPathCommand(arguments: ["token", "--json"])              // nil: the full program prints JSON
/// ```
package enum FastPathCommand: Sendable, Hashable {
    /// `webauth token [--profile NAME] [--min-validity SECONDS] [--store automatic|file|keyring]`.
    case token(profile: String, minimumValidity: Double, store: String)
    /// `webauth git-credential [--profile NAME] [--profile-for HOST[=NAME]]… [--username NAME] [--store …]
    /// [sign-in options] get`.
    case gitCredentialGet(
        profile: String, username: String?, store: String, profileFor: [GitHostBinding.ProfileFor] = [])
    /// `webauth exec-credential [--profile NAME] [--token-type id|access] [--min-validity SECONDS] [--store …]
    /// [--cluster-server URL]… [sign-in options]`.
    case execCredential(
        profile: String, idToken: Bool, minimumValidity: Double, store: String, clusterServers: [String] = [])

    /// The profile when `--profile` is not given.
    package static let defaultProfile = "default"
    /// `--min-validity` when not given, and git's: 60 seconds.
    package static let defaultMinimumValidity: Double = 60

    /// Recognises `arguments` (the command line without the program's name); `nil` for anything
    /// the full program must handle.
    package init?(arguments: [String]) {
        guard let command = arguments.first else { return nil }
        // Arrays, not sets or dictionaries of strings: see ``GivenOptions``.
        let allowed: [String]
        switch command {
        case "token": allowed = ["--profile", "--min-validity", "--store"]
        case "exec-credential":
            allowed = ["--profile", "--token-type", "--min-validity", "--store", "--cluster-server"]
        case "git-credential": allowed = ["--profile", "--username", "--store", "--profile-for"]
        default: return nil
        }
        // The helpers' own options that may be given more than once.
        let repeatable = ["--profile-for", "--cluster-server"]
        // The helpers also carry `login`'s options, for when they must sign in.
        let takesSignInOptions = command != "token"
        var options = GivenOptions()
        var signInOptions = GivenOptions()
        var positional: [String] = []
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                positional.append(argument)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let arity: SignInOptionSyntax.Arity
            if allowed.contains(name) {
                guard options[name] == nil || repeatable.contains(name) else { return nil }
                arity = .value
            } else if takesSignInOptions, let known = SignInOptionSyntax.arity(of: name) {
                arity = known
            } else {
                return nil
            }
            var value: String?
            if parts.count == 2 {
                value = String(parts[1])
            } else if arity != .flag {
                guard let next = rest.popFirst() else { return nil }
                value = next
            }
            if allowed.contains(name) {
                guard let value, !value.hasPrefix("-") else { return nil }
                options.append(value, to: name)
            } else if arity == .flag {
                // A flag given a value, or given twice: the full parser's to judge.
                guard value == nil, signInOptions[name] == nil else { return nil }
                signInOptions.append(nil, to: name)
            } else if let value {
                signInOptions.append(value, to: name)
            }
        }
        // No sign-in option is always accepted: not asked, so that a plain `token` pays nothing.
        guard signInOptions.isEmpty || SignInOptionSyntax.accepts(signInOptions) else { return nil }

        let profile = options["--profile"]?.last ?? Self.defaultProfile
        let store = options["--store"]?.last ?? "automatic"
        guard ProfileNameRule.isValid(profile), ["automatic", "file", "keyring"].contains(store) else { return nil }
        switch command {
        case "git-credential":
            guard positional == ["get"] else { return nil }
            let username = options["--username"]?.last
            if let username, username.isEmpty || username.contains(where: \.isNewline) || username.utf8.contains(0) {
                return nil
            }
            var profileFor: [GitHostBinding.ProfileFor] = []
            for argument in options["--profile-for"] ?? [] {
                guard let named = GitHostBinding.ProfileFor(argument: argument),
                    named.profile.map(ProfileNameRule.isValid) ?? true
                else { return nil }
                profileFor.append(named)
            }
            self = .gitCredentialGet(profile: profile, username: username, store: store, profileFor: profileFor)
        default:
            guard positional.isEmpty, let validity = Self.seconds(options["--min-validity"]?.last) else { return nil }
            let clusterServers = options["--cluster-server"] ?? []
            guard clusterServers.allSatisfy({ ClusterServerBinding.normalized($0) != nil }) else { return nil }
            if command == "token" {
                self = .token(profile: profile, minimumValidity: validity, store: store)
            } else {
                switch options["--token-type"]?.last ?? "id" {
                case "id":
                    self = .execCredential(
                        profile: profile, idToken: true, minimumValidity: validity, store: store,
                        clusterServers: clusterServers)
                case "access":
                    self = .execCredential(
                        profile: profile, idToken: false, minimumValidity: validity, store: store,
                        clusterServers: clusterServers)
                default: return nil
                }
            }
        }
    }

    /// A `--min-validity` as ``SecondsRule/seconds(_:)`` reads it; the default when not given.
    static func seconds(_ text: String?) -> Double? {
        guard let text else { return defaultMinimumValidity }
        return SecondsRule.seconds(text)
    }

    /// The profile the command reads.
    package var profile: String {
        switch self {
        case .token(let profile, _, _), .gitCredentialGet(let profile, _, _, _),
            .execCredential(let profile, _, _, _, _):
            profile
        }
    }

    /// The `--store` the command names.
    package var store: String {
        switch self {
        case .token(_, _, let store), .gitCredentialGet(_, _, let store, _), .execCredential(_, _, _, let store, _):
            store
        }
    }
}

/// Options as a command line gives them: each name once, in the order first given, with its
/// values in order (none for a flag).
///
/// A small array rather than a `[String: [String]]`, as the fast path's other lookups by name
/// are: the first `Set` or `Dictionary` of strings a program makes has the Swift runtime look
/// up `String`'s `Hashable` conformance, a walk over every conformance record in the binary
/// that touches pages across it (see the Benchmarks article, "A token at the floor").
/// `scripts/check-static-fast-path` fails if the fast path asks the runtime for a conformance.
///
/// ```swift
/// var given: GivenOptions = ["--issuer": ["https://id.example.com"]]
/// given.append(nil, to: "--device")
/// given["--device"]  // []
/// ```
package struct GivenOptions: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// One option and its values.
    package struct Option: Sendable, Equatable {
        /// The option's name, with its dashes: `--issuer`.
        package var name: String
        /// Its values in the order given; empty for a flag.
        package var values: [String]
    }

    /// The options, each once, in the order first given.
    package private(set) var options: [Option] = []

    /// No options.
    package init() {}

    /// The options of a literal, each name once.
    package init(dictionaryLiteral elements: (String, [String])...) {
        for (name, values) in elements {
            precondition(self[name] == nil, "\(name) given twice in a literal")
            options.append(Option(name: name, values: values))
        }
    }

    /// Whether no option is given.
    package var isEmpty: Bool { options.isEmpty }

    /// The values of `name` in the order given (empty for a flag); `nil` when not given.
    package subscript(name: String) -> [String]? {
        options.first { $0.name == name }?.values
    }

    /// Records `name` with `value` after its earlier values; `nil` records the option (a flag)
    /// with no value.
    package mutating func append(_ value: String?, to name: String) {
        if let index = options.firstIndex(where: { $0.name == name }) {
            if let value { options[index].values.append(value) }
        } else {
            options.append(Option(name: name, values: value.map { [$0] } ?? []))
        }
    }
}
