// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Which hosts a profile's token may go to through git's credential helper: the one rule that
/// `webauth git-credential` and the cached-token fast path both apply.
///
/// A helper line such as `!webauth git-credential --profile work` is asked by git for every
/// host the configuration key covers — for `credential.helper`, every host, a malicious
/// submodule's included. So a profile answers only for a host it is bound to:
///
/// - a host `webauth git-credential setup HOST --profile NAME` recorded for the profile, or
/// - a host the helper line names with `--profile-for HOST` (answered with `--profile`) or
///   `--profile-for HOST=NAME` (answered with profile `NAME`).
///
/// Hosts are `host` or `host:port` as git sends them, compared without regard to case; the port
/// is part of the host (`git.example.com:8443` is not `git.example.com`). The protocol is
/// checked separately (https, or http to a loopback host) and git's `path` is not considered:
/// a binding is to the whole host.
///
/// ```swift
/// let binding = GitHostBinding(profile: "work", profileFor: [])
/// binding.decision(forHost: "github.com", recordedHosts: { _ in ["github.com"] })  // .answer(profile: "work")
/// binding.decision(forHost: "evil.example", recordedHosts: { _ in ["github.com"] })  // .refuse(profile: "work")
/// ```
public struct GitHostBinding: Sendable, Hashable {
    /// One `--profile-for` value: `HOST` or `HOST=NAME`.
    public struct ProfileFor: Sendable, Hashable {
        /// The host, in lower case: `host` or `host:port`.
        public var host: String
        /// The profile that answers for ``host``; `nil` for `--profile`'s.
        public var profile: String?

        /// Reads `HOST` or `HOST=NAME`; `nil` unless `HOST` is a plain host
        /// (``GitHostBinding/isPlainHost(_:)``) and `NAME`, when given, is not empty. Whether
        /// `NAME` is a valid profile name is the caller's to check.
        public init?(argument: String) {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard GitHostBinding.isPlainHost(String(parts[0])) else { return nil }
            host = parts[0].lowercased()
            if parts.count == 2 {
                guard !parts[1].isEmpty else { return nil }
                profile = String(parts[1])
            } else {
                profile = nil
            }
        }
    }

    /// What the helper does for a host.
    public enum Decision: Sendable, Hashable {
        /// Answer with `profile`'s token.
        case answer(profile: String)
        /// Answer nothing (git's "I don't know"): the host is not bound to `profile`, the
        /// profile that would answer for it.
        case refuse(profile: String)
    }

    /// The helper line's `--profile`.
    public var profile: String
    /// The helper line's `--profile-for` values.
    public var profileFor: [ProfileFor]

    /// The binding of a helper line with `--profile profile` and `profileFor`.
    public init(profile: String, profileFor: [ProfileFor]) {
        self.profile = profile
        self.profileFor = profileFor
    }

    /// The profile that would answer for `host`: the one the first `--profile-for` naming it
    /// gives, else ``profile``.
    public func profile(forHost host: String?) -> String {
        guard let host = host?.lowercased(), let named = profileFor.first(where: { $0.host == host }) else {
            return profile
        }
        return named.profile ?? profile
    }

    /// Whether the helper answers for `host`, and with which profile.
    ///
    /// - Parameters:
    ///   - host: git's `host` attribute (`host` or `host:port`); `nil` when git sent none.
    ///   - recordedHosts: The hosts recorded for a profile (by `setup`); asked only for the
    ///     profile that would answer, and only when no `--profile-for` names the host.
    public func decision(forHost host: String?, recordedHosts: (String) -> [String]) -> Decision {
        let answering = profile(forHost: host)
        guard let host = host?.lowercased(), !host.isEmpty else { return .refuse(profile: answering) }
        if profileFor.contains(where: { $0.host == host }) { return .answer(profile: answering) }
        if recordedHosts(answering).contains(where: { $0.lowercased() == host }) { return .answer(profile: answering) }
        return .refuse(profile: answering)
    }

    /// The one line a refusal is explained with: that `profile` is not set up for `host`, and
    /// the command that allows it (only when `host` is a plain host; `host` is shown as given,
    /// so a caller prints the line as untrusted text).
    public static func refusalMessage(host: String?, profile: String) -> String {
        guard let host, !host.isEmpty else {
            return "git gets no credential from webauth: git named no host"
        }
        let lowered = host.lowercased()
        guard isPlainHost(lowered) else {
            return "git gets no credential from webauth for \(host): not a host webauth can be set up for"
        }
        let profileOption = profile == "default" ? "" : " --profile \(profile)"
        return "git gets no credential from webauth for \(host): profile \"\(profile)\" is not set up for it; "
            + "to allow it, run `webauth git-credential setup \(lowered)\(profileOption)` "
            + "or add --profile-for \(lowered) to the helper line"
    }

    /// Whether `host` is a plain `host` or `host:port`: ASCII letters, digits, dots and
    /// hyphens, and a port from 1 to 65535 — nothing a URL or a git configuration key could be
    /// steered with.
    public static func isPlainHost(_ host: String) -> Bool {
        let parts = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0]
        guard !name.isEmpty, name.count <= 253, name.first != "-", name.first != ".", name.last != "-",
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }),
            !zip(name.utf8, name.utf8.dropFirst()).contains(where: {
                $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".")
            })
        else { return false }
        guard parts.count == 2 else { return true }
        let port = parts[1]
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(port), (1...65535).contains(number)
        else { return false }
        return true
    }
}
