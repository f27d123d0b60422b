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
}
