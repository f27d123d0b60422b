// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthOAuth

@Suite("Authorization response checks")
struct AuthorizationResponseTests {
    let validator = AuthorizationResponseValidator(
        expectedState: "state-1", expectedIssuer: "https://issuer.example", issuerRequired: false)

    private func url(_ string: String) -> URL { URL(string: string)! }

    @Test func acceptsTheCodeWithTheRightState() throws {
        let grant = try validator.validate(url("http://127.0.0.1:4000/cb?code=abc&state=state-1"))
        #expect(grant == .code("abc"))
    }

    @Test(arguments: [
        "http://127.0.0.1:4000/cb?code=abc", "http://127.0.0.1:4000/cb?code=abc&state=other",
        "http://127.0.0.1:4000/cb?code=abc&state=", "http://127.0.0.1:4000/cb?code=abc&state=STATE-1",
    ])
    func rejectsAMissingOrWrongState(_ callback: String) {
        #expect(!validator.answersRequest(url(callback)))
        #expect(throws: OAuthError.self) { try validator.validate(url(callback)) }
        do {
            _ = try validator.validate(url(callback))
        } catch {
            #expect(error.code == .stateMismatch)
        }
    }

    @Test func anEmptyExpectedStateMatchesNothing() {
        let careless = AuthorizationResponseValidator(expectedState: "", expectedIssuer: nil, issuerRequired: false)
        for callback in ["http://127.0.0.1:4000/cb?code=abc&state=", "http://127.0.0.1:4000/cb?code=abc"] {
            #expect(!careless.answersRequest(url(callback)))
            #expect(throws: OAuthError.self) { try careless.validate(url(callback)) }
        }
    }

    @Test func rejectsAnotherIssuerBeforeLookingAtTheCode() {
        let callback = url("http://127.0.0.1:4000/cb?code=abc&state=state-1&iss=https%3A%2F%2Fevil.example")
        #expect(validator.answersRequest(callback))
        do {
            _ = try validator.validate(callback)
            Issue.record("accepted a response from another issuer")
        } catch {
            #expect(error.code == .issuerMismatch)
            #expect(!error.message.contains("abc"))
        }
    }

    @Test func comparesTheIssuerAsAnExactString() {
        for issuer in ["https://issuer.example/", "https://ISSUER.example", "https://issuer.example:443"] {
            let encoded = issuer.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let callback = url("http://127.0.0.1:4000/cb?code=abc&state=state-1&iss=\(encoded)")
            #expect(throws: OAuthError.self, "\(issuer)") { try validator.validate(callback) }
        }
        let exact = url("http://127.0.0.1:4000/cb?code=abc&state=state-1&iss=https%3A%2F%2Fissuer.example")
        #expect((try? validator.validate(exact)) == .code("abc"))
    }

    @Test func requiresIssWhenTheMetadataPromisesIt() {
        var strict = validator
        strict.issuerRequired = true
        do {
            _ = try strict.validate(url("http://127.0.0.1:4000/cb?code=abc&state=state-1"))
            Issue.record("accepted a response without iss")
        } catch {
            #expect(error.code == .issuerMissing)
        }
    }

    @Test func anErrorResponseWithoutThePromisedIssIsRefusedButShownUnverified() {
        var strict = validator
        strict.issuerRequired = true
        let callback = url(
            "http://127.0.0.1:4000/cb?error=invalid_scope&error_description=offline_access%1B%5B31m%20refused&state=state-1"
        )
        do {
            _ = try strict.validate(callback)
            Issue.record("accepted an error response without iss")
        } catch {
            #expect(error.code == .issuerMissing, "still refused: it may come from another server")
            #expect(
                error.message
                    == "the authorization response has no iss, which this server promises (RFC 9207); the provider "
                    + "answered invalid_scope: offline_access [31m refused (not confirmed: the answer carries no iss)")
            #expect(error.serverError?.code == .invalidScope)
        }
    }

    @Test func turnsAnErrorResponseIntoATypedErrorWithASafeDescription() {
        let callback = url(
            "http://127.0.0.1:4000/cb?error=access_denied&error_description=No%1B%5B31m%20way%0A&error_uri=https%3A%2F%2Fissuer.example%2Fhelp&state=state-1"
        )
        do {
            _ = try validator.validate(callback)
            Issue.record("accepted an error response")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError?.code == .accessDenied)
            #expect(error.serverError?.endpoint == .authorization)
            #expect(error.serverError?.uri == URL(string: "https://issuer.example/help"))
            #expect(error.serverError?.rawDescription == "No\u{1B}[31m way\n")
            let safe = error.serverError?.safeDescription ?? ""
            #expect(!safe.contains("\u{1B}") && !safe.contains("\n"))
            #expect(!error.description.contains("\u{1B}"))
        }
    }

    /// Found by fuzzing (`FuzzAuthorizationResponse`): the `error` parameter was printed as sent.
    @Test func aControlCharacterInTheErrorCodeIsNotPrinted() {
        do {
            _ = try validator.validate(url("http://127.0.0.1:4000/cb?error=access%1B%5B31mdenied&state=state-1"))
            Issue.record("accepted an error response")
        } catch {
            #expect(error.serverError?.code.rawValue == "access\u{1B}[31mdenied", "the code itself is kept as sent")
            #expect(!error.description.unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
    }

    /// The input the fuzzer found (`Fuzz/Corpus/FuzzAuthorizationResponse/crash-c1-control-in-error-code`):
    /// raw bytes with a C1 control (U+009B) and `%1A` in `error`.
    @Test func theFuzzedErrorCodeWithC1ControlsIsNotPrinted() throws {
        let bytes: [UInt8] = [
            0x68, 0x74, 0x74, 0x70, 0x3A, 0x2F, 0x2F, 0x5B, 0x3A, 0x3A, 0x31, 0x5D, 0x3A, 0x38, 0x30, 0x38, 0x30, 0x2F,
            0x63, 0x2C, 0x3F, 0x65, 0x72, 0x72, 0x6F, 0x72, 0x3D, 0x5D, 0x3A, 0x38, 0x30, 0x38, 0x30, 0x2F, 0x63, 0x2C,
            0x3F, 0x65, 0x72, 0x72, 0x6F, 0x72, 0x3D, 0x61, 0x63, 0x63, 0x73, 0x63, 0x72, 0x69, 0x70, 0x74, 0x97, 0x90,
            0x91, 0xC2, 0x9B, 0x9A, 0x91, 0x96, 0x65, 0x64, 0x25, 0x31, 0x41, 0x25, 0x72, 0x46, 0x25, 0x46, 0x78, 0x26,
            0x73, 0x74, 0x61, 0x74, 0x65, 0x3D, 0x61, 0x66, 0x30, 0x69, 0x66, 0x6A, 0x73, 0x6C, 0x64, 0x6B, 0x6A,
        ]
        let callback = try #require(URL(string: String(decoding: bytes, as: UTF8.self)))
        let fuzzed = AuthorizationResponseValidator(
            expectedState: "af0ifjsldkj", expectedIssuer: "https://issuer.example.com", issuerRequired: false)
        do {
            _ = try fuzzed.validate(callback)
            Issue.record("accepted an error response")
        } catch {
            #expect(error.code == .server)
            #expect(!error.description.unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
    }

    @Test func anErrorResponseWithTheWrongStateIsAStateMismatch() {
        do {
            _ = try validator.validate(url("http://127.0.0.1:4000/cb?error=access_denied&state=forged"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .stateMismatch)
        }
    }

    @Test func neverTakesAnAccessTokenFromAQuery() {
        for responseType in [ResponseType.code, .token] {
            var implicit = validator
            implicit.responseType = responseType
            do {
                _ = try implicit.validate(url("com.example.app:/cb?access_token=leak&state=state-1#state=state-1"))
                Issue.record("accepted a token from a query")
            } catch {
                #expect(error.code == .tokenInQuery)
                #expect(!error.description.contains("leak"))
            }
        }
    }

    @Test func readsAnImplicitResponseFromTheFragmentOnlyWhenAskedFor() throws {
        var implicit = validator
        implicit.responseType = .token
        let callback = url(
            "fairese-nae://anilist-auth#access_token=tok&token_type=Bearer&expires_in=31536000&state=state-1")
        guard case .implicit(let parameters) = try implicit.validate(callback) else {
            Issue.record("no implicit grant")
            return
        }
        #expect(parameters["access_token"] == "tok")
        #expect(parameters["expires_in"] == "31536000")
        // The code flow ignores the fragment: no state there counts.
        #expect(throws: OAuthError.self) { try validator.validate(callback) }
    }

    @Test func readsAFragmentThatStartsWithAQuestionMark() throws {
        var implicit = validator
        implicit.responseType = .token
        let grant = try implicit.validate(url("myapp://auth#?access_token=tok&state=state-1"))
        #expect(grant == .implicit(["access_token": "tok", "state": "state-1"]))
    }

    @Test func requiresACode() {
        do {
            _ = try validator.validate(url("http://127.0.0.1:4000/cb?state=state-1"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidCallback)
        }
    }
}
