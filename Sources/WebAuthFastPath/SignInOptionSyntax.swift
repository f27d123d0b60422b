#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The sign-in options (`webauth login`'s) that `git-credential` and `exec-credential` carry on
/// their command lines — `git-credential setup` writes them into git's helper line, a kubeconfig
/// lists them in `args` — as the fast path reads them.
///
/// A cached token does not depend on them: the full program uses them only to sign in, and a
/// stored profile's own configuration wins. But the full program checks them before it reads
/// anything, and refuses a command line whose options are wrong. So the fast path skips them only
/// when they are sure to pass those checks: each option once (`--scope` repeatable), a flag
/// without a value, a value that is not empty and does not start with `-`, `--issuer` and
/// `--redirect-uri` passing the one check both programs make (``isIssuer(_:)``,
/// ``isRedirectURI(_:)``), `--browser`, `--par` and `--timeout`
/// among the values it takes, and no combination it refuses. `--client-secret`, which the
/// helpers refuse, is not known here at all. Any doubt is `nil`: the full program decides.
///
/// ```swift
/// SignInOptionSyntax.accepts(["--issuer": ["https://id.example.com"], "--client-id": ["cli"]])  // true
/// SignInOptionSyntax.accepts(["--issuer": ["https://id.example.com"]])  // false: no client ID
/// ```
package enum SignInOptionSyntax {
    /// What an option takes.
    package enum Arity: Sendable, Hashable {
        /// No value: `--device`.
        case flag
        /// One value, once: `--issuer URL`.
        case value
        /// One value, as often as wanted: `--scope SCOPE`.
        case repeatable
    }

    /// Every sign-in option the fast path knows, by name.
    package static let options: [String: Arity] = [
        "--issuer": .value, "--preset": .value, "--config": .value, "--client-id": .value, "--scope": .repeatable,
        "--redirect-uri": .value, "--tenant": .value, "--browser": .value, "--ephemeral": .flag, "--device": .flag,
        "--no-browser": .flag, "--timeout": .value, "--par": .value, "--dpop": .flag,
    ]

    /// The `--browser` values the full program takes besides a path (anything with a `/`), in
    /// lower case.
    static let browserNames: Set<String> = [
        "automatic", "auto", "system", "default", "none", "terminal", "chromium", "chrome", "firefox",
    ]

    /// Whether `value` is an `--issuer`: an absolute URL with a host, written only with the
    /// characters RFC 3986 allows (``isURIText(_:)``). The one check of the option: the full
    /// program's parser calls it too, so the two cannot disagree.
    package static func isIssuer(_ value: String) -> Bool {
        guard isURIText(value), let host = URL(string: value)?.host else { return false }
        return !host.isEmpty
    }

    /// Whether `value` is a `--redirect-uri`: an absolute URI, written only with the characters
    /// RFC 3986 allows (``isURIText(_:)``). The full program's parser calls it too.
    package static func isRedirectURI(_ value: String) -> Bool {
        isURIText(value) && URL(string: value)?.scheme != nil
    }

    /// Whether every character of `value` is one RFC 3986 allows in a URI — unreserved,
    /// reserved, or `%` and two hexadecimal digits — so that no URL parser has a space, a `|`,
    /// a quote or a control character to accept, encode or refuse in its own way.
    package static func isURIText(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty else { return false }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            guard uriBytes.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986's unreserved and reserved characters.
    private static let uriBytes = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Whether `given` — each option's values in order, an empty list for a flag — passes the
    /// full program's checks for sure.
    package static func accepts(_ given: [String: [String]]) -> Bool {
        for (name, values) in given {
            guard let arity = options[name] else { return false }
            switch arity {
            case .flag: guard values.isEmpty else { return false }
            case .value: guard values.count == 1 else { return false }
            case .repeatable: guard !values.isEmpty else { return false }
            }
            guard values.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") }) else { return false }
        }
        func value(_ name: String) -> String? { given[name]?.first }
        if let issuer = value("--issuer"), !isIssuer(issuer) { return false }
        if let redirect = value("--redirect-uri"), !isRedirectURI(redirect) { return false }
        if let browser = value("--browser"), !browserNames.contains(browser.lowercased()), !browser.contains("/") {
            return false
        }
        if let par = value("--par"), !["auto", "always", "never"].contains(par) { return false }
        if let timeout = value("--timeout") {
            guard let seconds = FastPathCommand.seconds(timeout), seconds > 0 else { return false }
        }
        let sources = ["--issuer", "--preset", "--config"].filter { given[$0] != nil }
        guard sources.count <= 1 else { return false }
        if sources.count == 1, given["--client-id"] == nil, given["--config"] == nil { return false }
        if given["--device"] != nil,
            given["--no-browser"] != nil || given["--browser"] != nil || given["--ephemeral"] != nil
        {
            return false
        }
        if given["--no-browser"] != nil, given["--browser"] != nil { return false }
        return true
    }
}
