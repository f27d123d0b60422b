// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

/// What the handler program and a waiting session say to each other over the callback socket.
///
/// The handler connects, sends the callback URL and a `\n`, and reads one line back:
///
/// | Reply | Meaning | Handler exit status |
/// |---|---|---|
/// | `accepted` | the session took the URL and is finishing | 0 |
/// | `rejected: {reason}` | not this session's callback (wrong scheme, not accepted, malformed); the session keeps waiting | 1 |
/// | `finished` | the session has already received its callback | 2 |
///
/// The URL may be at most ``maximumURLLength`` bytes; reasons never contain the URL's query or
/// fragment.
package enum CallbackSocketProtocol {
    /// The longest callback URL accepted, in bytes: 64 KiB.
    package static let maximumURLLength = 64 * 1024

    /// The session took the URL.
    package static let accepted = "accepted"
    /// The session has already received its callback.
    package static let finished = "finished"
    /// The prefix of a refusal; a reason follows.
    package static let rejectedPrefix = "rejected: "

    /// A URL as it came over the socket, checked: valid UTF-8, no spaces or control characters,
    /// parses as a URL with a scheme, and is not too long. Returns the URL or why not.
    package static func parseURL(_ bytes: [UInt8]) -> Result<URL, Rejection> {
        guard !bytes.isEmpty else { return .failure(Rejection("no URL was sent")) }
        guard bytes.count <= maximumURLLength else {
            return .failure(Rejection("the URL is longer than \(maximumURLLength / 1024) KiB"))
        }
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }), let text = String(validating: bytes, as: UTF8.self)
        else {
            return .failure(Rejection("the URL has spaces, control characters or invalid UTF-8"))
        }
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            return .failure(Rejection("that is not an absolute URL"))
        }
        return .success(url)
    }

    /// Why a URL was refused, without the URL's query or fragment.
    package struct Rejection: Error, Equatable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }
}
