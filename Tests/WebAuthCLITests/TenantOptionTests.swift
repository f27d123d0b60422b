// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Testing
import WebAuthOAuth

@testable import WebAuthCLI

/// `--tenant`: the allowed tenants of a multi-tenant issuer, and for `--preset microsoft` also
/// the tenant in the issuer.
@Suite("webauth login --tenant")
struct TenantOptionTests {
    private func configuration(_ arguments: [String]) throws -> ClientConfiguration {
        try LoginOptions.parse(["--client-id", "app"] + arguments).clientConfiguration(secret: nil)
    }

    @Test func withAnIssuerTheTenantsAreTheAllowList() throws {
        let configuration = try configuration([
            "--issuer", "https://login.example.com/common/v2.0", "--tenant", "t1", "--tenant", "t2",
        ])
        #expect(configuration.allowedTenants == ["t1", "t2"])
        #expect(try self.configuration(["--issuer", "https://login.example.com"]).allowedTenants == nil)
    }

    @Test func withTheMicrosoftPresetOneTenantIsThatTenantAlone() throws {
        let configuration = try configuration(["--preset", "microsoft", "--tenant", "0f1e2d3c-contoso"])
        #expect(configuration.issuer?.absoluteString == "https://login.microsoftonline.com/0f1e2d3c-contoso/v2.0")
        #expect(configuration.allowedTenants == nil)
    }

    @Test func withTheMicrosoftPresetAnAliasNamesTheIssuerAndTheRestAreAllowed() throws {
        let anyone = try configuration(["--preset", "microsoft", "--tenant", "organizations"])
        #expect(anyone.issuer?.absoluteString == "https://login.microsoftonline.com/organizations/v2.0")
        #expect(anyone.allowedTenants == nil)
        let two = try configuration(["--preset", "microsoft", "--tenant", "t1", "--tenant", "common", "--tenant", "t2"])
        #expect(two.issuer?.absoluteString == "https://login.microsoftonline.com/common/v2.0")
        #expect(two.allowedTenants == ["t1", "t2"])
        let several = try configuration(["--preset", "microsoft", "--tenant", "t1", "--tenant", "t2"])
        #expect(several.issuer?.absoluteString == "https://login.microsoftonline.com/common/v2.0")
        #expect(several.allowedTenants == ["t1", "t2"])
    }

    @Test func contradictionsAreRefused() throws {
        #expect(throws: (any Error).self) {
            try configuration(["--preset", "microsoft", "--tenant", "common", "--tenant", "consumers"])
        }
        #expect(throws: (any Error).self) { try configuration(["--preset", "github", "--tenant", "t1"]) }
        #expect(throws: (any Error).self) { try configuration(["--preset", "microsoft"]) }
        #expect(throws: (any Error).self) { try configuration(["--preset", "microsoft", "--tenant", "a/b"]) }
    }
}
