// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// What a ``ScriptedUserAgent`` does next, as a pure state machine: given the reply to its
/// last request, the next request to send (following a redirect, filling a login form,
/// answering a consent page, entering a user code), a callback to hand over, or the end.
struct ScriptedNavigation: Sendable {
    /// What the agent is trying to reach.
    enum Goal: Sendable {
        /// A browser sign-in that ends at `callback`.
        case authorization(Callback)
        /// A device verification with `userCode` (or the one the page prefills).
        case device(userCode: String?)
        /// A browser sign-in that stops at the redirect to `callback`, handing over its
        /// address without requesting it.
        case redirectAddress(Callback)
    }

    /// A request to send.
    struct Request: Sendable, Hashable {
        var method: String
        var url: URL
        /// For `POST`: the form to send as `application/x-www-form-urlencoded`.
        var form: [URLQueryItem]?
    }

    /// The reply to a request.
    struct Reply: Sendable, Hashable {
        /// The URL that was requested.
        var url: URL
        var status: Int
        var location: String?
        var body: String
    }

    /// The next thing to do.
    enum Action: Sendable, Hashable {
        case send(Request)
        /// Hand this callback URL over (to the session, when it is not a loopback `http` URL;
        /// to the caller, when the goal is the redirect's address).
        case deliver(URL)
        /// Done: the callback was requested, or the device page said it is done.
        case finish
        /// Stop: the pages did not lead where they should.
        case fail(ScriptedUserAgentError)
    }

    let goal: Goal
    let username: String
    let password: String
    let approves: Bool
    let maximumSteps: Int

    private(set) var steps = 0
    private(set) var loginSubmitted = false
    private(set) var codeSubmitted = false
    private(set) var consentSubmitted = false
    private(set) var reachedCallback = false
    /// What the last decision was, for progress reports.
    private(set) var lastStep: ScriptedUserAgent.Step?

    init(goal: Goal, username: String, password: String, approves: Bool, maximumSteps: Int) {
        self.goal = goal
        self.username = username
        self.password = password
        self.approves = approves
        self.maximumSteps = maximumSteps
    }

    /// The first request: `GET url`, if the agent may talk to it.
    func start(at url: URL) -> Action {
        guard Self.isLoopbackHTTP(url) else {
            return .fail(
                .notLoopback(
                    "the scripted user agent only talks plain HTTP to loopback addresses, not to \(Self.describe(url))")
            )
        }
        return .send(Request(method: "GET", url: url, form: nil))
    }

    /// What to do after `reply`.
    mutating func next(after reply: Reply) -> Action {
        lastStep = nil
        steps += 1
        if reachedCallback { return .finish }
        guard steps <= maximumSteps else {
            return .fail(.unexpectedPage("gave up after \(maximumSteps) pages without finishing"))
        }
        if (300..<400).contains(reply.status) { return redirect(reply) }

        let page = HTMLPage(html: reply.body)
        let alert = page.alerts.first { !$0.isEmpty }
        guard reply.status < 400 else {
            let detail = alert ?? page.title
            return .fail(.refused("the provider answered HTTP \(reply.status)" + (detail.map { ": \($0)" } ?? "")))
        }
        if let form = page.forms.first(where: \.hasPassword) {
            guard !loginSubmitted else {
                return .fail(.refused("the login form was refused: \(alert ?? "no reason given")"))
            }
            loginSubmitted = true
            lastStep = .filledLoginForm(username: username)
            return submit(form, on: reply.url, values: loginValues(form), button: form.buttons.first)
        }
        if let form = page.forms.first(where: { $0.field(named: "user_code") != nil }) {
            guard case .device(let userCode) = goal else {
                return .fail(.unexpectedPage("the provider asked for a device code during a browser sign-in"))
            }
            guard !codeSubmitted else {
                return .fail(.refused("the user code was refused: \(alert ?? "no reason given")"))
            }
            let code = userCode ?? form.field(named: "user_code")?.value ?? ""
            guard !code.isEmpty else { return .fail(.unexpectedPage("there is no user code to enter")) }
            codeSubmitted = true
            lastStep = .enteredUserCode
            return submit(form, on: reply.url, values: ["user_code": code], button: form.buttons.first)
        }
        if let (form, button) = consentForm(in: page) {
            guard !consentSubmitted else {
                return .fail(.unexpectedPage("the consent page came back after it was answered"))
            }
            consentSubmitted = true
            lastStep = .answeredConsent(approved: approves)
            return submit(form, on: reply.url, values: [:], button: button)
        }
        if case .device = goal, consentSubmitted {
            return alert.map { .fail(.refused("the provider showed an error: \($0)")) } ?? .finish
        }
        if let alert { return .fail(.refused("the provider showed an error: \(alert)")) }
        return .fail(
            .unexpectedPage(
                "the page at \(Self.describe(reply.url)) (HTTP \(reply.status)) has no form to fill and does not lead on"
            ))
    }

    // MARK: - Steps

    private mutating func redirect(_ reply: Reply) -> Action {
        guard let location = reply.location, let target = URL(string: location, relativeTo: reply.url)?.absoluteURL
        else {
            return .fail(.unexpectedPage("the provider answered HTTP \(reply.status) without a usable Location"))
        }
        if case .redirectAddress(let callback) = goal, callback.matchesURL(target) {
            lastStep = .stoppedAtRedirect(path: target.path)
            return .deliver(target)
        }
        if case .authorization(let callback) = goal, callback.matchesURL(target) {
            guard Self.isLoopbackHTTP(target) else { return .deliver(target) }
            reachedCallback = true
            lastStep = .reachedCallback(path: target.path)
            return .send(Request(method: "GET", url: target, form: nil))
        }
        guard Self.isLoopbackHTTP(target) else {
            return .fail(
                .notLoopback(
                    "was redirected to \(Self.describe(target)), which is not plain HTTP on a loopback address"))
        }
        return .send(Request(method: "GET", url: target, form: nil))
    }

    /// The form's values with the username and password filled in.
    private func loginValues(_ form: HTMLPage.Form) -> [String: String] {
        var values: [String: String] = [:]
        let usernameField =
            form.fields.first { ["username", "login", "user", "email"].contains($0.name.lowercased()) }
            ?? form.fields.first { ["text", "email"].contains($0.type) }
        if let usernameField { values[usernameField.name] = username }
        for field in form.fields where field.type == "password" { values[field.name] = password }
        return values
    }

    private static let approveWords: Set<String> = [
        "approve", "allow", "accept", "authorize", "grant", "yes", "confirm",
    ]
    private static let denyWords: Set<String> = ["deny", "reject", "decline", "cancel", "no"]

    /// A form with approve and deny buttons, and the button this agent presses.
    private func consentForm(in page: HTMLPage) -> (HTMLPage.Form, HTMLPage.Button)? {
        for form in page.forms {
            func matches(_ button: HTMLPage.Button, _ words: Set<String>) -> Bool {
                words.contains(button.value.lowercased()) || words.contains(button.label.lowercased())
            }
            let approve = form.buttons.first { matches($0, Self.approveWords) }
            let deny = form.buttons.first { matches($0, Self.denyWords) }
            if let approve, let deny { return (form, approves ? approve : deny) }
        }
        return nil
    }

    /// Submits `form` from the page at `pageURL` with `values` replacing the fields' own, and
    /// `button`'s name and value when it has a name.
    private func submit(
        _ form: HTMLPage.Form, on pageURL: URL, values: [String: String], button: HTMLPage.Button?
    ) -> Action {
        guard let target = URL(string: form.action ?? "", relativeTo: pageURL)?.absoluteURL else {
            return .fail(.unexpectedPage("the form's action is not a URL"))
        }
        guard Self.isLoopbackHTTP(target) else {
            return .fail(
                .notLoopback(
                    "the form posts to \(Self.describe(target)), which is not plain HTTP on a loopback address"))
        }
        var items = form.fields.map { URLQueryItem(name: $0.name, value: values[$0.name] ?? $0.value) }
        if let name = button?.name, !name.isEmpty { items.append(URLQueryItem(name: name, value: button?.value)) }
        if form.method == "POST" { return .send(Request(method: "POST", url: target, form: items)) }
        guard var components = URLComponents(url: target, resolvingAgainstBaseURL: false) else {
            return .fail(.unexpectedPage("the form's action is not a URL"))
        }
        components.percentEncodedQuery = FormCoding.encode(items.map { ($0.name, $0.value ?? "") })
        guard let url = components.url else { return .fail(.unexpectedPage("the form's action is not a URL")) }
        return .send(Request(method: "GET", url: url, form: nil))
    }

    // MARK: - Addresses

    /// Whether `url` is `http` on a loopback host (`LoopbackName`), with a port.
    static func isLoopbackHTTP(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "http", url.port != nil, let host = url.host else { return false }
        return LoopbackName.isLoopback(host)
    }

    /// The URL without its query and fragment (which may carry codes or tokens).
    static func describe(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "an invalid URL" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "an invalid URL"
    }
}
