// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The HTML the provider shows people: login, consent, device code entry, outcomes and
/// errors. Self-contained (no scripts, images or external styles), every value escaped.
enum ProviderPages {
    /// The hidden fields every form carries: the pending authorization and the CSRF token.
    struct FormContext {
        var transaction: String?
        var csrfToken: String
    }

    static func login(
        providerName: String, clientName: String, context: FormContext, username: String?, message: String?,
        note: String?
    ) -> String {
        layout(
            title: "Sign in", providerName: providerName,
            body: """
                <h1>Sign in</h1>
                <p>to continue to <strong>\(clientName.htmlEscaped)</strong></p>
                \(alert(message))<form method="post" action="\(EmbeddedProvider.Endpoint.login.path)">
                \(hiddenFields(context))<label for="username">Username</label>
                <input id="username" name="username" type="text" autocomplete="username" required autofocus value="\((username ?? "").htmlEscaped)">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required>
                <button type="submit">Sign in</button>
                </form>
                \(note.map { "<p class=\"note\">\($0.htmlEscaped)</p>" } ?? "")
                """)
    }

    static func consent(
        providerName: String, clientName: String, username: String, scopes: [String], context: FormContext,
        isDevice: Bool
    ) -> String {
        let items = scopes.isEmpty ? ["Only know that you signed in"] : scopes.map(describe)
        let question =
            isDevice
            ? "Connect a device to <strong>\(clientName.htmlEscaped)</strong>?"
            : "<strong>\(clientName.htmlEscaped)</strong> wants to:"
        return layout(
            title: "Allow access", providerName: providerName,
            body: """
                <h1>Allow access</h1>
                <p>Signed in as <strong>\(username.htmlEscaped)</strong>.</p>
                <p>\(question)</p>
                <ul>\(items.map { "<li>\($0.htmlEscaped)</li>" }.joined())</ul>
                <form method="post" action="\(EmbeddedProvider.Endpoint.consent.path)">
                \(hiddenFields(context))<button type="submit" name="decision" value="approve">Allow</button>
                <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
                </form>
                """)
    }

    static func deviceEntry(providerName: String, context: FormContext, userCode: String?, message: String?) -> String {
        layout(
            title: "Connect a device", providerName: providerName,
            body: """
                <h1>Connect a device</h1>
                <p>Enter the code your device shows.</p>
                \(alert(message))<form method="post" action="\(EmbeddedProvider.Endpoint.deviceVerification.path)">
                \(hiddenFields(context))<label for="user_code">Code</label>
                <input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus value="\((userCode ?? "").htmlEscaped)">
                <button type="submit">Continue</button>
                </form>
                """)
    }

    static func deviceOutcome(providerName: String, approved: Bool) -> String {
        layout(
            title: approved ? "Device connected" : "Device not connected", providerName: providerName,
            body: approved
                ? "<h1>Device connected</h1>\n<p>You can return to your device; it will continue on its own.</p>"
                : "<h1>Device not connected</h1>\n<p>You denied access. You can close this page.</p>")
    }

    /// The page after an end-session request without a redirect URI.
    static func signedOut(providerName: String) -> String {
        layout(
            title: "Signed out", providerName: providerName,
            body: "<h1>Signed out</h1>\n<p>You are signed out. You can close this page.</p>")
    }

    static func problem(providerName: String, _ problem: PageProblem) -> String {
        layout(
            title: problem.title, providerName: providerName,
            body: "<h1>\(problem.title.htmlEscaped)</h1>\n\(alert(problem.message))")
    }

    /// What a scope lets the client do, in words.
    static func describe(_ scope: String) -> String {
        switch scope {
        case "openid": "Confirm who you are"
        case "profile": "See your name and username"
        case "email": "See your e-mail address"
        case "offline_access": "Stay connected while you are away"
        default: "Use the scope \(scope)"
        }
    }

    private static func alert(_ message: String?) -> String {
        guard let message else { return "" }
        return "<p class=\"error\" role=\"alert\">\(message.htmlEscaped)</p>\n"
    }

    private static func hiddenFields(_ context: FormContext) -> String {
        var fields = ""
        if let transaction = context.transaction {
            fields += "<input type=\"hidden\" name=\"transaction\" value=\"\(transaction.htmlEscaped)\">\n"
        }
        fields += "<input type=\"hidden\" name=\"csrf_token\" value=\"\(context.csrfToken.htmlEscaped)\">\n"
        return fields
    }

    private static func layout(title: String, providerName: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title.htmlEscaped) · \(providerName.htmlEscaped)</title>
        <style>
        body{font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1d1f23;margin:0}
        main{max-width:24rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.75rem;box-shadow:0 1px 4px #0002}
        h1{font-size:1.4rem;margin:0 0 .5rem}
        label{display:block;margin:.75rem 0 .25rem;font-weight:600}
        input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #b8bcc4;border-radius:.375rem}
        button{margin:1rem .5rem 0 0;padding:.5rem 1.25rem;font:inherit;border:0;border-radius:.375rem;background:#2457c5;color:#fff;cursor:pointer}
        button.secondary{background:#e3e6eb;color:#1d1f23}
        .error{color:#a4161a;font-weight:600}
        .note,footer{color:#5b606b;font-size:.875rem}
        </style>
        </head>
        <body>
        <main>
        \(body)
        <footer><p>\(providerName.htmlEscaped)</p></footer>
        </main>
        </body>
        </html>

        """
    }
}
