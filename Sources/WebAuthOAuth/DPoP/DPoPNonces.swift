// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthPlatform

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin: the authorization
/// server's and each resource server's are separate.
final class DPoPNonces: Sendable {
    private let nonces = Locked<[String: String]>([:])

    /// The nonce the server at `url`'s origin gave last, if any.
    func nonce(for url: URL) -> String? {
        nonces.withLock { $0[Self.origin(of: url)] }
    }

    /// Keeps the `DPoP-Nonce` of `response` (from `url`'s server), if it has one; returns
    /// whether it is a new one.
    @discardableResult
    func record(_ response: HTTPTransportResponse, from url: URL) -> Bool {
        guard let nonce = response.headerFields[values: .dpopNonce].first, Self.isNonce(nonce) else { return false }
        return nonces.withLock { table in
            let origin = Self.origin(of: url)
            defer { table[origin] = nonce }
            return table[origin] != nonce
        }
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR` (`%x21 / %x23-5B / %x5D-7E`), and not absurdly long.
    static func isNonce(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 1024
            && value.unicodeScalars.allSatisfy {
                $0.value == 0x21 || (0x23...0x5B).contains($0.value) || (0x5D...0x7E).contains($0.value)
            }
    }

    private static func origin(of url: URL) -> String {
        let target = DPoPProof.targetURI(of: url)
        guard let schemeEnd = target.range(of: "://") else { return target }
        let rest = target[schemeEnd.upperBound...]
        return target[..<schemeEnd.upperBound] + (rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? "")
    }
}
