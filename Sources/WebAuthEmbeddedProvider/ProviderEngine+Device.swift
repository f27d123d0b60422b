// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

/// The device authorization response (RFC 8628 §3.2).
struct DeviceAuthorizationBody: Encodable {
    var deviceCode: String
    var userCode: String
    var verificationURI: String
    var verificationURIComplete: String
    var expiresIn: Int
    var interval: Int

    private enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }
}

extension ProviderEngine {
    // MARK: - POST /device_authorization

    func deviceAuthorization(_ request: ServerRequest) -> Answer {
        let (client, form): (EmbeddedProvider.Client, [(name: String, value: String)])
        switch checkClientPost(request) {
        case .rejected(let answer): return answer
        case .accepted(let post): (client, form) = (post.client, post.form)
        }
        let requested = form.first { $0.name == "scope" }?.value ?? ""
        var scopes: [String] = []
        for scope in requested.split(separator: " ").map(String.init) where !scopes.contains(scope) {
            guard client.allowedScopes.contains(scope) else {
                let shown = scope.isSafeProtocolToken ? "'\(scope)'" : "a requested scope"
                return errorAnswer(
                    ProtocolError(code: "invalid_scope", description: "\(shown) is not allowed for this client"))
            }
            scopes.append(scope)
        }

        let now = clock.now()
        let approver = forgeries.withLock { $0.deviceApprover }
        let deviceCode = ProviderSecrets.randomToken()
        let interval = Int(configuration.devicePollingInterval.components.seconds)
        let lifetime = configuration.deviceCodeLifetime
        let userCode = state.withLock { state in
            // A user code no live device authorization has (collisions are rare: 20⁸ codes).
            var userCode = ProviderSecrets.userCode()
            while state.devices.first(now: now, where: { $0.userCode == userCode }) != nil {
                userCode = ProviderSecrets.userCode()
            }
            state.devices.insert(
                DeviceGrant(
                    clientID: client.id, scopes: scopes, userCode: userCode, interval: interval, lastPolledAt: now,
                    status: approver.map {
                        .approved(TokenGrant(clientID: client.id, subject: $0, scopes: scopes, authenticatedAt: now))
                    } ?? .pending),
                for: ProviderSecrets.digest(deviceCode), expiresAt: now.adding(lifetime), now: now)
            return userCode
        }
        let verificationURI = issuer + EmbeddedProvider.Endpoint.deviceVerification.path
        var response = ProviderHTTP.json(
            DeviceAuthorizationBody(
                deviceCode: deviceCode, userCode: userCode, verificationURI: verificationURI,
                verificationURIComplete: ProviderHTTP.location(verificationURI, adding: [("user_code", userCode)]),
                expiresIn: Int(lifetime.components.seconds), interval: interval))
        if let members = forgeries.withLock({ $0.deviceAuthorizationMembers }) {
            response = ProviderHTTP.changingMembers(of: response, to: members)
        }
        return Answer(response)
    }

    // MARK: - GET and POST /device

    /// The verification page: `GET` shows the code entry form (prefilled from `user_code`),
    /// `POST` checks the code and continues to the login form or the approval page.
    func deviceVerification(_ request: ServerRequest) -> Answer {
        let now = clock.now()
        let cookie = ProviderHTTP.cookie(ProviderHTTP.browserCookieName, in: request)
        switch request.method {
        case "GET":
            let typed = ProviderHTTP.queryParameters(request).first { $0.name == "user_code" }?.value
            return state.withLock { state in
                var cookies: HTTPFields = [:]
                let browser = Self.browserKey(cookie: cookie, in: &state, now: now, setting: &cookies)
                return deviceEntryPage(
                    browser: browser, state: state, userCode: typed.map { String($0.prefix(32)) }, message: nil,
                    cookies: cookies)
            }
        case "POST":
            guard let form = ProviderHTTP.formParameters(request) else {
                return problemPage(PageProblem(title: "Invalid request", message: "The code was not sent as a form."))
            }
            let fields = Self.singleValues(form)
            return state.withLock { state in
                let browser: String
                switch Self.postingBrowser(fields, cookie: cookie, state: state, now: now) {
                case .failure(let problem): return problemPage(problem)
                case .success(let found): browser = found
                }
                let typed = fields["user_code"] ?? ""
                guard let userCode = ProviderSecrets.normalizedUserCode(typed),
                    let (deviceKey, device) = state.devices.first(now: now, where: { $0.userCode == userCode }),
                    case .pending = device.status
                else {
                    return deviceEntryPage(
                        browser: browser, state: state, userCode: String(typed.prefix(32)),
                        message: "That code is not valid, or it has expired.", cookies: [:])
                }
                if let signIn = state.signIn(browser: browser, now: now) {
                    let transaction = Self.startPending(
                        .device(deviceKey: deviceKey), clientID: device.clientID, scopes: device.scopes,
                        browser: browser,
                        stage: .consent(subject: signIn.subject, authenticatedAt: signIn.authenticatedAt),
                        in: &state, now: now)
                    return consentPage(
                        clientID: device.clientID, subject: signIn.subject, scopes: device.scopes,
                        transaction: transaction, browser: browser, state: state, isDevice: true, cookies: [:])
                }
                let transaction = Self.startPending(
                    .device(deviceKey: deviceKey), clientID: device.clientID, scopes: device.scopes, browser: browser,
                    stage: .login, in: &state, now: now)
                return loginPage(
                    clientID: device.clientID, transaction: transaction, browser: browser, state: state,
                    username: nil, message: nil, cookies: [:])
            }
        default:
            return Answer(ProviderHTTP.methodNotAllowed(["GET", "POST"]))
        }
    }

    private func deviceEntryPage(
        browser: String, state: ProviderState, userCode: String?, message: String?,
        cookies: HTTPFields
    ) -> Answer {
        let html = ProviderPages.deviceEntry(
            providerName: configuration.displayName,
            context: .init(transaction: nil, csrfToken: state.csrfToken(forBrowser: browser)), userCode: userCode,
            message: message)
        return Answer(ProviderHTTP.page(html, cookies: cookies))
    }
}
