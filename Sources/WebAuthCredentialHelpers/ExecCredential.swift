// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
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
    /// The JSON is read strictly and without Foundation (the fast path reads it too): keys
    /// other than `kind`, `apiVersion` and `spec`'s `interactive` and `cluster.server` are
    /// skipped, but must be well-formed; a key given twice, or nesting deeper than 32, is
    /// refused.
    ///
    /// - Throws: ``CredentialHelperError/Code-swift.struct/malformedExecInfo`` when it is not an
    ///   `ExecCredential` object, ``CredentialHelperError/Code-swift.struct/unsupportedAPIVersion``
    ///   for another `apiVersion`.
    public init(execInfo: String?) throws(CredentialHelperError) {
        guard var execInfo, !execInfo.isEmpty else {
            self.init(apiVersion: .v1beta1, interactive: false)
            return
        }
        var kind: String??
        var apiVersion: String??
        var interactive: Bool??
        var server: String??
        let read = execInfo.withUTF8 { bytes -> Bool in
            var reader = CachedEntryReader.Reader(bytes: bytes)
            let read = reader.object { reader, key in
                switch key {
                case "kind":
                    kind = reader.optionalString()
                    return kind != nil
                case "apiVersion":
                    apiVersion = reader.optionalString()
                    return apiVersion != nil
                case "spec":
                    if reader.null() { return true }
                    return reader.object { reader, key in
                        switch key {
                        case "interactive":
                            interactive = reader.optional { $0.bool() }
                            return interactive != nil
                        case "cluster":
                            if reader.null() { return true }
                            return reader.object { reader, key in
                                guard key == "server" else { return reader.skipValue(depth: 3) }
                                server = reader.optionalString()
                                return server != nil
                            }
                        default:
                            return reader.skipValue(depth: 2)
                        }
                    }
                default:
                    return reader.skipValue(depth: 1)
                }
            }
            return read && reader.atEnd()
        }
        guard read else {
            throw CredentialHelperError(.malformedExecInfo, "KUBERNETES_EXEC_INFO is not an ExecCredential in JSON")
        }
        guard (kind ?? nil) == nil || (kind ?? nil) == "ExecCredential" else {
            throw CredentialHelperError(.malformedExecInfo, "KUBERNETES_EXEC_INFO is not of kind ExecCredential")
        }
        guard let name = apiVersion ?? nil, let version = ExecCredentialAPIVersion(rawValue: name) else {
            let known = ExecCredentialAPIVersion.allCases.map(\.rawValue).joined(separator: " or ")
            throw CredentialHelperError(
                .unsupportedAPIVersion, "KUBERNETES_EXEC_INFO asks for an apiVersion other than \(known)")
        }
        self.init(apiVersion: version, interactive: (interactive ?? nil) ?? false, clusterServer: server ?? nil)
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
    /// Written directly (keys sorted, `/` not escaped, as `JSONEncoder` would write it), so
    /// that the fast path's program carries no JSON encoder.
    ///
    /// - Throws: ``CredentialHelperError/Code-swift.struct/unencodableValue`` for an expiration
    ///   before 1970 or after year 99999.
    public func encoded() throws(CredentialHelperError) -> [UInt8] {
        var status = ""
        if let expiration {
            let seconds = expiration.timeIntervalSince1970.rounded(.down)
            guard let whole = Int64(exactly: seconds), let timestamp = JSONText.timestamp(secondsSince1970: whole)
            else {
                throw CredentialHelperError(.unencodableValue, "the credential's expiration cannot be written")
            }
            status += #""expirationTimestamp":"# + JSONText.quoted(timestamp) + ","
        }
        status += #""token":"# + JSONText.quoted(token)
        let json =
            #"{"apiVersion":"# + JSONText.quoted(apiVersion.rawValue)
            + #","kind":"ExecCredential","spec":{},"status":{"#
            + status + "}}\n"
        return Array(json.utf8)
    }
}
