// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// The few HTTP statuses the loopback listener answers with.
package enum HTTPStatus: Int, Sendable, Hashable {
    case ok = 200
    case badRequest = 400
    case forbidden = 403
    case notFound = 404
    case methodNotAllowed = 405
    case requestHeaderFieldsTooLarge = 431

    /// The reason phrase of the status line.
    var reasonPhrase: String {
        switch self {
        case .ok: "OK"
        case .badRequest: "Bad Request"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .requestHeaderFieldsTooLarge: "Request Header Fields Too Large"
        }
    }
}

/// A complete response of the loopback listener: a tiny self-contained HTML page with headers
/// that keep it out of caches, referrers and other origins.
struct LoopbackResponse: Sendable, Hashable {
    /// The status.
    var status: HTTPStatus
    /// The page, already escaped.
    var html: String
    /// The page's Content-Security-Policy.
    var contentSecurityPolicy = Self.contentSecurityPolicy

    /// The Content-Security-Policy of every page but the form page: nothing may load, inline
    /// styles may apply.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'"

    /// The response as bytes on the wire. `includeBody` is false for `HEAD` requests; the
    /// `Content-Length` is the body's length either way.
    func serialized(includeBody: Bool) -> [UInt8] {
        let body = Array(html.utf8)
        var head = "HTTP/1.1 \(status.rawValue) \(status.reasonPhrase)\r\n"
        head += "Content-Type: text/html; charset=utf-8\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        head += "Pragma: no-cache\r\n"
        head += "Referrer-Policy: no-referrer\r\n"
        head += "X-Content-Type-Options: nosniff\r\n"
        head += "X-Frame-Options: DENY\r\n"
        head += "Content-Security-Policy: \(contentSecurityPolicy)\r\n"
        if status == .methodNotAllowed { head += "Allow: GET, HEAD\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }

    // MARK: - Pages

    /// The page for the accepted callback without an `error` parameter.
    static func success(_ page: LoopbackReceiver.Page) -> Self {
        Self(status: .ok, html: render(page))
    }

    /// The page for an accepted callback that carries an OAuth error (RFC 6749 §4.1.2.1). Only
    /// `error` and `error_description` are shown, escaped; nothing else from the URL.
    static func authorizationError(_ page: LoopbackReceiver.Page, error: String, description: String?) -> Self {
        var details = "<p>Error: <code>\(htmlEscaped(shown(error)))</code></p>"
        if let description, !description.isEmpty {
            details += "<p>\(htmlEscaped(shown(description)))</p>"
        }
        return Self(status: .ok, html: render(page, details: details))
    }

    /// The page for a callback the session did not accept, such as one with the wrong `state`.
    static func rejected(_ page: LoopbackReceiver.Page) -> Self {
        Self(status: .badRequest, html: render(page))
    }

    /// The page that posts `form` at once (``LoopbackFormPage``): the fields as hidden inputs,
    /// escaped; a script, allowed by its nonce alone, that submits the form; and a button that
    /// submits it when scripts do not run.
    ///
    /// The policy has no `form-action`: browsers check it against the redirects that follow the
    /// post too, and a provider's sign-out may pass through other origins before it returns.
    static func formPost(_ form: LoopbackFormPost) -> Self {
        let nonce = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64URLEncodedString()
        let inputs = form.fields.map { field in
            "<input type=\"hidden\" name=\"\(htmlEscaped(field.name))\" value=\"\(htmlEscaped(field.value))\">"
        }.joined()
        let details =
            "<form id=\"post\" method=\"post\" action=\"\(htmlEscaped(form.action.absoluteString))\">\(inputs)"
            + "<button type=\"submit\">\(htmlEscaped(form.buttonLabel))</button></form>"
            + "<script nonce=\"\(nonce)\">document.getElementById(\"post\").submit();</script>"
        return Self(
            status: .ok,
            html: render(LoopbackReceiver.Page(title: form.title, message: form.message), details: details),
            contentSecurityPolicy:
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; base-uri 'none'; "
                + "frame-ancestors 'none'")
    }

    /// The page for a request to the form page from another user's program.
    static let otherUsersRequest = Self(
        status: .forbidden,
        html: render(
            LoopbackReceiver.Page(
                title: "403 Forbidden", message: "This page is only for the user who started the request.")))

    /// The page for a request that is not the callback at all.
    static func plain(_ status: HTTPStatus) -> Self {
        let message =
            switch status {
            case .ok: "OK."
            case .badRequest: "The request was not understood."
            case .forbidden: "This sign-in response came from another user's program and was refused."
            case .notFound: "There is nothing here."
            case .methodNotAllowed: "Only GET and HEAD are allowed."
            case .requestHeaderFieldsTooLarge: "The request head is too large."
            }
        let title = "\(status.rawValue) \(status.reasonPhrase)"
        return Self(status: status, html: render(LoopbackReceiver.Page(title: title, message: message)))
    }

    private static func render(_ page: LoopbackReceiver.Page, details: String = "") -> String {
        let title = htmlEscaped(page.title)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>\(title)</title>\
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;\
            color:#222;background:#fff}code{overflow-wrap:anywhere}</style></head>\
            <body><h1>\(title)</h1><p>\(htmlEscaped(page.message))</p>\(details)</body></html>

            """
    }

    /// Text from the provider as ``UntrustedText`` shows it — no control, bidi or other format
    /// characters, no line separators — at most 300 characters, so it cannot reorder or flood
    /// the page.
    private static func shown(_ text: String) -> String {
        UntrustedText(text).displayed(limit: 300)
    }
}

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, safe to put in
/// HTML element content and quoted attribute values.
///
/// It works on Unicode scalars, not characters: `<` followed by a combining mark is one
/// `Character` (and may even compare equal to another one, such as `≮`), but the browser's
/// tokenizer still sees the `<`.
func htmlEscaped(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result.append(contentsOf: "&amp;".unicodeScalars)
        case "<": result.append(contentsOf: "&lt;".unicodeScalars)
        case ">": result.append(contentsOf: "&gt;".unicodeScalars)
        case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
        case "'": result.append(contentsOf: "&#39;".unicodeScalars)
        default: result.append(scalar)
        }
    }
    return String(result)
}
