// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A credential description in git's credential helper protocol (`gitcredentials(7)`,
/// `git-credential(1)`): what git sends a helper on standard input, and what the helper answers.
///
/// git sends `key=value` lines, ended by an empty line or the end of input; a helper answers
/// `get` with the same form. This type reads that input strictly and boundedly, and writes an
/// answer that no value can inject a line into:
///
/// ```swift
/// let asked = try GitCredential(reading: Array("protocol=https\nhost=git.example.com\n\n".utf8))
/// let answer = GitCredential(username: "oauth2", password: accessToken, passwordExpiry: expiry)
/// try standardOutput.write(contentsOf: answer.encoded())
/// ```
///
/// Reading follows git's own reader: a trailing carriage return is dropped from each line, the
/// first `=` separates key from value, a key given twice keeps its last value, a `key[]=` with an
/// empty value empties that list, and unknown keys are ignored (the protocol's rule, so newer
/// versions of git can add attributes). Beyond git, it refuses NUL bytes and carriage returns
/// inside a line, lines over ``maximumLineLength`` bytes and more than ``maximumLineCount`` lines;
/// its errors never quote a value.
public struct GitCredential: Sendable, Hashable {
    /// The longest line read: 64 KiB.
    public static let maximumLineLength = 64 * 1024
    /// The most lines read before the empty line that ends the description.
    public static let maximumLineCount = 256
    /// The most bytes of standard input a helper reads: a little past the most a description can
    /// hold, so that ``init(reading:)`` refuses a longer one as too long.
    public static let maximumInputLength = maximumLineCount * (maximumLineLength + 2) + 1

    /// `protocol`: `https`, `http`, … .
    public var `protocol`: String?
    /// `host`: the host name, with `:port` when the URL has one.
    public var host: String?
    /// `path`: the repository's path, sent only when `credential.useHttpPath` is set.
    public var path: String?
    /// `username`.
    public var username: String?
    /// `password`: for this helper, an access token.
    public var password: String?
    /// `password_expiry_utc`: when ``password`` stops being valid (git ignores a password past it).
    public var passwordExpiry: Date?
    /// `wwwauth[]`: the server's `WWW-Authenticate` challenges, when git passes them on.
    public var wwwAuthenticate: [String]
    /// `capability[]`: what the sender of this description understands.
    public var capabilities: [String]

    /// Creates a description from its attributes.
    public init(
        protocol: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
        password: String? = nil, passwordExpiry: Date? = nil, wwwAuthenticate: [String] = [],
        capabilities: [String] = []
    ) {
        self.protocol = `protocol`
        self.host = host
        self.path = path
        self.username = username
        self.password = password
        self.passwordExpiry = passwordExpiry
        self.wwwAuthenticate = wwwAuthenticate
        self.capabilities = capabilities
    }

    /// Reads a description from what git wrote: lines up to the first empty line (anything after
    /// it is not read), or all of `input` when there is none.
    ///
    /// - Throws: ``CredentialHelperError/Code-swift.struct/malformedInput`` for a line that is not
    ///   `key=value` or holds a NUL byte or an inner carriage return;
    ///   ``CredentialHelperError/Code-swift.struct/inputTooLong`` past the limits.
    public init(reading input: [UInt8]) throws(CredentialHelperError) {
        self.init()
        var lineStart = input.startIndex
        var lineNumber = 0
        while lineStart < input.endIndex {
            let lineEnd = input[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
            var line = input[lineStart..<lineEnd]
            lineStart = lineEnd == input.endIndex ? lineEnd : lineEnd + 1
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { return }
            guard line.count <= Self.maximumLineLength else {
                throw CredentialHelperError(.inputTooLong, "line \(lineNumber) is longer than 64 KiB")
            }
            guard lineNumber <= Self.maximumLineCount else {
                throw CredentialHelperError(.inputTooLong, "more than \(Self.maximumLineCount) lines")
            }
            guard !line.contains(0) else {
                throw CredentialHelperError(.malformedInput, "line \(lineNumber) holds a NUL byte")
            }
            guard !line.contains(UInt8(ascii: "\r")) else {
                throw CredentialHelperError(.malformedInput, "line \(lineNumber) holds a carriage return")
            }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw CredentialHelperError(.malformedInput, "line \(lineNumber) is not key=value")
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = String(decoding: line[(equals + 1)...], as: UTF8.self)
            apply(key: key, value: value)
        }
    }

    private mutating func apply(key: String, value: String) {
        switch key {
        case "protocol": self.protocol = value
        case "host": host = value
        case "path": path = value
        case "username": username = value
        case "password": password = value
        // git writes the seconds as an integer; like git, an unreadable one means "none".
        case "password_expiry_utc": passwordExpiry = Int64(value).map { Date(timeIntervalSince1970: Double($0)) }
        case "url": applyURL(value)
        case "wwwauth[]": if value.isEmpty { wwwAuthenticate = [] } else { wwwAuthenticate.append(value) }
        case "capability[]": if value.isEmpty { capabilities = [] } else { capabilities.append(value) }
        default: break  // The protocol's rule: unknown attributes are ignored.
        }
    }

    /// `url=` stands for its parts, as in git: `protocol://[user[:password]@]host[/path]`.
    private mutating func applyURL(_ url: String) {
        // "://" found without the string-searching library, which the fast path does not carry.
        let bytes = Array(url.utf8)
        guard let colon = bytes.indices.first(where: { bytes[$0...].starts(with: "://".utf8) }) else { return }
        self.protocol = String(decoding: bytes[..<colon], as: UTF8.self)
        var rest = Substring(String(decoding: bytes[(colon + 3)...], as: UTF8.self))
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            self.path = path.isEmpty ? nil : Self.percentDecoded(path)
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            let user = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            username = user.first.map(Self.percentDecoded)
            if user.count == 2 { password = Self.percentDecoded(user[1]) }
            rest = rest[rest.index(after: at)...]
        }
        host = String(rest)
    }

    /// `%XX` escapes decoded as git decodes a URL's parts: a `%` without two hex digits stays.
    private static func percentDecoded(_ text: Substring) -> String {
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let input = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The answer to `get`: `username`, `password` and `password_expiry_utc` lines, for those
    /// that are set, then the empty line that ends it.
    ///
    /// - Throws: ``CredentialHelperError/Code-swift.struct/unencodableValue`` when a value holds a
    ///   newline, a carriage return or a NUL byte (an access token from a provider is untrusted
    ///   text): nothing is written then, rather than lines a value chose.
    public func encoded() throws(CredentialHelperError) -> [UInt8] {
        var lines: [(String, String)] = []
        if let username { lines.append(("username", username)) }
        if let password { lines.append(("password", password)) }
        if let passwordExpiry {
            lines.append(("password_expiry_utc", String(Int64(passwordExpiry.timeIntervalSince1970.rounded(.down)))))
        }
        var output: [UInt8] = []
        for (key, value) in lines {
            guard !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else {
                throw CredentialHelperError(.unencodableValue, "the \(key) holds a byte git's protocol cannot carry")
            }
            output += Array("\(key)=\(value)\n".utf8)
        }
        output.append(UInt8(ascii: "\n"))
        return output
    }
}

extension GitCredential {
    /// The username a helper answers git with when none is configured: `x-access-token` for
    /// GitHub (what its git server expects with an OAuth token) — the provider named `GitHub`,
    /// or a token endpoint on `github.com` or one of its subdomains — and `oauth2` for everyone
    /// else (GitLab's convention, and what most forges accept).
    ///
    /// - Parameters:
    ///   - providerName: The client configuration's provider name, if any.
    ///   - tokenEndpointHost: The host of the provider's token endpoint, if known.
    public static func conventionalUsername(providerName: String?, tokenEndpointHost: String?) -> String {
        let host = tokenEndpointHost?.lowercased()
        let isGitHub = providerName == "GitHub" || host == "github.com" || host?.hasSuffix(".github.com") == true
        return isGitHub ? "x-access-token" : "oauth2"
    }
}

/// The operations git asks a credential helper for: its last command-line argument.
public enum GitCredentialOperation: String, Sendable, CaseIterable {
    /// Answer with a username and password for the description, if there is one.
    case get
    /// git used the credential successfully and offers it for keeping.
    case store
    /// git found the credential refused and asks to forget it.
    case erase
}
