// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCredentialHelpers

@Suite("git's credential helper protocol")
struct GitCredentialTests {
    private func read(_ text: String) throws(CredentialHelperError) -> GitCredential {
        try GitCredential(reading: Array(text.utf8))
    }

    @Test func whatGitSendsForGetIsRead() throws {
        let credential = try read("protocol=https\nhost=git.example.com:8443\npath=team/repo.git\nusername=ann\n\n")
        #expect(credential.protocol == "https")
        #expect(credential.host == "git.example.com:8443")
        #expect(credential.path == "team/repo.git")
        #expect(credential.username == "ann")
        #expect(credential.password == nil)
    }

    @Test func readingStopsAtTheEmptyLineAndAlsoEndsAtTheEndOfInput() throws {
        #expect(try read("host=a\n\nhost=b\n").host == "a")
        #expect(try read("host=a").host == "a")
        #expect(try read("").host == nil)
    }

    @Test func gitsLineRulesHold() throws {
        // CRLF line ends, the first "=" splits, the last of a repeated key wins, unknown keys are ignored.
        let credential = try read("host=a\r\nhost=b\nusername=x=y\nfuture_attribute=whatever\nquit=1\n")
        #expect(credential.host == "b")
        #expect(credential.username == "x=y")
        // Lists accumulate, and an empty value empties them.
        let lists = try read("wwwauth[]=Bearer realm=\"a\"\nwwwauth[]=\nwwwauth[]=Basic\ncapability[]=authtype\n")
        #expect(lists.wwwAuthenticate == ["Basic"])
        #expect(lists.capabilities == ["authtype"])
    }

    @Test func theExpiryIsReadAsUnixSecondsAndAnUnreadableOneIsNone() throws {
        #expect(
            try read("password_expiry_utc=1900000000\n").passwordExpiry == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(try read("password_expiry_utc=soon\n").passwordExpiry == nil)
    }

    @Test func aURLStandsForItsParts() throws {
        let credential = try read("url=https://ann%40corp:p%3Ass@git.example.com:8443/team/my%20repo%+1%4.git\n")
        #expect(credential.protocol == "https")
        #expect(credential.host == "git.example.com:8443")
        #expect(credential.username == "ann@corp")
        #expect(credential.password == "p:ss")
        #expect(credential.path == "team/my repo%+1%4.git")
        let bare = try read("url=https://git.example.com\n")
        #expect(bare.host == "git.example.com" && bare.path == nil && bare.username == nil)
    }

    @Test(arguments: [
        ("host=a\nno equals sign\n", CredentialHelperError.Code.malformedInput),
        ("host=a\u{0}b\n", .malformedInput),
        ("host=a\rb\n", .malformedInput),
        ("password=" + String(repeating: "x", count: GitCredential.maximumLineLength) + "\n", .inputTooLong),
        (String(repeating: "k=v\n", count: GitCredential.maximumLineCount + 1), .inputTooLong),
    ])
    func badInputIsRefusedWithATypedError(input: String, code: CredentialHelperError.Code) {
        #expect(throws: CredentialHelperError.self) { try read(input) }
        do {
            _ = try read(input)
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func limitsAreInclusive() throws {
        // The longest line allowed is read in full; as many lines as allowed are read.
        let longest = "password=" + String(repeating: "x", count: GitCredential.maximumLineLength - 9)
        #expect(try read(longest + "\n").password?.count == GitCredential.maximumLineLength - 9)
        _ = try read(String(repeating: "k=v\n", count: GitCredential.maximumLineCount))
    }

    @Test func errorsNeverQuoteAValue() {
        let secret = "gho_SECRET_TOKEN_VALUE"
        for input in ["password=\(secret)\u{0}\n", "password=\(secret)\rx\n", "\(secret)\n"] {
            do {
                _ = try read(input)
                Issue.record("accepted \(input.debugDescription)")
            } catch {
                #expect(!error.description.contains(secret))
                #expect(!error.description.contains("SECRET"))
            }
        }
    }

    @Test func theAnswerCarriesUsernamePasswordAndExpiryAndReadsBack() throws {
        let answer = GitCredential(
            username: "oauth2", password: "at-123", passwordExpiry: Date(timeIntervalSince1970: 1_900_000_000.7))
        let bytes = try answer.encoded()
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "username=oauth2\npassword=at-123\npassword_expiry_utc=1900000000\n\n")
        let back = try GitCredential(reading: bytes)
        #expect(back.username == "oauth2" && back.password == "at-123")
        #expect(back.passwordExpiry == Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test(arguments: ["at\nhost=evil.example", "at\r", "at\u{0}x"])
    func aValueThatWouldInjectALineIsNeverWritten(token: String) {
        #expect(throws: CredentialHelperError.self) {
            try GitCredential(username: "oauth2", password: token).encoded()
        }
    }

    @Test func operationsAreGitsThree() {
        #expect(GitCredentialOperation(rawValue: "get") == .get)
        #expect(GitCredentialOperation(rawValue: "store") == .store)
        #expect(GitCredentialOperation(rawValue: "erase") == .erase)
        #expect(GitCredentialOperation(rawValue: "capability") == nil)
    }
}
