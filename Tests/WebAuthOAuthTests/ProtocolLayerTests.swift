// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTesting

/// The protocol layer taken alone: a package that depends on the `WebAuthOAuth` product and
/// nothing else (`Tests/Fixtures/protocol-consumer`, built by `scripts/test` with
/// `--product protocol-consumer`) is linked without the I/O stack and gets a token for itself
/// from a real provider.
@Suite("The protocol layer, taken alone by another package", TestFixture.protocolConsumer.required)
struct ProtocolLayerTests {
    static let build = TestFixture.protocolConsumerBuild

    @Test func itsProgramLinksNoServerBrowserOrListener() throws {
        // The objects the consumer's program was linked from, one path per line, each in the
        // `NAME.build/` directory of the module it belongs to.
        let objects = try String(
            contentsOfFile: Self.build + "/debug/protocol-consumer.product/Objects.LinkFileList", encoding: .utf8)
        let modules = Set(
            objects.split(separator: "\n").compactMap { line in
                line.split(separator: "/").last { $0.hasSuffix(".build") && $0 != ".build" }
                    .map { String($0.dropLast(".build".count)) }
            })
        #expect(modules.isSuperset(of: ["WebAuthOAuth", "WebAuthCore", "protocol_consumer"]), "\(modules.sorted())")
        let io: Set = [
            "NIOCore", "NIOPosix", "WebAuth", "WebAuthLoopback", "WebAuthControlledBrowsers", "WebAuthDesktop",
            "WebAuthSystemBrowser", "WebAuthSignIn", "WebAuthEmbeddedProvider",
        ]
        #expect(modules.intersection(io).isEmpty, "the protocol layer brings \(modules.intersection(io).sorted())")
    }

    @Test func itsProgramGetsATokenForItselfFromTheEmbeddedProvider() async throws {
        var configuration = EmbeddedProvider.Configuration()
        var service = EmbeddedProvider.Client(
            id: "billing-service", secret: "service-secret: long & random enough", redirectURIs: [],
            allowedScopes: ["invoices.read"])
        service.allowsClientCredentials = true
        configuration.clients.append(service)
        let provider = try await EmbeddedProvider.start(configuration)
        let directory = FileManager.default.temporaryDirectory.path
        let run: (status: Int32, stdout: String, stderr: String)
        do {
            run = try await CapturedRun.run(
                Self.build + "/debug/protocol-consumer",
                [provider.issuer.absoluteString, "billing-service", "invoices.read"],
                environment: ["CONSUMER_CLIENT_SECRET": "service-secret: long & random enough"], input: nil,
                directory: directory, timeout: .seconds(60))
        } catch {
            await provider.shutdown()
            throw error
        }
        await provider.shutdown()
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "token for billing-service: Bearer, scopes invoices.read\n")
        let tokenRequests = provider.requests(to: .token)
        #expect(tokenRequests.map(\.grantType) == ["client_credentials"])
        #expect(tokenRequests.map(\.status) == [200])
    }
}
