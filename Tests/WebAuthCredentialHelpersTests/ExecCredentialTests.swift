// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCredentialHelpers

@Suite("client-go's exec credential")
struct ExecCredentialTests {
    @Test func theRequestIsReadFromKubernetesExecInfo() throws {
        let v1 = try ExecCredentialRequest(
            execInfo:
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true,"cluster":{"server":"https://127.0.0.1:6443"}}}"#
        )
        #expect(
            v1 == ExecCredentialRequest(apiVersion: .v1, interactive: true, clusterServer: "https://127.0.0.1:6443"))
        let beta = try ExecCredentialRequest(
            execInfo: #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#)
        #expect(beta == ExecCredentialRequest(apiVersion: .v1beta1, interactive: false))
    }

    @Test func noExecInfoMeansV1Beta1AndNotInteractive() throws {
        #expect(
            try ExecCredentialRequest(execInfo: nil) == ExecCredentialRequest(apiVersion: .v1beta1, interactive: false))
        #expect(
            try ExecCredentialRequest(execInfo: "") == ExecCredentialRequest(apiVersion: .v1beta1, interactive: false))
    }

    @Test(arguments: [
        ("not json", CredentialHelperError.Code.malformedExecInfo),
        (#"["ExecCredential"]"#, .malformedExecInfo),
        (#"{"kind":"Pod","apiVersion":"client.authentication.k8s.io/v1"}"#, .malformedExecInfo),
        (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1"}"#, .unsupportedAPIVersion),
        (#"{"kind":"ExecCredential"}"#, .unsupportedAPIVersion),
    ])
    func badExecInfoIsRefusedWithATypedError(execInfo: String, code: CredentialHelperError.Code) {
        do {
            _ = try ExecCredentialRequest(execInfo: execInfo)
            Issue.record("accepted \(execInfo)")
        } catch {
            #expect(error.code == code)
        }
    }

    @Test(arguments: ExecCredentialAPIVersion.allCases)
    func theCredentialIsWrittenInTheVersionAsked(version: ExecCredentialAPIVersion) throws {
        let credential = ExecCredential(
            apiVersion: version, token: "eyJ.a/b+c\"d", expiration: Date(timeIntervalSince1970: 1_795_467_600.9))
        let bytes = try credential.encoded()
        #expect(bytes.last == UInt8(ascii: "\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["kind"] as? String == "ExecCredential")
        #expect(object["apiVersion"] as? String == version.rawValue)
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["token"] as? String == "eyJ.a/b+c\"d")
        #expect(status["expirationTimestamp"] as? String == "2026-11-23T21:00:00Z")
    }

    @Test func withoutAnExpiryNoTimestampIsWritten() throws {
        let bytes = try ExecCredential(apiVersion: .v1, token: "t", expiration: nil).encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["expirationTimestamp"] == nil)
    }

    @Test func unknownKeysAreSkippedWhereverTheyAre() throws {
        let request = try ExecCredentialRequest(
            execInfo:
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":null,"#
                + #""cluster":{"server":"https://[fd00::1]:6443","certificate-authority-data":"LS0t","#
                + #""config":{"a":[1,-2.5e3,true,null,{"b":"\u00e9"}]},"insecure-skip-tls-verify":false}},"#
                + #""status":null}"#)
        #expect(
            request
                == ExecCredentialRequest(apiVersion: .v1, interactive: false, clusterServer: "https://[fd00::1]:6443"))
    }

    /// Read strictly, by both programs alike: what is not plainly one `ExecCredential` is refused.
    @Test(arguments: [
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","apiVersion":"x"}"#,
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":1}}"#,
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"} trailing"#,
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","x":"#
            + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
    ])
    func doubtfulExecInfoIsRefused(execInfo: String) {
        #expect(throws: CredentialHelperError.self) { try ExecCredentialRequest(execInfo: execInfo) }
    }

    /// Written directly, the credential is byte for byte what `JSONEncoder` writes.
    @Test func theCredentialIsWhatJSONEncoderWrites() throws {
        struct Output: Encodable {
            struct Status: Encodable {
                var token: String
                var expirationTimestamp: String?
            }
            var kind = "ExecCredential"
            var apiVersion: String
            var spec: [String: String] = [:]
            var status: Status
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for expiration in [nil, Date(timeIntervalSince1970: 1_795_467_600.9), Date(timeIntervalSince1970: 0)] {
            for token in ["eyJ.a/b+c\"d", "t\u{1}\\é"] {
                let credential = ExecCredential(apiVersion: .v1, token: token, expiration: expiration)
                let expected = Output(
                    apiVersion: ExecCredentialAPIVersion.v1.rawValue,
                    status: .init(
                        token: token,
                        expirationTimestamp: expiration.map {
                            Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
                        }))
                #expect(try credential.encoded() == Array(try encoder.encode(expected)) + [UInt8(ascii: "\n")])
            }
        }
    }

    @Test func anExpirationBefore1970IsNotWritten() {
        let credential = ExecCredential(apiVersion: .v1, token: "t", expiration: Date(timeIntervalSince1970: -1))
        #expect(throws: CredentialHelperError.self) { try credential.encoded() }
    }
}
