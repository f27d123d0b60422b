// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuth
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform

/// `webauth login --register` and `webauth logout --unregister`: dynamic client registration
/// (RFC 7591) before a sign-in, and its deletion (RFC 7592) when the profile signs out.
enum LoginRegistration {
    /// The client ID the options are checked with before the provider has given the real one.
    static let placeholderClientID = "webauth-registering"

    /// The `client_name` registered.
    static let clientName = "webauth"

    /// The device flow's grant type (RFC 8628 §3.4).
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Registers a native client for `base` (its issuer, scopes, redirect URI and client key)
    /// that authenticates with `method` (`nil`: `none`, a public client), and returns the
    /// registration with the configuration that signs in with it. `device` adds the device
    /// flow's grant type (RFC 8628), for a sign-in with `--device`.
    static func register(
        _ base: ClientConfiguration, method: ClientAuthenticationMethod? = nil, bound: URL? = nil,
        device: Bool = false, initialAccessToken: String?, logger: Logger
    ) async throws -> (ClientRegistration, ClientConfiguration) {
        guard let issuer = base.issuer else {
            throw CommandFailure(
                status: ExitStatus.usage, code: "noIssuer", message: "--register needs the provider's --issuer")
        }
        let registrar = ClientRegistrar(issuer: issuer, logger: logger)
        var request = ClientRegistrationRequest(
            redirectURIs: redirectURIs(configured: base.redirectURI, bound: bound), clientName: clientName,
            tokenEndpointAuthMethod: method ?? .none, scopes: base.scopes)
        if device { request.grantTypes.append(deviceCodeGrantType) }
        if request.tokenEndpointAuthMethod == .privateKeyJWT, let file = base.clientKeyFile {
            do {
                request.publicKeys = [try ClientAssertionKey.load(from: file).publicJWK]
            } catch {
                throw CommandFailure.from(error, profile: "", action: "client registration")
            }
        }
        var registration: ClientRegistration
        do {
            registration = try await registrar.register(request, initialAccessToken: initialAccessToken)
        } catch {
            throw failure(error, issuer: issuer)
        }
        // Kept with the profile: the URIs the client may return to, as registered.
        if registration.redirectURIs.isEmpty { registration.redirectURIs = request.redirectURIs }
        do {
            var configuration = try registration.configuration(from: base)
            // Later sign-ins listen on the registered port first.
            if let bound { configuration.redirectURI = bound }
            if method == nil, registration.tokenEndpointAuthMethod == nil, registration.clientSecret != nil {
                // The answer leaves the way to send the secret to this program.
                let supported = try? await OAuthClient(configuration: configuration, logger: logger).metadata()
                if let chosen = secretMethod(supported: supported?.tokenEndpointAuthMethodsSupported) {
                    configuration.clientAuthentication = chosen
                    logger.debug(
                        """
                        the registration leaves the way to send the client secret open: sending it with \
                        client_secret_post, which the provider lists, rather than client_secret_basic, whose \
                        encoding (RFC 6749 §2.3.1) some providers read wrongly
                        """)
                }
            }
            return (registration, configuration)
        } catch {
            // The provider registered a client this program cannot use: take it back, or name it.
            let shown = UntrustedText(registration.clientID).displayed(limit: 100)
            var failure = failure(error, issuer: issuer)
            if (try? await registrar.delete(registration)) != nil {
                failure.message += "; client \(shown) was deleted at the provider"
            } else {
                failure.message += "; the provider made client \(shown): have the provider's administrator delete it"
            }
            throw failure
        }
    }

    /// The loopback listener a browser sign-in with `base` will use, bound now so that its
    /// redirect URI (port included) can be registered; `nil` for the device flow and a redirect
    /// URI that is not loopback.
    static func bindListener(for base: ClientConfiguration, device: Bool) async throws -> BoundLoopbackReceiver? {
        guard !device, let callback = try? Callback(redirectURI: base.redirectURI), callback.isLoopback else {
            return nil
        }
        do {
            return try await BoundLoopbackReceiver.bind(callback)
        } catch {
            throw CommandFailure(
                status: ExitStatus.status(for: error), code: error.code.description, message: error.message)
        }
    }

    /// The redirect URIs to register: the configured one, and the bound listener's, with its
    /// port, for providers that match redirect URIs exactly.
    static func redirectURIs(configured: URL, bound: URL?) -> [URL] {
        guard let bound, bound != configured else { return [configured] }
        return [configured, bound]
    }

    /// How to send a registered secret when the registration answer leaves the choice to this
    /// program: `client_secret_post` when the provider lists it (`supported`); `nil` for RFC
    /// 7591's default, `client_secret_basic`.
    ///
    /// `client_secret_basic` form-encodes the client ID and secret and then Base64-encodes the
    /// pair (RFC 6749 §2.3.1), and providers read that wrongly: LemonLDAP::NG neither
    /// form-decodes the pair nor reads a Base64 `+`, `/` or `=`, so it refuses most clients it
    /// registered itself. `client_secret_post` sends the secret as one more form field.
    static func secretMethod(supported: [String]?) -> ClientAuthenticationMethod? {
        guard supported?.contains(ClientAuthenticationMethod.clientSecretPost.rawValue) == true else { return nil }
        return .clientSecretPost
    }

    /// Deletes `registration` at the provider, best effort: after a sign-in with a freshly
    /// registered client failed, so that no unused client is left behind. Returns whether the
    /// provider deleted it.
    @discardableResult
    static func withdraw(_ registration: ClientRegistration, issuer: URL?, logger: Logger) async -> Bool {
        guard registration.isManageable, let issuer = issuer ?? registration.registrationEndpoint else { return false }
        return (try? await ClientRegistrar(issuer: issuer, logger: logger).delete(registration)) != nil
    }

    /// The failure for a freshly registered public client (`none`, no secret) that the
    /// provider then refuses for want of client authentication — a `401` or `403`, or
    /// `invalid_client` — as a provider does that keeps such a client as a confidential one
    /// (glewlwyd 2.7): `nil` for any other failure.
    static func refusedAsConfidential(
        _ error: any Error, registration: ClientRegistration, withdrawn: Bool
    ) -> CommandFailure? {
        guard registration.clientSecret == nil,
            (registration.tokenEndpointAuthMethod ?? ClientAuthenticationMethod.none)
                == ClientAuthenticationMethod.none,
            let error = error as? OAuthError
        else { return nil }
        let refusal: String
        switch (error.code, error.serverError?.code, error.httpStatus) {
        case (.server, .invalidClient?, _), (.server, .unauthorizedClient?, _):
            refusal = error.serverError.map { "\($0.code)" } ?? "invalid_client"
        case (.unexpectedStatus, _, let status?) where status == 401 || status == 403:
            refusal = "HTTP \(status)"
        default:
            return nil
        }
        let shown = UntrustedText(registration.clientID).displayed(limit: 100)
        return CommandFailure(
            status: ExitStatus.providerRefused, code: "registeredClientRefused",
            message: "the provider registered client \(shown) as a public client (token_endpoint_auth_method none, "
                + "no secret) and then refused it (\(refusal)): it keeps such a client as a confidential one, "
                + "with no secret to authenticate with"
                + (withdrawn
                    ? "; the client was deleted at the provider" : "; have the provider's administrator delete it"),
            fix:
                "register a confidential client instead: webauth login --register --register-auth client_secret_basic …"
        )
    }

    /// What `login --register` says when registering fails: why, and what to do.
    static func failure(_ error: OAuthError, issuer: URL) -> CommandFailure {
        let provider = UntrustedText(issuer.absoluteString).displayed(limit: 200)
        switch error.code {
        case .endpointUnavailable:
            return CommandFailure(
                status: ExitStatus.invalidInput, code: "registrationUnavailable",
                message: "\(provider) offers no dynamic client registration (no registration_endpoint in its metadata)",
                fix: "register a client with the provider's administrator, then sign in with --client-id")
        case .initialAccessTokenRequired:
            return CommandFailure(
                status: ExitStatus.providerRefused, code: error.code.rawValue,
                message: "\(provider) registers clients only with an initial access token",
                fix: "ask the provider's administrator for one and give it with --initial-access-token-file FILE")
        case .initialAccessTokenRefused:
            return CommandFailure(
                status: ExitStatus.providerRefused, code: error.code.rawValue,
                message: "\(provider) refused the initial access token",
                fix: "it may have expired or been used already; ask the provider's administrator for a new one")
        case .server where error.serverError?.code == .invalidRedirectURI:
            let detail = error.serverError?.safeDescription.map { ": \($0)" } ?? ""
            return CommandFailure(
                status: ExitStatus.providerRefused, code: "invalid_redirect_uri",
                message: "the provider refused to register the redirect URI\(detail)",
                fix: "give one it accepts with --redirect-uri, such as http://127.0.0.1:PORT/callback")
        case .server where error.serverError?.code == .invalidClientMetadata:
            let detail = error.serverError?.safeDescription.map { ": \($0)" } ?? ""
            return CommandFailure(
                status: ExitStatus.providerRefused, code: "invalid_client_metadata",
                message: "the provider refused to register a native public client\(detail)",
                fix: "register a client with the provider's administrator, then sign in with --client-id")
        default:
            return CommandFailure.from(error, profile: "", action: "client registration")
        }
    }

    // MARK: The initial access token

    /// The initial access token in `file` (`-`: one line of standard input), or `nil` without
    /// a file. The file must be this user's and neither group nor others may reach it (the
    /// rule for a `--config` file with a secret); surrounding whitespace is dropped.
    static func initialAccessToken(file: String?, terminal: TerminalOutput) throws -> String? {
        guard let file else { return nil }
        let token: String
        if file == "-" {
            let interactive = Terminal.isTerminal(Descriptor.standardInput)
            if interactive { terminal.line("Initial access token (not shown): ") }
            token = LoginSecret.readLine(from: Descriptor.standardInput, hidingInput: interactive) ?? ""
        } else {
            token = try readPrivateFile(file)
        }
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw CommandFailure(
                status: ExitStatus.usage, code: "noInitialAccessToken",
                message: "no initial access token in \(file == "-" ? "standard input" : shown(file))")
        }
        return trimmed
    }

    private static func shown(_ path: String) -> String { UntrustedText(path).displayed(limit: 200) }

    private static func readPrivateFile(_ path: String) throws -> String {
        func refused(_ message: String, fix: String? = nil) -> CommandFailure {
            CommandFailure(status: ExitStatus.usage, code: "initialAccessTokenFile", message: message, fix: fix)
        }
        // Read through one descriptor, so the file checked is the file read.
        guard let descriptor = try? Descriptor.open(path, .read) else { throw refused("cannot read \(shown(path))") }
        defer { Descriptor.close(descriptor) }
        guard let info = try? Descriptor.status(descriptor) else { throw refused("cannot read \(shown(path))") }
        if info.owner != CurrentProcess.effectiveUserID {
            throw refused(
                "\(shown(path)) holds an initial access token but belongs to user \(info.owner), not to you",
                fix: "use a copy of your own, mode 600")
        }
        guard info.permissions & 0o077 == 0 else {
            throw refused(
                "\(shown(path)) holds an initial access token but its mode is 0\(String(info.permissions, radix: 8)), "
                    + "so others can reach it", fix: "run: chmod 600 '\(shown(path))'")
        }
        guard let bytes = try? Descriptor.readAll(descriptor, limit: 64 * 1024) else {
            throw refused("cannot read \(shown(path)) (at most 64 KiB)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
