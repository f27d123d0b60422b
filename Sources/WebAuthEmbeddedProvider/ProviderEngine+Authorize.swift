// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

/// What comes next in an authorization once the request is valid, as a pure function of the
/// request's `prompt`, the browser's sign-in and the configuration.
enum AuthorizationFlow {
    enum Step: Sendable, Hashable {
        /// Show the login form.
        case login
        /// Show the consent page for this person.
        case consent(SignIn)
        /// Issue the code for this person at once.
        case complete(SignIn)
        /// Send the client this error (`prompt=none` could not be honoured).
        case fail(ProtocolError)
    }

    /// The step for a new authorization request.
    static func start(prompt: Set<String>, signIn: SignIn?, requiresConsent: Bool) -> Step {
        guard let signIn, !prompt.contains("login") else {
            return prompt.contains("none")
                ? .fail(ProtocolError(code: "login_required", description: "the person is not signed in"))
                : .login
        }
        return afterLogin(prompt: prompt, signIn: signIn, requiresConsent: requiresConsent)
    }

    /// The step once the person is signed in.
    static func afterLogin(prompt: Set<String>, signIn: SignIn, requiresConsent: Bool) -> Step {
        guard requiresConsent || prompt.contains("consent") else { return .complete(signIn) }
        return prompt.contains("none")
            ? .fail(ProtocolError(code: "consent_required", description: "the person must approve this request"))
            : .consent(signIn)
    }
}

extension ProviderEngine {
    // MARK: - GET /authorize

    func authorize(_ request: ServerRequest) -> Answer {
        let parameters: [(name: String, value: String)]
        switch request.method {
        case "GET": parameters = ProviderHTTP.queryParameters(request)
        // OpenID Connect Core §3.1.2.1: the endpoint takes POST forms too.
        case "POST": parameters = ProviderHTTP.formParameters(request) ?? []
        default: return Answer(ProviderHTTP.methodNotAllowed(["GET", "POST"]))
        }
        var authorization: AuthorizationRequest
        if parameters.contains(where: { $0.name == "request_uri" }) {
            switch pushedRequest(parameters, now: clock.now()) {
            case .failure(let problem): return problemPage(problem)
            case .success(let pushed): authorization = pushed
            }
        } else {
            switch AuthorizationRequestCheck.check(parameters, clients: clients) {
            case .refuse(let problem):
                return problemPage(problem)
            case .redirectError(let redirectURI, let state, let error):
                return redirectError(to: redirectURI, state: state, error)
            case .accept(let accepted):
                guard !configuration.requiresPushedAuthorizationRequests else {
                    return redirectError(
                        to: accepted.redirectURI, state: accepted.state,
                        .invalidRequest("this provider requires pushed authorization requests (RFC 9126)"))
                }
                authorization = accepted
            }
        }
        // OpenID Connect Core §11: without prompt=consent, offline access may be left out.
        if configuration.grantsOfflineAccessOnlyWithConsentPrompt, !authorization.prompt.contains("consent") {
            authorization.scopes.removeAll { $0 == "offline_access" }
        }

        let now = clock.now()
        let cookie = ProviderHTTP.cookie(ProviderHTTP.browserCookieName, in: request)
        return state.withLock { state in
            var cookies: HTTPFields = [:]
            let browser = Self.browserKey(cookie: cookie, in: &state, now: now, setting: &cookies)
            let step = AuthorizationFlow.start(
                prompt: authorization.prompt, signIn: state.signIn(browser: browser, now: now),
                requiresConsent: configuration.requiresConsent)
            switch step {
            case .fail(let error):
                return redirectError(
                    to: authorization.redirectURI, state: authorization.state, error, cookies: cookies)
            case .complete(let signIn):
                return issueCode(
                    for: authorization, signIn: signIn, in: &state, now: now, status: 302, cookies: cookies)
            case .login:
                let transaction = Self.startPending(
                    .authorization(authorization), clientID: authorization.clientID, scopes: authorization.scopes,
                    browser: browser, stage: .login, in: &state, now: now)
                return loginPage(
                    clientID: authorization.clientID, transaction: transaction, browser: browser, state: state,
                    username: authorization.loginHint, message: nil, cookies: cookies)
            case .consent(let signIn):
                let transaction = Self.startPending(
                    .authorization(authorization), clientID: authorization.clientID, scopes: authorization.scopes,
                    browser: browser,
                    stage: .consent(subject: signIn.subject, authenticatedAt: signIn.authenticatedAt), in: &state,
                    now: now)
                return consentPage(
                    clientID: authorization.clientID, subject: signIn.subject, scopes: authorization.scopes,
                    transaction: transaction, browser: browser, state: state, isDevice: false, cookies: cookies)
            }
        }
    }

    // MARK: - POST /login

    func login(_ request: ServerRequest) -> Answer {
        continuePendingForm(request, named: "login form") { state, fields, pending, now in
            guard pending.value.stage == .login else {
                return problemPage(
                    PageProblem(title: "Sign-in expired", message: "This sign-in has moved on; start again."))
            }

            let username = fields["username"] ?? ""
            let password = fields["password"] ?? ""
            let user = configuration.user(username: username)
            // Compare even for an unknown username, so the answer takes as long either way.
            let passwordMatches = ProviderSecrets.constantTimeEquals(password, user?.password ?? "\u{0}no user")
            guard let user, passwordMatches else {
                var updated = pending.value
                updated.failedLogins += 1
                guard updated.failedLogins < PendingAuthorization.maximumFailedLogins else {
                    state.pending.remove(pending.key)
                    let error = ProtocolError(code: "access_denied", description: "too many failed sign-in attempts")
                    if case .authorization(let authorization) = pending.value.purpose {
                        return redirectError(
                            to: authorization.redirectURI, state: authorization.state, error, status: 303)
                    }
                    return problemPage(
                        PageProblem(
                            title: "Sign-in failed", message: "Too many failed sign-in attempts. Start again.",
                            status: 403))
                }
                state.pending.update(pending.key) { $0 = updated }
                return loginPage(
                    clientID: pending.value.clientID, transaction: pending.key, browser: pending.browser,
                    state: state, username: username, message: "Wrong username or password.", cookies: [:])
            }

            // A fresh cookie for the signed-in browser (no session fixation).
            let newCookie = ProviderSecrets.randomToken()
            let newBrowser = ProviderSecrets.digest(newCookie)
            let signIn = SignIn(
                subject: user.subject, authenticatedAt: now,
                expiresAt: now.adding(configuration.signInSessionLifetime))
            state.browsers.remove(pending.browser)
            state.browsers.insert(
                BrowserRecord(signIn: signIn), for: newBrowser, expiresAt: signIn.expiresAt, now: now)
            let cookies = HTTPFields([ProviderHTTP.browserCookie(newCookie)])
            state.pending.update(pending.key) { $0.browser = newBrowser }

            switch pending.value.purpose {
            case .device:
                state.pending.update(pending.key) {
                    $0.stage = .consent(subject: signIn.subject, authenticatedAt: signIn.authenticatedAt)
                }
                return consentPage(
                    clientID: pending.value.clientID, subject: signIn.subject, scopes: pending.value.scopes,
                    transaction: pending.key, browser: newBrowser, state: state, isDevice: true, cookies: cookies)
            case .authorization(let authorization):
                switch AuthorizationFlow.afterLogin(
                    prompt: authorization.prompt, signIn: signIn, requiresConsent: configuration.requiresConsent)
                {
                case .consent:
                    state.pending.update(pending.key) {
                        $0.stage = .consent(subject: signIn.subject, authenticatedAt: signIn.authenticatedAt)
                    }
                    return consentPage(
                        clientID: pending.value.clientID, subject: signIn.subject, scopes: pending.value.scopes,
                        transaction: pending.key, browser: newBrowser, state: state, isDevice: false,
                        cookies: cookies)
                case .fail(let error):
                    state.pending.remove(pending.key)
                    return redirectError(
                        to: authorization.redirectURI, state: authorization.state, error, status: 303,
                        cookies: cookies)
                case .complete, .login:
                    state.pending.remove(pending.key)
                    return issueCode(
                        for: authorization, signIn: signIn, in: &state, now: now, status: 303, cookies: cookies)
                }
            }
        }
    }

    // MARK: - POST /consent

    func consent(_ request: ServerRequest) -> Answer {
        continuePendingForm(request, named: "consent form") { state, fields, pending, now in
            guard case .consent(let subject, let authenticatedAt) = pending.value.stage else {
                return problemPage(
                    PageProblem(title: "Sign-in expired", message: "This sign-in has moved on; start again."))
            }
            let approved: Bool
            switch fields["decision"] {
            case "approve": approved = true
            case "deny": approved = false
            default:
                return problemPage(PageProblem(title: "Invalid request", message: "Choose Allow or Deny."))
            }
            state.pending.remove(pending.key)
            let grant = TokenGrant(
                clientID: pending.value.clientID, subject: subject, scopes: pending.value.scopes,
                authenticatedAt: authenticatedAt)

            switch pending.value.purpose {
            case .authorization(let authorization):
                guard approved else {
                    return redirectError(
                        to: authorization.redirectURI, state: authorization.state,
                        ProtocolError(code: "access_denied", description: "the person denied the request"),
                        status: 303)
                }
                let signIn = SignIn(subject: subject, authenticatedAt: authenticatedAt, expiresAt: now)
                return issueCode(for: authorization, signIn: signIn, in: &state, now: now, status: 303, cookies: [:])
            case .device(let deviceKey):
                var stillPending = false
                state.devices.update(deviceKey) { device in
                    guard case .pending = device.status else { return }
                    stillPending = true
                    device.status = approved ? .approved(grant) : .denied
                }
                guard stillPending, state.devices.value(for: deviceKey, now: now) != nil else {
                    return problemPage(
                        PageProblem(
                            title: "Code expired", message: "This code has expired or was already used. Start again.")
                    )
                }
                return Answer(
                    ProviderHTTP.page(
                        ProviderPages.deviceOutcome(providerName: configuration.displayName, approved: approved)),
                    error: approved ? nil : "access_denied")
            }
        }
    }

    // MARK: - Shared steps

    /// Issues a code for `authorization` and redirects to the client with `code`, `state`
    /// and `iss`.
    func issueCode(
        for authorization: AuthorizationRequest, signIn: SignIn, in state: inout ProviderState, now: Date,
        status: Int, cookies: HTTPFields
    ) -> Answer {
        let code = ProviderSecrets.randomToken()
        let grant = TokenGrant(
            clientID: authorization.clientID, subject: signIn.subject, scopes: authorization.scopes,
            authenticatedAt: signIn.authenticatedAt, dpopJKT: authorization.dpopJKT)
        let expiresAt = now.adding(configuration.authorizationCodeLifetime)
        // Kept past its expiry for a while, so that a late replay still revokes what it produced.
        state.codes.insert(
            CodeGrant(request: authorization, grant: grant, expiresAt: expiresAt), for: ProviderSecrets.digest(code),
            expiresAt: expiresAt.adding(Self.usedCodeMemory), now: now)
        let location = responseLocation(
            authorization.redirectURI, leading: [("code", code)], state: authorization.state)
        return Answer(ProviderHTTP.redirect(to: location, status: status, cookies: cookies))
    }

    /// How long a code is remembered after it expires, to recognise a replay.
    static let usedCodeMemory: Duration = .seconds(600)

    /// The digest of the browser's cookie if the provider knows it; otherwise a new cookie
    /// (added to `cookies`) and its digest.
    static func browserKey(
        cookie: String?, in state: inout ProviderState, now: Date, setting cookies: inout HTTPFields
    ) -> String {
        if let cookie {
            let key = ProviderSecrets.digest(cookie)
            if state.browsers.value(for: key, now: now) != nil { return key }
        }
        let fresh = ProviderSecrets.randomToken()
        let key = ProviderSecrets.digest(fresh)
        state.browsers.insert(
            BrowserRecord(), for: key, expiresAt: now.adding(state.configuration.signInSessionLifetime), now: now)
        cookies.append(ProviderHTTP.browserCookie(fresh))
        return key
    }

    /// Records a new pending authorization and returns its transaction ID.
    static func startPending(
        _ purpose: PendingAuthorization.Purpose, clientID: String, scopes: [String], browser: String,
        stage: PendingAuthorization.Stage, in state: inout ProviderState, now: Date
    ) -> String {
        let transaction = ProviderSecrets.randomToken(byteCount: 16)
        state.pending.insert(
            PendingAuthorization(purpose: purpose, clientID: clientID, scopes: scopes, browser: browser, stage: stage),
            for: transaction, expiresAt: now.adding(ProviderState.pendingLifetime), now: now)
        return transaction
    }

    /// A posted form and the pending authorization it continues, as ``pendingForm(_:cookie:state:now:)``
    /// finds it.
    typealias PendingForm = (key: String, value: PendingAuthorization, browser: String)

    /// The start the login and consent forms share: `POST` only, a form body, and the pending
    /// authorization it continues (``pendingForm(_:cookie:state:now:)``); then `continuing` runs
    /// under the state's lock with the form's fields.
    func continuePendingForm(
        _ request: ServerRequest, named formName: String,
        _ continuing: (inout ProviderState, _ fields: [String: String], PendingForm, _ now: Date) -> Answer
    ) -> Answer {
        guard request.method == "POST" else { return Answer(ProviderHTTP.methodNotAllowed(["POST"])) }
        guard let form = ProviderHTTP.formParameters(request) else {
            return problemPage(
                PageProblem(title: "Invalid request", message: "The \(formName) was not sent as a form."))
        }
        let fields = Self.singleValues(form)
        let now = clock.now()
        let cookie = ProviderHTTP.cookie(ProviderHTTP.browserCookieName, in: request)
        return state.withLock { state in
            switch Self.pendingForm(fields, cookie: cookie, state: state, now: now) {
            case .failure(let problem): return problemPage(problem)
            case .success(let pending): return continuing(&state, fields, pending, now)
            }
        }
    }

    /// The pending authorization a posted form continues, after checking the browser cookie,
    /// the CSRF token (``postingBrowser(_:cookie:state:now:)``) and that the authorization
    /// belongs to this browser.
    static func pendingForm(
        _ fields: [String: String], cookie: String?, state: ProviderState, now: Date
    ) -> Result<PendingForm, PageProblem> {
        let browser: String
        switch postingBrowser(fields, cookie: cookie, state: state, now: now) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): browser = found
        }
        guard let key = fields["transaction"], let pending = state.pending.value(for: key, now: now),
            pending.browser == browser
        else {
            return .failure(
                PageProblem(title: "Sign-in expired", message: "This sign-in has expired. Start again."))
        }
        return .success((key, pending, browser))
    }

    /// The browser (its cookie's digest) that posted a form from one of the provider's pages:
    /// it must send a cookie this provider set, and the form the CSRF token bound to it.
    static func postingBrowser(
        _ fields: [String: String], cookie: String?, state: ProviderState, now: Date
    ) -> Result<String, PageProblem> {
        guard let cookie, state.browsers.value(for: ProviderSecrets.digest(cookie), now: now) != nil else {
            return .failure(
                PageProblem(
                    title: "Cookies needed",
                    message: "Your browser did not send this site's cookie. Allow cookies and start again."))
        }
        let browser = ProviderSecrets.digest(cookie)
        guard let token = fields["csrf_token"],
            ProviderSecrets.constantTimeEquals(token, state.csrfToken(forBrowser: browser))
        else {
            return .failure(
                PageProblem(
                    title: "Form expired", message: "This form is out of date or was not sent from this site.",
                    status: 403))
        }
        return .success(browser)
    }

    /// The form's fields by name; a repeated field keeps its first value.
    static func singleValues(_ form: [(name: String, value: String)]) -> [String: String] {
        Dictionary(form.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    func loginPage(
        clientID: String, transaction: String, browser: String, state: ProviderState, username: String?,
        message: String?, cookies: HTTPFields
    ) -> Answer {
        let html = ProviderPages.login(
            providerName: configuration.displayName, clientName: client(id: clientID)?.name ?? clientID,
            context: .init(transaction: transaction, csrfToken: state.csrfToken(forBrowser: browser)),
            username: username, message: message, note: configuration.loginPageNote)
        return Answer(ProviderHTTP.page(html, cookies: cookies))
    }

    func consentPage(
        clientID: String, subject: String, scopes: [String], transaction: String, browser: String,
        state: ProviderState, isDevice: Bool, cookies: HTTPFields
    ) -> Answer {
        let html = ProviderPages.consent(
            providerName: configuration.displayName, clientName: client(id: clientID)?.name ?? clientID,
            username: configuration.user(subject: subject)?.username ?? subject, scopes: scopes,
            context: .init(transaction: transaction, csrfToken: state.csrfToken(forBrowser: browser)),
            isDevice: isDevice)
        return Answer(ProviderHTTP.page(html, cookies: cookies))
    }
}
