// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `client.authentication.k8s.io` API versions of an `ExecCredential` this helper speaks.
public enum ExecCredentialAPIVersion: String, Sendable, CaseIterable, Codable {
    /// `client.authentication.k8s.io/v1`.
    case v1 = "client.authentication.k8s.io/v1"
    /// `client.authentication.k8s.io/v1beta1`.
    case v1beta1 = "client.authentication.k8s.io/v1beta1"
}

/// What client-go (kubectl, the Kubernetes client libraries) asks an exec credential plugin for,
/// read from the `KUBERNETES_EXEC_INFO` environment variable.
///
/// ```swift
/// let request = try ExecCredentialRequest(execInfo: environment["KUBERNETES_EXEC_INFO"])
/// if request.interactive { /* a sign-in may prompt on the terminal */ }
/// ```
public struct ExecCredentialRequest: Sendable, Hashable {
    /// The API version to answer in.
    public var apiVersion: ExecCredentialAPIVersion
    /// Whether the plugin may interact with the person (client-go's `spec.interactive`: standard
    /// input is a terminal and the kubeconfig's `interactiveMode` allows it).
    public var interactive: Bool
    /// The API server the client asks for a credential for (client-go's `spec.cluster.server`),
    /// sent only when the kubeconfig's exec section sets `provideClusterInfo: true`.
    public var clusterServer: String?

    /// Creates a request.
    public init(apiVersion: ExecCredentialAPIVersion, interactive: Bool, clusterServer: String? = nil) {
        self.apiVersion = apiVersion
        self.interactive = interactive
        self.clusterServer = clusterServer
    }

    /// Reads `KUBERNETES_EXEC_INFO`. When the variable is unset (a client from before it existed),
    /// the request is `v1beta1` and not interactive.
    ///
    /// - Throws: ``CredentialHelperError/Code-swift.struct/malformedExecInfo`` when it is not an
    ///   `ExecCredential` object, ``CredentialHelperError/Code-swift.struct/unsupportedAPIVersion``
    ///   for another `apiVersion`.
    public init(execInfo: String?) throws(CredentialHelperError) {
        guard let execInfo, !execInfo.isEmpty else {
            self.init(apiVersion: .v1beta1, interactive: false)
            return
        }
        struct Info: Decodable {
            struct Spec: Decodable {
                struct Cluster: Decodable { var server: String? }
                var interactive: Bool?
                var cluster: Cluster?
            }
            var kind: String?
            var apiVersion: String?
            var spec: Spec?
        }
        let info: Info
        do {
            info = try JSONDecoder().decode(Info.self, from: Data(execInfo.utf8))
        } catch {
            throw CredentialHelperError(.malformedExecInfo, "KUBERNETES_EXEC_INFO is not an ExecCredential in JSON")
        }
        guard info.kind == nil || info.kind == "ExecCredential" else {
            throw CredentialHelperError(.malformedExecInfo, "KUBERNETES_EXEC_INFO is not of kind ExecCredential")
        }
        guard let name = info.apiVersion, let apiVersion = ExecCredentialAPIVersion(rawValue: name) else {
            let known = ExecCredentialAPIVersion.allCases.map(\.rawValue).joined(separator: " or ")
            throw CredentialHelperError(
                .unsupportedAPIVersion, "KUBERNETES_EXEC_INFO asks for an apiVersion other than \(known)")
        }
        self.init(
            apiVersion: apiVersion, interactive: info.spec?.interactive ?? false,
            clusterServer: info.spec?.cluster?.server)
    }
}

/// The `ExecCredential` an exec credential plugin prints: a bearer token and when it expires.
///
/// ```swift
/// let credential = ExecCredential(apiVersion: request.apiVersion, token: idToken, expiration: expiry)
/// try standardOutput.write(contentsOf: credential.encoded())
/// ```
public struct ExecCredential: Sendable, Hashable {
    /// The API version, the one the request asked for.
    public var apiVersion: ExecCredentialAPIVersion
    /// `status.token`: the bearer token client-go sends.
    public var token: String
    /// `status.expirationTimestamp`: client-go calls the plugin again after it.
    public var expiration: Date?

    /// Creates a credential.
    public init(apiVersion: ExecCredentialAPIVersion, token: String, expiration: Date?) {
        self.apiVersion = apiVersion
        self.token = token
        self.expiration = expiration
    }

    /// The credential as JSON, with a newline: what the plugin writes to standard output.
    public func encoded() throws(CredentialHelperError) -> [UInt8] {
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
        let output = Output(
            apiVersion: apiVersion.rawValue,
            status: .init(token: token, expirationTimestamp: expiration.map(Self.timestamp)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(output) else {
            throw CredentialHelperError(.unencodableValue, "the credential could not be written as JSON")
        }
        return Array(json) + [UInt8(ascii: "\n")]
    }

    /// RFC 3339 in UTC with whole seconds, as Kubernetes writes `metav1.Time`.
    static func timestamp(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }
}
