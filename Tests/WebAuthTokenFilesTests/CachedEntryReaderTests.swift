// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenFiles
import WebAuthTokenStore

@Suite("The fast path's first reader of a stored entry")
struct CachedEntryReaderTests {
    /// What the small reader answers for `text`.
    static func read(_ text: String) -> CachedEntry? {
        Array(text.utf8).withUnsafeBytes { CachedEntryReader.entry($0) }
    }

    /// What `JSONDecoder` reads from `text`.
    static func foundation(_ text: String) -> CachedEntry? {
        CachedEntry(decodingWithFoundation: Data(text.utf8))
    }

    static let tokens =
        #""tokens":{"accessToken":"at-1","expiresAt":"2026-01-01T01:00:00Z","idToken":"h.p.s","#
        + #""idTokenClaims":{"audience":["cli"],"expiresAt":"2026-01-01T02:00:00Z","issuedAt":"2026-01-01T00:00:00Z","#
        + #""issuer":"https:\/\/id.example.com","subject":"ada"},"receivedAt":"2026-01-01T00:00:00Z","#
        + #""refreshToken":"rt","scopes":["openid","profile"],"tokenType":"Bearer"}"#

    static let configuration =
        #""configuration":{"additionalAuthorizationParameters":{"prompt":"login"},"#
        + #""authorizationEndpoint":"https:\/\/id.example.com\/authorize","clientID":"cli","#
        + #""idTokenSigningAlgorithms":["RS256"],"issuer":"https:\/\/id.example.com","name":"Z\u00f6e \ud83d\ude00","#
        + #""redirectURI":"http:\/\/127.0.0.1\/callback","responseType":"code","scopes":["openid"],"#
        + #""tokenEndpoint":"https:\/\/id.example.com\/token"}"#

    /// Entries as the store writes them (escaped slashes, sorted keys), and with the optional
    /// parts the format has.
    static let written: [String] = [
        #"{"clientID":"cli","savedAt":"2026-01-01T00:00:00Z",\#(tokens),"version":1}"#,
        #"{"clientID":"cli",\#(configuration),"issuer":"https:\/\/id.example.com","savedAt":"2026-01-01T00:00:00Z","#
            + #""tokenEndpoint":"https:\/\/id.example.com\/token",\#(tokens),"version":1}"#,
        #"{"clientID":"cli","exchangedTokens":[{"audience":"api","issuedTokenType":"urn:x","scopes":[],"#
            + #""tokens":{"accessToken":"x","receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"}}],"#
            + #""registration":{"client_id":"cli","client_id_issued_at":1767225600,"secret":null,"n":[-1.5e3,true]},"#
            + #""savedAt":"2026-01-01T00:00:00Z",\#(tokens),"version":1}"#,
        " \n{ \"clientID\" : \"cli\" , \"savedAt\" : \"2026-01-01T00:00:00Z\" , \(tokens) , \"version\" : 1 } \r\n",
        #"{"clientID":"cli","configuration":null,"issuer":null,"savedAt":"2026-01-01T00:00:00Z","#
            + #""tokens":{"accessToken":"at","expiresAt":null,"idToken":null,"idTokenClaims":null,"receivedAt":"#
            + #""2026-01-01T00:00:00Z","refreshToken":null,"scopes":[],"tokenType":"Bearer"},"version":1}"#,
    ]

    @Test(arguments: written)
    func entriesAsTheStoreWritesThemAreReadAsJSONDecoderReadsThem(text: String) throws {
        let entry = try #require(Self.read(text), "left to JSONDecoder")
        #expect(entry == Self.foundation(text))
    }

    @Test func theFieldsAreTheEntrysOwn() throws {
        let entry = try #require(Self.read(Self.written[1]))
        #expect(entry.tokens.accessToken == "at-1")
        #expect(entry.tokens.tokenType == "Bearer")
        #expect(entry.tokens.hasRefreshToken)
        #expect(entry.tokens.idToken == "h.p.s")
        #expect(entry.tokens.expiresAt == Date(timeIntervalSince1970: 1_767_229_200))
        #expect(entry.tokens.idTokenExpiresAt == Date(timeIntervalSince1970: 1_767_232_800))
        #expect(entry.configurationName == "Zöe 😀")
        #expect(entry.tokenEndpointHost == "id.example.com")
    }

    @Test func anEntryTheStoreWroteThroughItsEncoderIsRead() throws {
        // Through the format's own encoder, with its escaping, as the store writes it.
        struct Tokens: Encodable {
            var accessToken = "at/+="
            var tokenType = "Bearer"
            var scopes = ["openid"]
            var receivedAt = Date(timeIntervalSince1970: 1_767_225_600)
            var expiresAt = Date(timeIntervalSince1970: 1_767_229_200)
        }
        struct Entry: Encodable {
            var version = 1
            var tokens = Tokens()
            var clientID = "cli \"quoted\" \\ \u{1}"
            var savedAt = Date(timeIntervalSince1970: 1_767_225_600)
            var issuer = "https://id.example.com/"
        }
        let text = String(decoding: try TokenEntryFormat.encoder().encode(Entry()), as: UTF8.self)
        let entry = try #require(Self.read(text), "left to JSONDecoder: \(text)")
        #expect(entry == Self.foundation(text))
        #expect(entry.tokens.accessToken == "at/+=")
    }

    /// Entries the small reader leaves to `JSONDecoder`, which reads some and refuses others.
    @Test(arguments: [
        // A proof-of-possession key, the short configuration form, an unknown key.
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","dpopKey":{},"#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","configuration":{"id":"c","redirectURL":"http:\/\/x\/","secret":"s"},"#
            + #""savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","receivedAt":"2026-01-01T00:00:00Z","#
            + #""scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","other":1,"savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        // A key twice, a date in another form, a version written otherwise, another version.
        #"{"clientID":"c","clientID":"d","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00.5Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1.0}"#,
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":2}"#,
        // A missing field, a token with a character the fast path does not hand out, not JSON.
        #"{"savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a\nb","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1} x"#,
        #"{"clientID":"c\ud800","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#,
        "", "{", "[]", "null", "{}",
    ])
    func anythingElseIsLeftToJSONDecoder(text: String) {
        #expect(Self.read(text) == nil)
    }

    @Test func theEntryPointGivesJSONDecodersReadingForWhatTheSmallReaderLeaves() throws {
        // A date with a fraction of a second: JSONDecoder's ISO 8601 reading takes it.
        let text =
            #"{"clientID":"c","savedAt":"2026-01-01T00:00:00.250Z","tokens":{"accessToken":"a","#
            + #""receivedAt":"2026-01-01T00:00:00Z","scopes":[],"tokenType":"Bearer"},"version":1}"#
        #expect(Self.read(text) == nil)
        let entry = try #require(CachedEntry(decoding: Data(text.utf8)))
        #expect(entry == Self.foundation(text))
    }

    /// What the small index reader answers for `text`.
    static func index(_ text: String) -> ProfileIndexFormat.Contents? {
        Array(text.utf8).withUnsafeBytes { ProfileIndexReader.contents($0) }
    }

    @Test(arguments: [
        #"{"profiles":{"default":"file"},"version":1}"#,
        #"{"bindings":{"work":{"gitHosts":["github.com","git.example.com:8443"]}},"#
            + #""profiles":{"default":"file","work":"keyring"},"version":1}"#,
        #"{"bindings":null,"later":{"a":[1,2.5e-3,"x\u00e9"]},"profiles":{},"version":1}"#,
        #"{"bindings":{"w":{"gitHosts":[],"later":true}},"profiles":{"w":"file"},"version":7}"#,
    ])
    func indexesAreReadAsJSONDecoderReadsThem(text: String) throws {
        let contents = try #require(Self.index(text), "left to JSONDecoder")
        #expect(contents == ProfileIndexFormat.decodedWithFoundation(Data(text.utf8)))
    }

    @Test func theIndexsFieldsAreItsOwn() throws {
        let text =
            #"{"bindings":{"work":{"gitHosts":["github.com"]}},"profiles":{"default":"file","work":"keyring"},"version":1}"#
        let contents = try #require(Self.index(text))
        #expect(contents.version == 1)
        #expect(contents.profiles == ["default": "file", "work": "keyring"])
        #expect(contents.bindings == ["work": ProfileIndexFormat.Bindings(gitHosts: ["github.com"])])
        #expect(ProfileIndexFormat.storeKinds(decoding: Data(text.utf8)) == ["default": "file", "work": "keyring"])
    }

    @Test(arguments: [
        #"{"profiles":{"a":"file","a":"keyring"},"version":1}"#, #"{"profiles":{"a":null},"version":1}"#,
        #"{"profiles":{"a":"file"}}"#, #"{"profiles":{"a":"file"},"version":1.0}"#,
        // Found by FuzzCachedEntryReader: a version of 64 digits overflowed the reader.
        #"{"profiles":{"a":"file"},"version":"# + String(repeating: "0", count: 40) + "2"
            + String(repeating: "0", count: 23)
            + "}",
        #"{"profiles":{"a":"file"},"version":1234567890}"#,
        #"{"bindings":{"a":{}},"profiles":{"a":"file"},"version":1}"#, #"{"profiles":{},"version":1} 1"#,
        "", "[]", "{}",
    ])
    func anyOtherIndexIsLeftToJSONDecoder(text: String) {
        #expect(Self.index(text) == nil)
    }

    @Test(arguments: [
        #"{"profiles":{"default":"file"},"version":1}"#,
        #"{"bindings":{"work":{"gitHosts":["github.com","git.example.com:8443"]}},"#
            + #""profiles":{"default":"file","work":"keyring"},"version":1}"#,
        #"{"bindings":null,"later":{"a":[1,2.5e-3,"x\u00e9"]},"profiles":{},"version":1}"#,
        #"{"bindings":{"w":{"gitHosts":[],"later":true}},"profiles":{"w":"file"},"version":7}"#,
        #"{"profiles":{"a":"file","a":"keyring"},"version":1}"#, #"{"profiles":{"a":"file"}}"#,
        #"{"bindings":{"a":{}},"profiles":{"a":"file"},"version":1}"#, #"{"profiles":{"a":"vault"},"version":1}"#,
        #"{"profiles":{"a":"file","w":"vault"},"bindings":{"a":{"gitHosts":["x"]}},"version":1}"#, "", "{}",
    ])
    func oneProfilesStoreAndBindingsAreWhatTheWholeIndexGives(text: String) {
        let bytes = Array(text.utf8)
        let contents = ProfileIndexFormat.contents(reading: bytes)
        for profile in ["default", "work", "w", "a", "absent"] {
            #expect(ProfileIndexFormat.storeKind(of: profile, reading: bytes) == contents?.profiles[profile])
            #expect(ProfileIndexFormat.bindings(of: profile, reading: bytes) == contents?.bindings?[profile])
        }
        #expect(ProfileIndexFormat.storeKinds.allSatisfy(ProfileIndexFormat.isStoreKind))
        #expect(!ProfileIndexFormat.isStoreKind("vault"))
    }

    /// What the reader's string reading gives for `bytes`, a JSON string with its quotes.
    static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = CachedEntryReader.Reader(bytes: buffer)
            return reader.string()
        }
    }

    @Test func stringsAreWellFormedUTF8WithTheirEscapesResolved() {
        #expect(Self.string(Array(#""Z\u00f6e \ud83d\ude00 \/x""#.utf8)) == "Zöe 😀 /x")
        #expect(Self.string(Array("\"é\\n€\\\"\"".utf8)) == "é\n€\"")
        #expect(Self.string(Array(#""""#.utf8)) == "")
        // Ill-formed UTF-8, plain or beside an escape: a lone continuation byte, a sequence cut
        // off by an escape or by the end, a continuation after an escape, an overlong form, a
        // surrogate's encoding.
        let quote: UInt8 = 0x22
        let newline: [UInt8] = [0x5C, 0x6E]
        for inside: [[UInt8]] in [
            [[0x80]], [[0xE2, 0x82], newline], [newline, [0x82, 0xAC]], [[0xF0, 0x9F, 0x98]], [[0xC0, 0xAF]],
            [[0xED, 0xA0, 0x80]], [[0x61], newline, [0xE2, 0x82]],
        ] {
            let bytes = [quote] + inside.joined() + [quote]
            #expect(Self.string(bytes) == nil, "\(bytes)")
        }
    }

    @Test func aStringsBytesAreCheckedAsStringValidatingChecksThem() {
        // Every sequence of one and two bytes, and many longer ones.
        var sequences: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for first in 0...255 {
            for second in 0...255 { sequences.append([UInt8(first), UInt8(second)]) }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<60_000 {
            var bytes: [UInt8] = []
            for _ in 0..<(3 + Int(state % 4)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Mostly the bytes that start and continue sequences, where the rules are.
                let byte = UInt8(truncatingIfNeeded: state >> 33)
                bytes.append(state >> 60 < 3 ? byte & 0x7F : byte | 0x80)
            }
            sequences.append(bytes)
        }
        var differing: [[UInt8]] = []
        for bytes in sequences {
            let read = bytes.withUnsafeBufferPointer(CachedEntryReader.Reader.utf8)
            if read != String(validating: bytes, as: UTF8.self) { differing.append(bytes) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }

    @Test func aStoreKindOtherThanFileOrKeyringStillMakesTheIndexUnreadable() {
        let text = #"{"profiles":{"a":"vault"},"version":1}"#
        #expect(Self.index(text) != nil)
        #expect(ProfileIndexFormat.contents(decoding: Data(text.utf8)) == nil)
    }
}
