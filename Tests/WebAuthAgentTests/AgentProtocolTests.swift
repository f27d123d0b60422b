// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgentProtocol
import WebAuthTokenStore

/// The agent's wire protocol: what is written is what is read, and what is out of bounds is not.
@Suite("Agent protocol messages")
struct AgentProtocolTests {
    @Test func aTokenRequestIsOneVersionedLineThatReadsBackAsItself() throws {
        let request = AgentRequest(.token, profile: "work", minimumValidity: 120)
        let line = request.line()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let text = String(decoding: line.dropLast(), as: UTF8.self)
        #expect(text == #"{"min_validity":120,"op":"token","profile":"work","v":1}"#)
        #expect(AgentRequest(line: Array(line.dropLast())) == request)
    }

    @Test(arguments: [
        AgentRequest(.token, profile: "default", minimumValidity: 60), AgentRequest(.token, profile: "w"),
        AgentRequest(.token, profile: "a\"b\\c\u{1}é😀", minimumValidity: 0.5),
        AgentRequest(.token, profile: "p", minimumValidity: 1e-5), AgentRequest(.token, minimumValidity: 1e300),
        AgentRequest(.status), AgentRequest(.token, profile: "p", minimumValidity: -0.0),
    ])
    func theFastPathsRequestLineIsWrittenDirectlyAndReadsBackAsItself(request: AgentRequest) throws {
        let line = try #require(request.plainLine())
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(AgentRequest(line: Array(line.dropLast())) == request)
        #expect(line == request.line())
    }

    @Test func aRequestWithMoreThanTheFastPathsFieldsGoesThroughTheEncoder() {
        #expect(AgentRequest(.token, profile: "p", audience: "api").plainLine() == nil)
        #expect(AgentRequest(.token, profile: "p", minimumValidity: .infinity).plainLine() == nil)
        #expect(AgentRequest(.add, profile: "p", lifetime: 60).plainLine() == nil)
    }

    @Test(arguments: [
        #"{"ok":true,"token":{"access_token":"at","client_id":"cli","expires_at":1767229200.5,"id_token":"h.p.s","#
            + #""id_token_claims":{"aud":["cli"],"iat":1767225600,"iss":"http://127.0.0.1:8080","sub":"ada"},"#
            + #""id_token_expires_at":1767229200,"issuer":"http://127.0.0.1:8080","provider_name":"demo","#
            + #""scopes":["openid"],"token_endpoint_host":"127.0.0.1","token_type":"Bearer"},"v":1}"#,
        #"{"ok":true,"token":{"access_token":"at","expires_at":null,"token_type":"Bearer","later":[1e-5,-0.0]},"v":1}"#,
        #"{"ok":true,"v":1}"#,
    ])
    func anAnswerTheSmallReaderTakesIsReadAsJSONDecoderReadsIt(text: String) throws {
        let bytes = Array(text.utf8)
        let read = try #require(bytes.withUnsafeBytes { AgentAnswerReader.answer($0) })
        #expect(read == AgentAnswer(decodingWithFoundation: bytes))
        #expect(AgentAnswer(line: bytes) == read)
    }

    @Test(arguments: [
        #"{"error":{"code":"notHeld","message":"not held"},"ok":false,"v":1}"#,
        #"{"ok":true,"status":{"profiles":[]},"v":1}"#, #"{"ok":true,"ok":true,"v":1}"#,
        #"{"ok":true,"token":{"access_token":"at","expires_at":1e400,"token_type":"Bearer"},"v":1}"#, "", "{}",
    ])
    func anyOtherAnswerIsLeftToJSONDecoder(text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { AgentAnswerReader.answer($0) } == nil)
    }

    @Test func aTokenAnswerCarriesTypeExpiryAndTheHelpersFields() throws {
        let answer = AgentAnswer(
            ok: true,
            token: .init(
                accessToken: "at", tokenType: "Bearer", expiresAt: 1_790_000_000.5, idToken: "id",
                idTokenExpiresAt: 1_790_000_100, providerName: "Example", tokenEndpointHost: "id.example.com"))
        let line = answer.line()
        let read = try #require(AgentAnswer(line: Array(line.dropLast())))
        #expect(read == answer)
        #expect(read.token?.expiresAt == 1_790_000_000.5)
    }

    @Test func aFailureIsTypedAndAnAnswerWithoutEitherIsRefused() {
        let failure = AgentAnswer.failure(.refreshRefused, "sign in again")
        #expect(AgentAnswer(line: Array(failure.line().dropLast()))?.error?.code == .refreshRefused)
        #expect(AgentAnswer(line: Array(#"{"v":1,"ok":false}"#.utf8)) == nil)
    }

    @Test func anotherVersionIsNotReadAsThisOne() {
        #expect(AgentAnswer(line: Array(#"{"v":2,"ok":true}"#.utf8)) == nil)
        #expect(AgentRequest.read(Array(#"{"v":7,"op":"warp"}"#.utf8)) == .otherVersion(7))
        #expect(AgentRequest.read(Array(#"{"v":7,"op":"token","profile":7}"#.utf8)) == .otherVersion(7))
        #expect(AgentRequest.read(Array(#"{"v":1,"op":"warp"}"#.utf8)) == .unreadable)
        #expect(AgentRequest.read(Array(#"{"op":"token"}"#.utf8)) == .unreadable)
        #expect(AgentRequest.read(Array("[1]".utf8)) == .unreadable)
        #expect(
            AgentRequest.read(Array(#"{"v":1,"op":"token","profile":"w"}"#.utf8))
                == .request(AgentRequest(.token, profile: "w")))
    }

    @Test func linesOverTheBoundsAreRefused() {
        let long =
            #"{"v":1,"op":"token","profile":""# + String(repeating: "a", count: AgentProtocol.maximumRequestLength)
            + #""}"#
        #expect(AgentRequest(line: Array(long.utf8)) == nil)
        let answer =
            #"{"v":1,"ok":true,"token":{"access_token":""#
            + String(repeating: "a", count: AgentProtocol.maximumAnswerLength) + #"","token_type":"Bearer"}}"#
        #expect(AgentAnswer(line: Array(answer.utf8)) == nil)
    }

    @Test func theSocketIsTheNamedOneElseInTheRuntimeDirectory() {
        #expect(AgentSocketPath(environment: ["WEBAUTH_AGENT_SOCK": "/tmp/a.sock"]).path == "/tmp/a.sock")
        #expect(AgentSocketPath(environment: ["WEBAUTH_AGENT_SOCK": "/tmp/a.sock"]).isNamed)
        #expect(
            AgentSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]).path
                == "/run/user/1000/webauth/agent.sock")
        #expect(
            AgentSocketPath(environment: ["WEBAUTH_AGENT_SOCK": "relative", "XDG_RUNTIME_DIR": "/run/user/1"]).path
                == "/run/user/1/webauth/agent.sock")
        #expect(AgentSocketPath(environment: ["TMPDIR": "/var/tmp/"]).path.hasPrefix("/var/tmp/webauth-"))
    }
}
