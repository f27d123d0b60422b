// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import HTTPTypes
public import WebAuthCore
import WebAuthPlatform

/// A `Browser` that plays the person, for tests and demos with no real browser: it requests
/// the authorization URL over real HTTP, keeps cookies, follows redirects, fills in the
/// provider's login form with its credentials, answers the consent page, and requests the
/// final redirect — which the session's loopback listener receives.
///
/// It reads pages the way a person would, not by their exact markup: any form with a password
/// field is a login form (the username goes in the field named `username`, `login`, `user` or
/// `email`, else the first text field; hidden fields are sent back as they are); a form with
/// an approve button (`approve`, `allow`, `accept`, …) and a deny button (`deny`, `cancel`, …)
/// is a consent page. It works with ``EmbeddedProvider`` and with providers whose pages are
/// as plain.
///
/// ```swift
/// let agent = ScriptedUserAgent(username: "demo", password: "demo-password")
/// let tokens = try await client.signIn(environment: .standard(browser: agent))
/// ```
///
/// It only talks plain HTTP to loopback addresses (`127.0.0.1`, `[::1]`, `localhost`); it
/// never opens another address, runs scripts or loads images. When it cannot go on it reports
/// `BrowserEvent.failed(_:)` with what happened, such as "the login form was refused: Wrong
/// username or password." — the session then ends with that explanation. Messages never
/// contain a query string, a password or a code.
public struct ScriptedUserAgent: Browser {
    /// The answer the agent gives on a consent page.
    public enum ConsentAnswer: Sendable, Hashable {
        /// Press the approve button.
        case approve
        /// Press the deny button.
        case deny
    }

    /// What the agent did, for progress reports. Never carries a password, code or query.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// It sent `method` to `path` and got `status`.
        case requested(method: String, path: String, status: Int)
        /// It filled in the login form as `username`.
        case filledLoginForm(username: String)
        /// It entered the user code on a device verification page.
        case enteredUserCode
        /// It answered the consent page.
        case answeredConsent(approved: Bool)
        /// It was sent to the callback at `path` and requested it.
        case reachedCallback(path: String)
        /// It was sent to the callback at `path` and stopped there, as a browser that cannot
        /// reach it does (see ``ScriptedUserAgent/redirectAddress(from:to:)``).
        case stoppedAtRedirect(path: String)

        /// A short line, such as `filled in the login form as demo`.
        public var description: String {
            switch self {
            case .requested(let method, let path, let status): "\(method) \(path) → \(status)"
            case .filledLoginForm(let username): "filled in the login form as \(username)"
            case .enteredUserCode: "entered the user code"
            case .answeredConsent(let approved):
                approved ? "approved on the consent page" : "denied on the consent page"
            case .reachedCallback(let path): "followed the redirect to the callback \(path)"
            case .stoppedAtRedirect(let path): "stopped at the redirect to the callback \(path)"
            }
        }
    }

    /// The username typed into login forms.
    public var username: String
    /// The password typed into login forms.
    public var password: String
    /// The answer on consent pages. Default ``ConsentAnswer/approve``.
    public var consent: ConsentAnswer
    /// The cookies kept between pages and between sign-ins (so a second sign-in can skip the
    /// login form). Sessions that prefer an ephemeral browser get a fresh jar instead.
    public let cookies: CookieJar
    /// The most requests one sign-in may take. Default 20.
    public var maximumSteps: Int
    /// How long each request may take. Default 30 seconds.
    public var requestTimeout: Duration
    /// Called after every step, for progress reports (such as the `webauth demo` command's).
    public var onStep: (@Sendable (Step) -> Void)?

    /// Creates an agent that signs in as `username`.
    ///
    /// - Parameters:
    ///   - username: Typed into login forms. Default: ``EmbeddedProvider/User/demo``'s.
    ///   - password: Typed into login forms. Default: ``EmbeddedProvider/User/demo``'s.
    ///   - consent: The answer on consent pages. Default ``ConsentAnswer/approve``.
    ///   - cookies: The cookie jar. Default: a new, empty one.
    public init(
        username: String = EmbeddedProvider.User.demo.username,
        password: String = EmbeddedProvider.User.demo.password,
        consent: ConsentAnswer = .approve,
        cookies: CookieJar = CookieJar()
    ) {
        self.username = username
        self.password = password
        self.consent = consent
        self.cookies = cookies
        self.maximumSteps = 20
        self.requestTimeout = .seconds(30)
        self.onStep = nil
    }

    /// `scripted`.
    public var name: String { "scripted" }

    /// Ephemeral sessions (a fresh cookie jar), additional header fields (on the first
    /// request), and callback interception (a redirect to a custom scheme is handed to the
    /// session rather than opened).
    public var capabilities: BrowserCapabilities {
        [.ephemeralSessions, .additionalHeaderFields, .callbackInterception]
    }

    /// Starts signing in, in the background, and returns at once.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        let (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        let navigation = ScriptedNavigation(
            goal: .authorization(request.callback), username: username, password: password,
            approves: consent == .approve, maximumSteps: maximumSteps)
        let jar = request.prefersEphemeralSession ? CookieJar() : cookies
        // The session has checked the fields (HeaderFieldPolicy): every name is a field name.
        let extraFields = HTTPFields(
            request.additionalHeaderFields.sorted { $0.key < $1.key }.compactMap { name, value in
                HTTPField.Name(name).map { HTTPField(name: $0, value: value) }
            })
        let agent = self
        let task = Task {
            let outcome = await agent.run(navigation, from: request.url, jar: jar, firstRequestFields: extraFields)
            switch outcome {
            case .finished: break
            case .callback(let url): continuation.yield(.callback(url))
            case .failed(let error): continuation.yield(.failed(error.message))
            }
            continuation.finish()
        }
        return ScriptedPresentation(events: events, task: task)
    }

    /// Signs in at `authorizationURL` the way ``present(_:)`` does — following redirects,
    /// filling in the login form, answering the consent page — but stops at the redirect to
    /// `callback` and returns its address without requesting it: the redirect URI with the
    /// code (or the error), `state` and `iss`. That is the address a person copies from a
    /// browser that cannot reach the redirect URI, for a client that asks for the redirect to
    /// be pasted.
    ///
    /// ```swift
    /// let pasted = try await ScriptedUserAgent().redirectAddress(from: authorizationURL)
    /// ```
    ///
    /// - Parameters:
    ///   - authorizationURL: The authorization URL, as the client shows it.
    ///   - callback: Where the redirect goes; `nil` for the `redirect_uri` in
    ///     `authorizationURL`'s query.
    /// - Returns: The redirect's address, as the provider's `Location` names it.
    /// - Throws: ``ScriptedUserAgentError`` saying where it stopped; ``ScriptedUserAgentError/Code/unexpectedPage``
    ///   when `callback` is `nil` and the URL has no usable `redirect_uri`, or when the pages
    ///   end without a redirect to the callback.
    public func redirectAddress(from authorizationURL: URL, to callback: Callback? = nil)
        async throws(ScriptedUserAgentError) -> URL
    {
        let target: Callback
        if let callback {
            target = callback
        } else {
            let redirectURI = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value
            guard let redirectURI, let url = URL(string: redirectURI), let derived = try? Callback(redirectURI: url)
            else { throw .unexpectedPage("the authorization URL has no usable redirect_uri") }
            target = derived
        }
        let navigation = ScriptedNavigation(
            goal: .redirectAddress(target), username: username, password: password, approves: consent == .approve,
            maximumSteps: maximumSteps)
        switch await run(navigation, from: authorizationURL, jar: cookies, firstRequestFields: [:]) {
        case .callback(let address): return address
        case .finished: throw .unexpectedPage("the sign-in ended without a redirect to the callback")
        case .failed(let error): throw error
        }
    }

    /// Approves a device authorization (RFC 8628) the way a person would: opens
    /// `verificationURI`, enters `userCode` (or keeps the one a `verification_uri_complete`
    /// prefilled), signs in if asked, and approves.
    ///
    /// - Parameters:
    ///   - verificationURI: The `verification_uri` or `verification_uri_complete`.
    ///   - userCode: The user code; `nil` to use the one the page prefills.
    /// - Throws: ``ScriptedUserAgentError`` saying where it stopped.
    public func approveDevice(verificationURI: URL, userCode: String?) async throws(ScriptedUserAgentError) {
        try await answerDevice(verificationURI: verificationURI, userCode: userCode, approve: true)
    }

    /// Denies a device authorization, as ``approveDevice(verificationURI:userCode:)`` approves one.
    ///
    /// - Throws: ``ScriptedUserAgentError`` saying where it stopped.
    public func denyDevice(verificationURI: URL, userCode: String?) async throws(ScriptedUserAgentError) {
        try await answerDevice(verificationURI: verificationURI, userCode: userCode, approve: false)
    }

    private func answerDevice(
        verificationURI: URL, userCode: String?, approve: Bool
    ) async throws(ScriptedUserAgentError) {
        let navigation = ScriptedNavigation(
            goal: .device(userCode: userCode), username: username, password: password, approves: approve,
            maximumSteps: maximumSteps)
        switch await run(navigation, from: verificationURI, jar: cookies, firstRequestFields: [:]) {
        case .finished: return
        case .callback: throw .unexpectedPage("the device verification ended in a redirect")
        case .failed(let error): throw error
        }
    }

    private enum Outcome {
        case finished
        case callback(URL)
        case failed(ScriptedUserAgentError)
    }

    /// Sends requests as `navigation` decides until it finishes or fails.
    private func run(
        _ navigation: ScriptedNavigation, from url: URL, jar: CookieJar,
        firstRequestFields: HTTPFields
    ) async -> Outcome {
        var navigation = navigation
        var action = navigation.start(at: url)
        var extraFields = firstRequestFields
        while true {
            switch action {
            case .finish:
                return .finished
            case .deliver(let callback):
                return .callback(callback)
            case .fail(let error):
                return .failed(error)
            case .send(let request):
                if Task.isCancelled { return .failed(.stopped("the sign-in was stopped")) }
                let reply: ScriptedNavigation.Reply
                do {
                    reply = try await send(request, jar: jar, extraFields: extraFields)
                } catch {
                    let detail = (error as? ScriptedUserAgentError)?.message ?? "\(error)"
                    return .failed(
                        .unreachable("could not reach \(ScriptedNavigation.describe(request.url)): \(detail)"))
                }
                extraFields = [:]
                onStep?(.requested(method: request.method, path: request.url.path, status: reply.status))
                action = navigation.next(after: reply)
                if let step = navigation.lastStep { onStep?(step) }
            }
        }
    }

    private func send(
        _ request: ScriptedNavigation.Request, jar: CookieJar, extraFields: HTTPFields
    ) async throws -> ScriptedNavigation.Reply {
        var fields: HTTPFields = [.userAgent: "webauth-scripted-user-agent", .accept: "text/html"]
        if let cookie = jar.header(for: request.url) { fields.append(HTTPField(name: .cookie, value: cookie)) }
        var body: [UInt8] = []
        if let form = request.form {
            fields.append(HTTPField(name: .contentType, value: "application/x-www-form-urlencoded"))
            body = Array(FormCoding.encode(form.map { ($0.name, $0.value ?? "") }).utf8)
        }
        let response = try await RawHTTPClient.request(
            method: request.method, url: request.url, headerFields: fields + extraFields, body: body,
            timeout: requestTimeout)
        guard response.status != 0 else {
            throw ScriptedUserAgentError.unreachable("the server closed without answering")
        }
        jar.store(response.headers("Set-Cookie"), from: request.url)
        return ScriptedNavigation.Reply(
            url: request.url, status: response.status, location: response.header("Location"), body: response.body)
    }

    /// Cookies a ``ScriptedUserAgent`` keeps, per host (ports share cookies, as in browsers).
    /// Only names and values are kept; attributes other than `Max-Age` are ignored, which is
    /// enough for loopback servers.
    public final class CookieJar: Sendable {
        private let storage = Locked<[String: [String: String]]>([:])

        /// Creates an empty jar.
        public init() {}

        /// Whether the jar holds no cookie.
        public var isEmpty: Bool { storage.withLock { $0.values.allSatisfy(\.isEmpty) } }

        /// The names of the cookies held for `host`, sorted.
        public func cookieNames(for host: String) -> [String] {
            storage.withLock { ($0[Self.key(host)] ?? [:]).keys.sorted() }
        }

        /// Forgets every cookie: the next sign-in starts as in a new browser.
        public func removeAll() {
            storage.withLock { $0.removeAll() }
        }

        /// The `Cookie` field value for a request to `url`, if any cookie applies.
        func header(for url: URL) -> String? {
            guard let host = url.host else { return nil }
            let cookies = storage.withLock { $0[Self.key(host)] ?? [:] }
            guard !cookies.isEmpty else { return nil }
            return cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }

        /// Takes the `Set-Cookie` field values of a response from `url`.
        func store(_ setCookies: [String], from url: URL) {
            guard let host = url.host, !setCookies.isEmpty else { return }
            storage.withLock { storage in
                var cookies = storage[Self.key(host)] ?? [:]
                for setCookie in setCookies {
                    let parts = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    guard let pair = parts.first, let equals = pair.firstIndex(of: "="), equals != pair.startIndex
                    else { continue }
                    let name = String(pair[..<equals])
                    let value = String(pair[pair.index(after: equals)...])
                    let expired = parts.dropFirst().contains { attribute in
                        let lowered = attribute.lowercased()
                        return lowered.hasPrefix("max-age=") && (Int(lowered.dropFirst(8)) ?? 1) <= 0
                    }
                    cookies[name] = expired ? nil : value
                }
                storage[Self.key(host)] = cookies
            }
        }

        private static func key(_ host: String) -> String {
            var host = host.lowercased()
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host
        }
    }
}

private struct ScriptedPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    let task: Task<Void, Never>

    func dismiss() async { task.cancel() }
}
