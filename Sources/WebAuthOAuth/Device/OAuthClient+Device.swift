// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension OAuthClient {
    /// The longest `expires_in` taken from a device authorization response (a day); a larger
    /// one is taken as this.
    static let longestDeviceCodeLifetime: TimeInterval = 86_400

    /// The grant type of device-code polls.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Starts the device authorization grant (RFC 8628 §3.1): for machines with no browser.
    /// Show the person ``DeviceAuthorization/verificationURI`` and
    /// ``DeviceAuthorization/userCode``, then call ``pollDeviceAuthorization(_:)``.
    ///
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when the provider has no device
    ///   authorization endpoint; server and transport errors.
    public func startDeviceAuthorization() async throws(OAuthError) -> DeviceAuthorization {
        let endpoint = try await requiredEndpoint(\.deviceAuthorizationEndpoint, name: "device authorization")
        var parameters: [(String, String)] = []
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        let response: DeviceAuthorizationResponse = try await endpoints.postForm(
            parameters, to: endpoint, endpoint: .deviceAuthorization, authentication: try await clientAuthentication())
        // The user code is shown to the person as it is: it must be plain, printable text.
        guard !response.userCode.isEmpty, response.userCode.count <= 64,
            response.userCode.unicodeScalars.allSatisfy(UntrustedText.isShowable)
        else {
            throw OAuthError(
                code: .invalidResponse, message: "the device authorization's user code is not printable text")
        }
        for url in [response.verificationURI] + (response.verificationURIComplete.map { [$0] } ?? []) {
            do {
                try EndpointPolicy.check(url, role: "verification URI")
            } catch {
                throw OAuthError(code: .invalidResponse, message: error.message)
            }
        }
        let lifetime = try ProviderNumbers.seconds(
            response.expiresIn, field: "device expires_in", within: 0...Self.longestDeviceCodeLifetime)
        let interval = try ProviderNumbers.seconds(
            response.interval ?? 5, field: "interval", within: 0...DevicePolling.maximumInterval.timeInterval)
        return DeviceAuthorization(
            deviceCode: response.deviceCode, userCode: response.userCode, verificationURI: response.verificationURI,
            verificationURIComplete: response.verificationURIComplete,
            expiresAt: clock.now().addingTimeInterval(lifetime),
            interval: .milliseconds(Int64((interval * 1000).rounded())))
    }

    /// Polls the token endpoint until the person approves, denies, or the code expires,
    /// honouring `interval` and `slow_down` (RFC 8628 §3.4, §3.5). Cancel the task to stop.
    ///
    /// - Throws: ``OAuthError/Code/deviceCodeExpired``; ``OAuthError/Code/server`` with
    ///   ``OAuthServerError/Code/accessDenied`` when the person refused; `CancellationError` is
    ///   reported as ``OAuthError/Code/session`` with a program cancellation.
    public func pollDeviceAuthorization(_ authorization: DeviceAuthorization) async throws(OAuthError) -> TokenSet {
        let tokenEndpoint = try await requiredEndpoint(\.tokenEndpoint, name: "token")
        let dpop = try await dpopProofing(for: nil)
        var polling = DevicePolling(interval: authorization.interval, expiresAt: authorization.expiresAt)
        var step = polling.start(now: clock.now())
        var lastServerError: OAuthServerError?
        while case .wait(let interval) = step {
            do {
                try await clock.sleep(interval)
            } catch {
                throw OAuthError(
                    code: .session, message: "device authorization cancelled",
                    sessionError: WebAuthenticationSessionError(
                        code: .canceledLogin, message: "polling cancelled", cancellationReason: .program))
            }
            do {
                let response: TokenResponse = try await endpoints.postForm(
                    [("grant_type", Self.deviceCodeGrantType), ("device_code", authorization.deviceCode)],
                    to: tokenEndpoint, endpoint: .token, authentication: try await clientAuthentication(), dpop: dpop)
                return try await tokenSet(from: response, nonce: nil, original: nil, previous: nil, dpop: dpop)
            } catch {
                let answer: DevicePolling.Answer =
                    switch (error.code, error.serverError?.code) {
                    case (.server, .authorizationPending?): .pending
                    case (.server, .slowDown?): .slowDown
                    case (.server, .expiredToken?): .expired
                    case (.server, .accessDenied?): .denied
                    case (.timedOut, _): .timedOut
                    default: .failed
                    }
                step = polling.next(after: answer, now: clock.now())
                if step == .deny || step == .fail { throw error }
                lastServerError = error.serverError
            }
        }
        throw OAuthError(
            code: .deviceCodeExpired, message: "the device code expired before it was approved",
            serverError: lastServerError)
    }
}
