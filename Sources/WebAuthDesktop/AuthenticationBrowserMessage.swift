// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthCore
import WebAuthDesktopSocket

/// What a session and the person's web-authentication browser say to each other over the
/// browser's socket: one JSON object per line, one request per connection.
///
/// | Direction | Message | Meaning |
/// |---|---|---|
/// | session → browser | `{"v":1,"type":"begin","uuid":…,"url":…,"callback":…,"ephemeral":…,"headers":{…}}` | the request (first line, at once) |
/// | session → browser | `{"v":1,"type":"cancel","uuid":…}` | the session was cancelled or ended |
/// | browser → session | `{"v":1,"type":"complete","uuid":…,"url":…}` | `complete(withCallbackURL:)` |
/// | browser → session | `{"v":1,"type":"canceled","uuid":…,"code":1,"message":…}` | `cancelWithError(_:)`, with Apple's code |
///
/// `callback` is the callback's redirect URI (`com.example.app:` or `https://host/path`). A
/// line is at most ``maximumLineLength`` bytes; a longer one, a malformed one, another
/// version, another request's `uuid` or a message out of turn ends the connection with
/// ``AuthenticationBrowserError/Code/protocolViolation``. Each side answers at most once;
/// closing the connection without an answer is a cancellation (session side) or an error
/// (browser side: the session ends with the browser failed).
package enum AuthenticationBrowserMessage: Sendable, Hashable {
    case begin(AuthenticationBrowserRequest)
    case cancel(UUID)
    case complete(UUID, URL)
    case canceled(UUID, code: Int, message: String)

    /// The protocol's version.
    package static let version = 1
    /// The longest line, in bytes: 128 KiB (a URL may be 64 KiB).
    package static let maximumLineLength = 128 * 1024
    /// The longest message of a cancellation, in characters (an ellipsis included); longer ones
    /// are cut.
    package static let maximumMessageLength = 1024

    /// The request this message is about.
    package var uuid: UUID {
        switch self {
        case .begin(let request): request.uuid
        case .cancel(let uuid), .complete(let uuid, _), .canceled(let uuid, _, _): uuid
        }
    }

    private struct Wire: Codable {
        var v: Int
        var type: String
        var uuid: String
        var url: String?
        var callback: String?
        var ephemeral: Bool?
        var headers: [String: String]?
        var code: Int?
        var message: String?
    }

    /// The message as a line, `\n` included.
    package var line: [UInt8] {
        var wire = Wire(v: Self.version, type: "", uuid: uuid.uuidString)
        switch self {
        case .begin(let request):
            wire.type = "begin"
            wire.url = request.url.absoluteString
            wire.callback = request.callback.redirectURI.absoluteString
            wire.ephemeral = request.prefersEphemeralSession
            wire.headers = request.additionalHeaderFields
        case .cancel:
            wire.type = "cancel"
        case .complete(_, let url):
            wire.type = "complete"
            wire.url = url.absoluteString
        case .canceled(_, let code, let message):
            wire.type = "canceled"
            wire.code = code
            wire.message = String(message.prefix(Self.maximumMessageLength))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(wire)) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Reads one line (without its `\n`).
    ///
    /// - Throws: ``AuthenticationBrowserError/Code/protocolViolation`` saying what is wrong,
    ///   never quoting a URL's query or fragment.
    package static func parse(_ bytes: [UInt8]) throws(AuthenticationBrowserError) -> Self {
        guard bytes.count <= maximumLineLength else {
            throw .protocolViolation("a message is longer than \(maximumLineLength / 1024) KiB")
        }
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(bytes)) else {
            throw .protocolViolation("a message is not the protocol's JSON")
        }
        guard wire.v == version else {
            throw .protocolViolation("a message has version \(wire.v); this side speaks version \(version)")
        }
        guard let uuid = UUID(uuidString: wire.uuid) else {
            throw .protocolViolation("a message has no valid uuid")
        }
        switch wire.type {
        case "begin":
            guard let url = wire.url.flatMap(URL.init(string:)),
                let callbackText = wire.callback, let callbackURL = URL(string: callbackText)
            else { throw .protocolViolation("a begin message needs a url and a callback") }
            let callback: Callback
            do {
                callback = try Callback(redirectURI: callbackURL)
            } catch {
                throw .protocolViolation("the request's callback is not valid: \(error.message)")
            }
            let request = AuthenticationBrowserRequest(
                uuid: uuid, url: url, callback: callback, prefersEphemeralSession: wire.ephemeral ?? false,
                additionalHeaderFields: wire.headers ?? [:])
            try request.validate()
            return .begin(request)
        case "cancel":
            return .cancel(uuid)
        case "complete":
            guard let text = wire.url else { throw .protocolViolation("a complete message needs a url") }
            switch CallbackSocketProtocol.parseURL(Array(text.utf8)) {
            case .success(let url): return .complete(uuid, url)
            case .failure(let rejection): throw .protocolViolation("the completing URL is not usable: \(rejection)")
            }
        case "canceled":
            let message = UntrustedText(wire.message ?? "").displayed(limit: maximumMessageLength - 1)
            return .canceled(uuid, code: wire.code ?? 1, message: message)
        default:
            throw .protocolViolation("a message has an unknown type")
        }
    }
}
