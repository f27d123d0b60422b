// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The first reader of a stored entry for the fast path: a small strict JSON reader for the
/// form the token store writes (``TokenEntryFormat``), which answers only when it is sure that
/// ``CachedEntry``'s `JSONDecoder` reading would give the same entry, and otherwise leaves the
/// bytes to it (`nil`).
///
/// It exists for the cost of the first `JSONDecoder` use in a process: the runtime's generic
/// type and protocol-conformance lookups for every `Decodable` shape took more than half of a
/// cached token's instructions. This reader is plain code over bytes.
///
/// It answers `nil` — "ask `JSONDecoder`" — for anything outside what it fully understands: a
/// key of ``CachedEntry``'s reader that is not taken (a proof-of-possession key, the short
/// configuration form) or not known, a key given twice, a date not in the form
/// `2026-11-26T12:00:00Z`, a number other than plain digits for the version, nesting deeper
/// than 32, invalid UTF-8, a lone surrogate escape, or any JSON it does not accept. So the
/// entries it reads are a subset of what the `JSONDecoder` reading accepts, with the same
/// result; `FuzzCachedEntryReader` checks that against the token store's `JSONDecoder` reading.
///
/// ```swift
/// let entry = bytes.withUnsafeBytes { CachedEntryReader.entry($0) }  // nil: the full program reads it
/// ```
package enum CachedEntryReader {
    /// The entry in `bytes`, or `nil` when `JSONDecoder` must decide.
    package static func entry(_ bytes: UnsafeRawBufferPointer) -> CachedEntry? {
        var reader = Reader(bytes: bytes.bindMemory(to: UInt8.self))
        guard let entry = reader.entry(), reader.atEnd(),
            TokenCharacters.areAllowed(
                accessToken: entry.tokens.accessToken, tokenType: entry.tokens.tokenType,
                idToken: entry.tokens.idToken)
        else { return nil }
        return entry
    }

    /// A cursor over the bytes, a strict JSON reader: each method consumes what it reads and
    /// answers `nil` (or `false`) for anything it does not accept, after which the reader is not
    /// used again. The agent protocol's answer reader uses it too.
    package struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Where the next byte is.
        package var index = 0

        /// The deepest nesting of arrays and objects read.
        package static let maximumDepth = 32

        /// A reader at the start of `bytes`.
        package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        // MARK: The entry's levels

        /// The entry: version 1, with tokens, a client ID and a save date.
        package mutating func entry() -> CachedEntry? {
            var version: Int?
            var tokens: CachedEntry.Tokens?
            var clientID = false
            var savedAt = false
            var configuration: (name: String?, tokenEndpointHost: String?)?
            let read = object { reader, key in
                switch key {
                case "version":
                    version = reader.integer()
                    return version != nil
                case "tokens":
                    tokens = reader.tokens(depth: 1)
                    return tokens != nil
                case "issuer", "tokenEndpoint":
                    return reader.optionalString() != nil
                case "clientID":
                    clientID = reader.string() != nil
                    return clientID
                case "savedAt":
                    savedAt = reader.date() != nil
                    return savedAt
                case "configuration":
                    if reader.null() { return true }
                    configuration = reader.configuration(depth: 1)
                    return configuration != nil
                case "registration":
                    return reader.skipValue(depth: 1)
                case "exchangedTokens":
                    if reader.null() { return true }
                    return reader.array(depth: 1) { reader, depth in reader.exchange(depth: depth) }
                default:
                    return false
                }
            }
            guard read, version == CachedEntry.version, let tokens, clientID, savedAt else { return nil }
            return CachedEntry(
                tokens: tokens, configurationName: configuration?.name,
                tokenEndpointHost: configuration?.tokenEndpointHost)
        }

        /// A token set (`TokenSet`), without a proof-of-possession key.
        package mutating func tokens(depth: Int) -> CachedEntry.Tokens? {
            var accessToken: String?
            var tokenType: String?
            var refreshToken: String??
            var idToken: String??
            var idTokenExpiresAt: Date??
            var expiresAt: Date??
            var scopes = false
            var receivedAt = false
            let read = object { reader, key in
                switch key {
                case "accessToken":
                    accessToken = reader.string()
                    return accessToken != nil
                case "tokenType":
                    tokenType = reader.string()
                    return tokenType != nil
                case "refreshToken":
                    refreshToken = reader.optionalString()
                    return refreshToken != nil
                case "idToken":
                    idToken = reader.optionalString()
                    return idToken != nil
                case "idTokenClaims":
                    if reader.null() {
                        idTokenExpiresAt = .some(nil)
                        return true
                    }
                    guard let claimsExpiry = reader.claimsExpiry(depth: depth + 1) else { return false }
                    idTokenExpiresAt = .some(claimsExpiry)
                    return true
                case "expiresAt":
                    expiresAt = reader.optionalDate()
                    return expiresAt != nil
                case "scopes":
                    scopes = reader.strings(depth: depth + 1) != nil
                    return scopes
                case "receivedAt":
                    receivedAt = reader.date() != nil
                    return receivedAt
                default:
                    return false
                }
            }
            guard read, let accessToken, let tokenType, scopes, receivedAt else { return nil }
            return CachedEntry.Tokens(
                accessToken: accessToken, tokenType: tokenType, hasRefreshToken: (refreshToken ?? nil) != nil,
                idToken: idToken ?? nil, idTokenExpiresAt: idTokenExpiresAt ?? nil, expiresAt: expiresAt ?? nil)
        }

        /// The ID token's claims (`IDTokenClaims`): their expiry.
        package mutating func claimsExpiry(depth: Int) -> Date? {
            var issuer = false
            var subject = false
            var audience = false
            var expiresAt: Date?
            var issuedAt = false
            let read = object { reader, key in
                switch key {
                case "issuer":
                    issuer = reader.string() != nil
                    return issuer
                case "subject":
                    subject = reader.string() != nil
                    return subject
                case "audience":
                    audience = reader.strings(depth: depth + 1) != nil
                    return audience
                case "expiresAt":
                    expiresAt = reader.date()
                    return expiresAt != nil
                case "issuedAt":
                    issuedAt = reader.date() != nil
                    return issuedAt
                case "nonce", "authorizedParty", "email", "name", "preferredUsername":
                    return reader.optionalString() != nil
                case "authenticatedAt":
                    return reader.optionalDate() != nil
                case "emailVerified":
                    return reader.null() || reader.bool() != nil
                case "tenantID":
                    return reader.skipValue(depth: depth + 1)
                default:
                    return false
                }
            }
            guard read, issuer, subject, audience, issuedAt, let expiresAt else { return nil }
            return expiresAt
        }

        /// A client configuration in its full form, without DPoP: its name and token endpoint.
        package mutating func configuration(depth: Int) -> (name: String?, tokenEndpointHost: String?)? {
            var name: String??
            var tokenEndpoint: PlainURL??
            var clientID = false
            var scopes = false
            var redirectURI = false
            var responseType = false
            var algorithms = false
            let read = object { reader, key in
                switch key {
                case "issuer", "authorizationEndpoint", "revocationEndpoint", "userInfoEndpoint",
                    "deviceAuthorizationEndpoint", "jwksURI", "pushedAuthorizationRequestEndpoint":
                    return reader.optionalURL() != nil
                case "tokenEndpoint":
                    tokenEndpoint = reader.optionalURL()
                    return tokenEndpoint != nil
                case "clientID":
                    clientID = reader.string() != nil
                    return clientID
                case "name":
                    name = reader.optionalString()
                    return name != nil
                case "clientSecret", "clientAuthentication", "usePushedAuthorization", "clientKeyFile",
                    "clientAssertionAudience":
                    return reader.optionalString() != nil
                case "scopes":
                    scopes = reader.strings(depth: depth + 1) != nil
                    return scopes
                case "redirectURI":
                    redirectURI = reader.url() != nil
                    return redirectURI
                case "responseType":
                    responseType = reader.string() != nil
                    return responseType
                case "idTokenSigningAlgorithms":
                    algorithms = reader.strings(depth: depth + 1) != nil
                    return algorithms
                case "additionalAuthorizationParameters":
                    return reader.null() || reader.stringDictionary(depth: depth + 1)
                case "allowedTenants", "grant", "promptsConsentForOfflineAccess":
                    return reader.skipValue(depth: depth + 1)
                default:
                    return false
                }
            }
            guard read, clientID, scopes, redirectURI, responseType, algorithms else { return nil }
            return (name ?? nil, (tokenEndpoint ?? nil)?.host)
        }

        /// One of `exchangedTokens` (`StoredExchange`).
        package mutating func exchange(depth: Int) -> Bool {
            var scopes = false
            var tokens = false
            var issuedTokenType = false
            let read = object { reader, key in
                switch key {
                case "audience", "resource":
                    return reader.optionalString() != nil
                case "scopes":
                    scopes = reader.strings(depth: depth + 1) != nil
                    return scopes
                case "tokens":
                    tokens = reader.tokens(depth: depth + 1) != nil
                    return tokens
                case "issuedTokenType":
                    issuedTokenType = reader.string() != nil
                    return issuedTokenType
                default:
                    return false
                }
            }
            return read && scopes && tokens && issuedTokenType
        }

        // MARK: JSON

        /// Whether only whitespace is left.
        package mutating func atEnd() -> Bool {
            skipWhitespace()
            return index == bytes.count
        }

        /// Consumes JSON whitespace: spaces, tabs, line feeds and carriage returns.
        package mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
        }

        /// Consumes `byte` (after whitespace) if it is next.
        package mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Consumes `literal` (after whitespace) if it is next.
        package mutating func take(literal: StaticString) -> Bool {
            skipWhitespace()
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// Consumes `null` if it is next.
        package mutating func null() -> Bool { take(literal: "null") }

        /// An object, each member handed to `member` with its key (which must read the value);
        /// `false` for a key given twice, or when `member` answers `false`.
        package mutating func object(_ member: (inout Reader, String) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            var seen: [String] = []
            repeat {
                guard let key = string(), !seen.contains(key), take(UInt8(ascii: ":")), member(&self, key) else {
                    return false
                }
                seen.append(key)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        /// An array, each element read by `element` at `depth + 1`.
        package mutating func array(depth: Int, _ element: (inout Reader, Int) -> Bool) -> Bool {
            guard depth < Self.maximumDepth, take(UInt8(ascii: "[")) else { return false }
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard element(&self, depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        }

        /// An array of strings.
        package mutating func strings(depth: Int) -> [String]? {
            var values: [String] = []
            let read = array(depth: depth) { reader, _ in
                guard let value = reader.string() else { return false }
                values.append(value)
                return true
            }
            return read ? values : nil
        }

        /// An object whose values are strings, each key once.
        package mutating func stringDictionary(depth: Int) -> Bool {
            guard depth < Self.maximumDepth else { return false }
            return object { reader, _ in reader.string() != nil }
        }

        /// A value read with `read`, or `null`: `.some(nil)` for `null`, `nil` when neither is
        /// next.
        package mutating func optional<Value>(_ read: (inout Self) -> Value?) -> Value?? {
            if null() { return .some(nil) }
            return read(&self).map { .some($0) }
        }

        /// A string or `null`.
        package mutating func optionalString() -> String?? { optional { $0.string() } }

        /// A date in the store's form, or `null`.
        package mutating func optionalDate() -> Date?? { optional { $0.date() } }

        /// A date in the form `2026-11-26T12:00:00Z` (``TokenEntryFormat/utcDate(_:)``).
        package mutating func date() -> Date? { string().flatMap(TokenEntryFormat.utcDate) }

        /// A URL in ``PlainURL``'s form, which `JSONDecoder` reads as the same `URL`; any other
        /// string is `JSONDecoder`'s to judge.
        package mutating func url() -> PlainURL? { string().flatMap { PlainURL($0) } }

        /// A URL or `null`.
        package mutating func optionalURL() -> PlainURL?? { optional { $0.url() } }

        /// `true` or `false`.
        package mutating func bool() -> Bool? {
            if take(literal: "true") { return true }
            if take(literal: "false") { return false }
            return nil
        }

        /// A non-negative integer written as plain digits, without a leading zero, at most 9 of them.
        package mutating func integer() -> Int? {
            skipWhitespace()
            let start = index
            var value = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                guard index - start < 9 else { return nil }  // a tenth digit: JSONDecoder's to judge
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let count = index - start
            guard count >= 1, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            // Followed by a fraction or an exponent: JSONDecoder's to judge.
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                return nil
            }
            return value
        }

        /// A JSON string: its escapes resolved, its bytes valid UTF-8.
        ///
        /// The bytes between escapes and each escape's character, UTF-8 encoded, are gathered
        /// and checked once: a character's encoding starts with a byte that no sequence cut off
        /// before it can take, and ends complete, so the whole is well-formed exactly when each
        /// part is.
        package mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var raw: [UInt8] = []
            var rawStart = index
            var plain = true
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    let tail = UnsafeBufferPointer(rebasing: bytes[rawStart..<index])
                    index += 1
                    if plain { return Self.utf8(tail) }
                    raw.append(contentsOf: tail)
                    return raw.withUnsafeBufferPointer(Self.utf8)
                case UInt8(ascii: "\\"):
                    plain = false
                    raw.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[rawStart..<index]))
                    index += 1
                    guard let scalar = escape() else { return nil }
                    UTF8.encode(scalar) { raw.append($0) }
                    rawStart = index
                case 0..<0x20:
                    return nil
                default:
                    index += 1
                }
            }
            return nil
        }

        /// `bytes` as a string when they are well-formed UTF-8, else `nil`: what
        /// `String(validating: bytes, as: UTF8.self)` gives. That initializer is generic and
        /// not inlined, so its first use asks the Swift runtime for type metadata; decoding
        /// (specialized here) and comparing does not. Decoding replaces each ill-formed
        /// sequence with U+FFFD, itself well-formed, so the text's bytes equal `bytes` exactly
        /// when there was none.
        package static func utf8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            var text = String(decoding: bytes, as: UTF8.self)
            let same = text.withUTF8 { decoded in
                decoded.count == bytes.count && decoded.elementsEqual(bytes)
            }
            return same ? text : nil
        }

        /// The character an escape names, after its backslash.
        package mutating func escape() -> Unicode.Scalar? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else { return nil }
                switch unit {
                case 0xD800..<0xDC00:
                    // A high surrogate, which must be followed by a low one.
                    guard take(literal: "\\u"), let low = hexUnit(), (0xDC00..<0xE000).contains(low) else {
                        return nil
                    }
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                case 0xDC00..<0xE000:
                    return nil
                default:
                    return Unicode.Scalar(unit)
                }
            default:
                return nil
            }
        }

        /// Four hexadecimal digits.
        package mutating func hexUnit() -> UInt32? {
            guard bytes.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// Any JSON value, read and dropped: `false` unless it is well formed as RFC 8259 says
        /// (numbers of at most 32 characters).
        package mutating func skipValue(depth: Int) -> Bool {
            guard depth < Self.maximumDepth else { return false }
            skipWhitespace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"): return object { reader, _ in reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["): return array(depth: depth) { reader, depth in reader.skipValue(depth: depth) }
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
            case UInt8(ascii: "n"): return null()
            default: return number()
            }
        }

        /// A number as RFC 8259 writes one, as a finite `Double` (what `JSONDecoder` reads it as:
        /// the nearest, through the same correctly rounded conversion).
        package mutating func double() -> Double? {
            skipWhitespace()
            let start = index
            guard number() else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        }

        /// A number as RFC 8259 writes one: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        package mutating func number() -> Bool {
            let start = index
            func digits(_ reader: inout Reader) -> Int {
                let from = reader.index
                while reader.index < reader.bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.index])
                {
                    reader.index += 1
                }
                return reader.index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            let integerDigits = digits(&self)
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
                return false
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { return false }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { return false }
            }
            return index - start <= 32
        }
    }
}
