// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension EmbeddedProvider {
    /// The shape of a multi-tenant provider, as Microsoft's identity platform has it: clients
    /// are configured with an alias issuer (`{issuer}/common/v2.0`), whose discovery document
    /// names the issuer template `{issuer}/{tenantid}/v2.0`; each ID token carries the person's
    /// tenant in `tid` and that tenant's issuer in `iss`, and so does an authorization
    /// response's `iss`.
    ///
    /// ```swift
    /// var configuration = EmbeddedProvider.Configuration()
    /// configuration.multiTenant = .init(alias: "organizations", tenant: "tenant-a")
    /// let provider = try await EmbeddedProvider.start(configuration)
    /// let client = ClientConfiguration(issuer: provider.multiTenantIssuer, clientID: "…", scopes: ["openid"])
    /// ```
    ///
    /// ``overrideIDTokenClaims(_:)`` makes tokens that do not fit: an `iss` of another tenant
    /// than `tid`, `tid` left out (`removedClaims: ["tid"]`), or another tenant altogether.
    public struct MultiTenant: Sendable, Hashable {
        /// The path segment clients put in the issuer, such as `common`.
        public var alias: String
        /// The tenant every person signing in belongs to: `tid`, and the segment of `iss`.
        public var tenant: String

        /// Creates the shape.
        public init(alias: String = "common", tenant: String) {
            self.alias = alias
            self.tenant = tenant
        }

        /// The issuer of `segment` (the alias, `{tenantid}` or a tenant) under `base`.
        func issuer(_ base: String, _ segment: String) -> String { "\(base)/\(segment)/v2.0" }

        /// The discovery document's path under the alias issuer.
        var discoveryPath: String { "/\(alias)/v2.0" + Endpoint.openIDConfiguration.path }

        /// Whether `segment` can be a path segment of an issuer.
        static func isSegment(_ segment: String) -> Bool {
            !segment.isEmpty && segment != "." && segment != ".."
                && segment.unicodeScalars.allSatisfy {
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._".unicodeScalars.contains($0))
                }
        }
    }

    /// For a ``Configuration/multiTenant`` provider: the issuer clients are configured with,
    /// `{issuer}/{alias}/v2.0`; `nil` otherwise.
    public var multiTenantIssuer: URL? {
        configuration.multiTenant.flatMap { URL(string: $0.issuer(issuer.absoluteString, $0.alias)) }
    }
}

extension ProviderEngine {
    /// The issuer ID tokens and authorization responses name: the tenant's, for a multi-tenant
    /// provider.
    var tokenIssuer: String {
        configuration.multiTenant.map { $0.issuer(issuer, $0.tenant) } ?? issuer
    }

    /// The issuer the discovery document names: the template, for a multi-tenant provider.
    var metadataIssuer: String {
        configuration.multiTenant.map { $0.issuer(issuer, "{tenantid}") } ?? issuer
    }

    /// The endpoint at `path`, the alias issuer's discovery document included.
    func endpoint(at path: String) -> EmbeddedProvider.Endpoint? {
        if let multiTenant = configuration.multiTenant, path == multiTenant.discoveryPath {
            return .openIDConfiguration
        }
        if path.hasPrefix(EmbeddedProvider.Endpoint.registration.path + "/") { return .registration }
        return EmbeddedProvider.Endpoint(rawValue: path)
    }
}
