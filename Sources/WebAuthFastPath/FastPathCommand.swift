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
        let allowed: Set<String>
        switch command {
        case "token": allowed = ["--profile", "--min-validity", "--store"]
        case "exec-credential":
            allowed = ["--profile", "--token-type", "--min-validity", "--store", "--cluster-server"]
        case "git-credential": allowed = ["--profile", "--username", "--store", "--profile-for"]
        default: return nil
        }
        // The helpers' own options that may be given more than once.
        let repeatable: Set<String> = ["--profile-for", "--cluster-server"]
        var repeated: [String: [String]] = [:]
        // The helpers also carry `login`'s options, for when they must sign in.
        let takesSignInOptions = command != "token"
        var options: [String: String] = [:]
        var signInOptions: [String: [String]] = [:]
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
            } else if takesSignInOptions, let known = SignInOptionSyntax.options[name] {
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
                options[name] = value
                repeated[name, default: []].append(value)
            } else if arity == .flag {
                // A flag given a value, or given twice: the full parser's to judge.
                guard value == nil, signInOptions[name] == nil else { return nil }
                signInOptions[name] = []
            } else if let value {
                signInOptions[name, default: []].append(value)
            }
        }
        guard SignInOptionSyntax.accepts(signInOptions) else { return nil }

        let profile = options["--profile"] ?? Self.defaultProfile
        let store = options["--store"] ?? "automatic"
        guard ProfileNameRule.isValid(profile), ["automatic", "file", "keyring"].contains(store) else { return nil }
        switch command {
        case "git-credential":
            guard positional == ["get"] else { return nil }
            let username = options["--username"]
            if let username, username.isEmpty || username.contains(where: \.isNewline) || username.utf8.contains(0) {
                return nil
            }
            var profileFor: [GitHostBinding.ProfileFor] = []
            for argument in repeated["--profile-for"] ?? [] {
                guard let named = GitHostBinding.ProfileFor(argument: argument),
                    named.profile.map(ProfileNameRule.isValid) ?? true
                else { return nil }
                profileFor.append(named)
            }
            self = .gitCredentialGet(profile: profile, username: username, store: store, profileFor: profileFor)
        default:
            guard positional.isEmpty, let validity = Self.seconds(options["--min-validity"]) else { return nil }
            let clusterServers = repeated["--cluster-server"] ?? []
            guard clusterServers.allSatisfy({ ClusterServerBinding.normalized($0) != nil }) else { return nil }
            if command == "token" {
                self = .token(profile: profile, minimumValidity: validity, store: store)
            } else {
                switch options["--token-type"] ?? "id" {
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
