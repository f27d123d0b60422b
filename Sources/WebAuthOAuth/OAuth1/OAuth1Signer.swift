// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
public import Foundation
import HTTPTypes
import WebAuthCore

/// An OAuth 1.0 signature method (RFC 5849 §3.4): how `oauth_signature` is computed.
///
/// ``hmacSHA1`` is what providers use; ``plaintext`` sends the secrets themselves and is only
/// for providers that ask for it, over TLS. RSA-SHA1 is not supported.
public struct OAuth1SignatureMethod: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case hmacSHA1, plaintext
    }
    private let kind: Kind

    /// `HMAC-SHA1` (RFC 5849 §3.4.2): an HMAC-SHA1 of the signature base string, keyed with the
    /// consumer secret and the token secret.
    public static let hmacSHA1 = OAuth1SignatureMethod(kind: .hmacSHA1)
    /// `PLAINTEXT` (RFC 5849 §3.4.4): the key itself, `consumerSecret&tokenSecret`, encoded. Only
    /// safe over TLS; the request itself is not protected.
    public static let plaintext = OAuth1SignatureMethod(kind: .plaintext)

    /// The `oauth_signature_method` value: `HMAC-SHA1` or `PLAINTEXT`.
    public var name: String {
        switch kind {
        case .hmacSHA1: "HMAC-SHA1"
        case .plaintext: "PLAINTEXT"
        }
    }

    /// The `oauth_signature_method` value.
    public var description: String { name }
}

/// Signs HTTP requests with OAuth 1.0 (RFC 5849 §3): builds the protocol parameters, the
/// signature and the `Authorization: OAuth …` header.
///
/// The signer is pure apart from its nonce and timestamp sources, which are random and the
/// clock by default and can be replaced to reproduce a known signature:
///
/// ```swift
/// let signer = OAuth1Signer(
///     consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44",
///     includesVersion: false, nonce: { "chapoH" }, timestamp: { 137131202 })
/// let token = OAuth1Credentials(token: "nnch734d00sl2jdk", tokenSecret: "pfkkdhi9sl3r4s00")
/// let request = HTTPTransportRequest(
///     method: "GET", url: URL(string: "http://photos.example.net/photos?file=vacation.jpg&size=original")!)
/// let signed = signer.sign(request, token: token)
/// // signed.headerFields[.authorization] contains
/// // oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D" (RFC 5849 §1.2)
/// ```
///
/// What is signed (RFC 5849 §3.4.1): the method, the URL without its query (scheme and host
/// lower-cased, default port dropped), the query parameters, the body's parameters when the
/// request has `Content-Type: application/x-www-form-urlencoded`, and the protocol parameters.
/// Set that content type yourself on a form body: a transport that adds it on its own would make
/// the server sign parameters this signer did not.
public struct OAuth1Signer: Sendable, CustomStringConvertible {
    /// The consumer key (client identifier), sent as `oauth_consumer_key`.
    public var consumerKey: String
    /// The consumer secret (client shared secret); half of the signing key, never sent with
    /// HMAC-SHA1.
    public var consumerSecret: String
    /// How requests are signed. Default ``OAuth1SignatureMethod/hmacSHA1``.
    public var signatureMethod: OAuth1SignatureMethod
    /// The `realm` to put in the `Authorization` header, if any. It is not signed.
    public var realm: String?
    /// Whether to send `oauth_version="1.0"`. RFC 5849 makes it optional; most libraries send
    /// it and a few old providers require it. Default `true`.
    public var includesVersion: Bool

    private let makeNonce: @Sendable () -> String
    private let makeTimestamp: @Sendable () -> Int

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - consumerKey: The consumer key.
    ///   - consumerSecret: The consumer secret.
    ///   - signatureMethod: How to sign. Default HMAC-SHA1.
    ///   - realm: A `realm` for the `Authorization` header. Default none.
    ///   - includesVersion: Whether to send `oauth_version="1.0"`. Default `true`.
    ///   - nonce: Makes each request's `oauth_nonce`. Default ``randomNonce()``.
    ///   - timestamp: Makes each request's `oauth_timestamp`, in seconds since 1970. Default
    ///     ``currentTimestamp()``.
    public init(
        consumerKey: String, consumerSecret: String, signatureMethod: OAuth1SignatureMethod = .hmacSHA1,
        realm: String? = nil, includesVersion: Bool = true,
        nonce: @escaping @Sendable () -> String = { OAuth1Signer.randomNonce() },
        timestamp: @escaping @Sendable () -> Int = { OAuth1Signer.currentTimestamp() }
    ) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.signatureMethod = signatureMethod
        self.realm = realm
        self.includesVersion = includesVersion
        self.makeNonce = nonce
        self.makeTimestamp = timestamp
    }

    /// The consumer key and signature method; never the secret.
    public var description: String {
        "OAuth1Signer(consumerKey: \(consumerKey), signatureMethod: \(signatureMethod))"
    }

    // MARK: - Signing

    /// Returns `request` with an `Authorization: OAuth …` header (replacing any it had) that
    /// signs it.
    ///
    /// - Parameters:
    ///   - request: The request, complete with its query, body and `Content-Type`.
    ///   - token: The token and its secret: temporary credentials when asking for token
    ///     credentials, token credentials when calling an API. `nil` for the temporary-credential
    ///     request, which is signed with the consumer secret alone.
    ///   - additionalProtocolParameters: More `oauth_…` parameters to send and sign, such as
    ///     `oauth_callback` or `oauth_verifier`. They cannot replace the ones the signer sets.
    public func sign(
        _ request: HTTPTransportRequest, token: OAuth1Credentials? = nil,
        additionalProtocolParameters: [String: String] = [:]
    ) -> HTTPTransportRequest {
        let parameters = protocolParameters(
            for: request, token: token, additionalProtocolParameters: additionalProtocolParameters)
        var signed = request
        signed.headerFields[.authorization] = Self.authorizationHeader(protocolParameters: parameters, realm: realm)
        return signed
    }

    /// The protocol parameters of a signed request, `oauth_signature` included, with a fresh
    /// nonce and timestamp: what ``sign(_:token:additionalProtocolParameters:)`` puts in the
    /// header.
    public func protocolParameters(
        for request: HTTPTransportRequest, token: OAuth1Credentials? = nil,
        additionalProtocolParameters: [String: String] = [:]
    ) -> [String: String] {
        var parameters = additionalProtocolParameters
        parameters["oauth_signature"] = nil
        parameters["oauth_consumer_key"] = consumerKey
        parameters["oauth_signature_method"] = signatureMethod.name
        parameters["oauth_timestamp"] = String(makeTimestamp())
        parameters["oauth_nonce"] = makeNonce()
        parameters["oauth_token"] = token?.token
        if includesVersion { parameters["oauth_version"] = "1.0" }
        parameters["oauth_signature"] = signature(
            for: request, protocolParameters: parameters, tokenSecret: token?.tokenSecret)
        return parameters
    }

    /// The `oauth_signature` value (not yet percent-encoded) for `request` with these protocol
    /// parameters.
    public func signature(for request: HTTPTransportRequest, protocolParameters: [String: String], tokenSecret: String?)
        -> String
    {
        let key = Self.signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        switch signatureMethod {
        case .plaintext:
            return key
        default:
            let base = Self.signatureBaseString(for: request, protocolParameters: protocolParameters)
            return Self.hmacSHA1(baseString: base, key: key)
        }
    }

    // MARK: - The pieces (RFC 5849 §3.4, §3.5, §3.6)

    /// The signature base string (RFC 5849 §3.4.1.1): the upper-cased method, the base string
    /// URI and the normalized parameters, each encoded and joined with `&`.
    ///
    /// The parameters are the URL's query, the body's when `Content-Type` is
    /// `application/x-www-form-urlencoded`, and `protocolParameters`; `oauth_signature` (and
    /// `realm` among the protocol parameters) are left out.
    public static func signatureBaseString(for request: HTTPTransportRequest, protocolParameters: [String: String])
        -> String
    {
        var parameters = requestParameters(of: request)
        for (name, value) in protocolParameters where name != "realm" {
            parameters.append((name, value))
        }
        parameters.removeAll { $0.name == "oauth_signature" }
        return [
            request.method.uppercased(), percentEncode(baseStringURI(for: request.url)),
            percentEncode(normalizedParameters(parameters)),
        ].joined(separator: "&")
    }

    /// The base string URI (RFC 5849 §3.4.1.2): scheme and host lower-cased, the port only when
    /// it is not the scheme's default (80 for `http`, 443 for `https`), the path as written (`/`
    /// when empty), no user information, query or fragment.
    public static func baseStringURI(for url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        let scheme = (components.scheme ?? "").lowercased()
        var host = (components.percentEncodedHost ?? "").lowercased()
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        var authority = host
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            authority += ":\(port)"
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(authority)\(path)"
    }

    /// The request's own parameters (RFC 5849 §3.4.1.3.1), decoded: the query's, then the
    /// body's when the request has `Content-Type: application/x-www-form-urlencoded`. A `+` is a
    /// space in both.
    public static func requestParameters(of request: HTTPTransportRequest) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        if let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery {
            parameters += FormEncoding.decode(query).map { (name: $0.0, value: $0.1) }
        }
        if let body = request.body, !body.isEmpty, isFormEncoded(request.headerFields[values: .contentType].first) {
            parameters += FormEncoding.decode(String(decoding: body, as: UTF8.self)).map { (name: $0.0, value: $0.1) }
        }
        return parameters
    }

    /// The normalized parameters (RFC 5849 §3.4.1.3.2): every name and value encoded, the pairs
    /// sorted by name and then by value (byte order), joined as `name=value` with `&`.
    public static func normalizedParameters(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { (name: percentEncode($0.name), value: percentEncode($0.value)) }
            .sorted { left, right in
                left.name == right.name
                    ? left.value.utf8.lexicographicallyPrecedes(right.value.utf8)
                    : left.name.utf8.lexicographicallyPrecedes(right.name.utf8)
            }
            .map { "\($0.name)=\($0.value)" }
            .joined(separator: "&")
    }

    /// The signing key (RFC 5849 §3.4.2): the encoded consumer secret, `&`, and the encoded
    /// token secret (empty when there is no token).
    public static func signingKey(consumerSecret: String, tokenSecret: String?) -> String {
        "\(percentEncode(consumerSecret))&\(percentEncode(tokenSecret ?? ""))"
    }

    /// `HMAC-SHA1(key, baseString)`, base64-encoded (RFC 5849 §3.4.2).
    public static func hmacSHA1(baseString: String, key: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(baseString.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(code).base64EncodedString()
    }

    /// The `Authorization` header value (RFC 5849 §3.5.1): `OAuth`, the `realm` if any, then
    /// every protocol parameter as `name="value"`, encoded, sorted by name and separated by
    /// `, `.
    public static func authorizationHeader(protocolParameters: [String: String], realm: String? = nil) -> String {
        var fields: [String] = []
        if let realm {
            let quoted = realm.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
                .map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : String($0) }.joined()
            fields.append("realm=\"\(quoted)\"")
        }
        for (name, value) in protocolParameters.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        where name != "realm" {
            fields.append("\(percentEncode(name))=\"\(percentEncode(value))\"")
        }
        return "OAuth " + fields.joined(separator: ", ")
    }

    /// Percent-encodes `string` as RFC 5849 §3.6 asks: its UTF-8 bytes, all but the unreserved
    /// `A–Z a–z 0–9 - . _ ~` as `%XX` with upper-case hexadecimal digits.
    public static func percentEncode(_ string: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A fresh nonce: 24 characters of `A–Z a–z 0–9` from the system's secure random generator
    /// (about 143 bits). Letters and digits only and 24 long, so that it passes the strictest
    /// common server checks (oauthlib's default accepts 20 to 30 alphanumerics).
    public static func randomNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        return String(
            decoding: (0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] },
            as: UTF8.self)
    }

    /// The current time in whole seconds since 1970-01-01 UTC.
    public static func currentTimestamp() -> Int {
        Int(Date().timeIntervalSince1970)
    }

    /// Whether a `Content-Type` value is `application/x-www-form-urlencoded` (parameters such as
    /// `charset` allowed).
    static func isFormEncoded(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/x-www-form-urlencoded"
    }
}
