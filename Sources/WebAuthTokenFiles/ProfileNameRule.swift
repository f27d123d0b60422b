// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The rule for profile names: 1–64 characters from `A-Z a-z 0-9 . _ -`, not starting with `.`
/// or `-`, without `..` — always a safe file name and a safe `secret-tool` attribute value.
/// `ProfileName` in the token store checks names with it and explains a refusal.
package enum ProfileNameRule {
    /// The longest name accepted.
    package static let maximumLength = 64

    /// Whether `name` is a valid profile name.
    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...maximumLength).contains(bytes.count), bytes.first != UInt8(ascii: "."),
            bytes.first != UInt8(ascii: "-"),
            !zip(bytes, bytes.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") })
        else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
