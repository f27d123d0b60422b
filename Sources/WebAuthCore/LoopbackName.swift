// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one answer to "does this host name the loopback interface", for URL hosts and `Host`
/// fields alike.
///
/// Loopback, by name:
///
/// | Host | Loopback? | As |
/// |---|---|---|
/// | `localhost`, `LOCALHOST` | yes | ``localhost`` |
/// | `127.0.0.1`, `127.1.2.3` (any of `127.0.0.0/8`, dotted decimal) | yes | ``ipv4(_:)`` |
/// | `::1`, `[::1]` | yes | ``ipv6`` |
/// | `[127.0.0.1]`, `[localhost]` (brackets are for IPv6 only) | no | |
/// | `127.0.0.1.example` (a name under someone's domain) | no | |
/// | `0x7f.1`, `2130706433`, `127.1`, `127.0.0.01` (forms resolvers read differently) | no | |
/// | `::ffff:127.0.0.1` (IPv4-mapped), `0:0:0:0:0:0:0:1` (uncompressed) | no | |
/// | `localhost.` and other names | no | |
///
/// Only the canonical spellings count: a form that one parser reads as loopback and another
/// does not (leading zeros, hexadecimal, shortened or mapped addresses) is refused, so a
/// check made here cannot be undone by the program that later connects.
package enum LoopbackName: Sendable, Hashable {
    /// `localhost`, in any case.
    case localhost
    /// An address of `127.0.0.0/8` in dotted decimal, as written.
    case ipv4(String)
    /// `::1`.
    case ipv6

    /// What loopback `host` names (a URL's host, with or without brackets around an IPv6
    /// address), or `nil` when it is not loopback by the rules above.
    package init?(host: String) {
        if host == "::1" || host == "[::1]" {
            self = .ipv6
        } else if host.lowercased() == "localhost" {
            self = .localhost
        } else if Self.isIPv4Loopback(host) {
            self = .ipv4(host)
        } else {
            return nil
        }
    }

    /// Whether `host` names the loopback interface.
    package static func isLoopback(_ host: String) -> Bool { LoopbackName(host: host) != nil }

    /// Four decimal octets, each 0…255 without leading zeros, the first `127`.
    private static func isIPv4Loopback(_ text: String) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            guard octet.count == 1 || octet.first != "0" else { return false }
            return Int(octet).map { $0 <= 255 } ?? false
        }
    }
}
