// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes

/// The provider's HTTP vocabulary: reading forms, queries and cookies from a request, and
/// building its JSON, HTML, redirect and error responses with the right headers.
enum ProviderHTTP {
    /// The name of the provider's browser cookie: it binds pending sign-ins to the browser
    /// and, after a successful login, carries the sign-in session.
    static let browserCookieName = "webauth_session"

    /// The request's query, form-decoded (`+` is a space), in order, duplicates kept.
    static func queryParameters(_ request: ServerRequest) -> [(name: String, value: String)] {
        guard let question = request.target.firstIndex(of: "?") else { return [] }
        var query = String(request.target[request.target.index(after: question)...])
        if let hash = query.firstIndex(of: "#") { query = String(query[..<hash]) }
        return FormCoding.decode(query)
    }

    /// The request's body as a form, or `nil` when the request does not say it is one.
    static func formParameters(_ request: ServerRequest) -> [(name: String, value: String)]? {
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/x-www-form-urlencoded" else { return nil }
        return request.formItems
    }

    /// The value of cookie `name`, from any of the request's `Cookie` fields.
    static func cookie(_ name: String, in request: ServerRequest) -> String? {
        for field in request.headerFields[fields: .cookie] {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// A `Set-Cookie` field for the browser cookie: HttpOnly, SameSite=Lax, Path=/, and no
    /// expiry (the provider ends sign-ins itself).
    static func browserCookie(_ value: String) -> HTTPField {
        HTTPField(name: .setCookie, value: "\(browserCookieName)=\(value); Path=/; HttpOnly; SameSite=Lax")
    }

    /// A JSON response from `value`, with `Cache-Control: no-store` (RFC 6749 §5.1).
    static func json(_ value: some Encodable, status: Int = 200) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return ServerResponse(
            status: status,
            headerFields: [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"],
            body: Array(body))
    }

    /// An RFC 6749 §5.2 error response. `invalid_client` after a Basic attempt carries a
    /// `WWW-Authenticate` challenge.
    static func error(_ error: ProtocolError, challenge: String? = nil) -> ServerResponse {
        let body = ErrorBody(error: error.code, errorDescription: error.description.isEmpty ? nil : error.description)
        var response = json(body, status: error.status)
        if let challenge { response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        return response
    }

    /// The Basic challenge of the token, revocation and device authorization endpoints.
    static let basicChallenge = #"Basic realm="webauth", charset="UTF-8""#

    /// An HTML page with the headers every page has: no caching, no referrer, no framing, no
    /// sniffing, and a content security policy that allows nothing but the inline style.
    static func page(
        _ html: String, status: Int = 200, cookies: HTTPFields = [:]
    ) -> ServerResponse {
        ServerResponse(
            status: status,
            headerFields: [.contentType: "text/html; charset=utf-8"] + pageHeaders + cookies,
            body: Array(html.utf8))
    }

    /// A redirect (`302` after a GET, `303` after a POST) with the page headers.
    static func redirect(
        to location: String, status: Int = 302, cookies: HTTPFields = [:]
    ) -> ServerResponse {
        ServerResponse(
            status: status, headerFields: [.location: location] + pageHeaders + cookies)
    }

    /// `405 Method Not Allowed` with the methods allowed.
    static func methodNotAllowed(_ allowed: [String]) -> ServerResponse {
        var response = ServerResponse.text("method not allowed\n", status: 405)
        response.headerFields.append(HTTPField(name: .allow, value: allowed.joined(separator: ", ")))
        return response
    }

    private static let pageHeaders: HTTPFields = [
        .cacheControl: "no-store",
        .referrerPolicy: "no-referrer",
        .xContentTypeOptions: "nosniff",
        .xFrameOptions: "DENY",
        .contentSecurityPolicy:
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    ]

    /// `uri` with `parameters` added to its query.
    static func location(_ uri: String, adding parameters: [(String, String?)]) -> String {
        FormCoding.appendingQuery(
            parameters.compactMap { name, value in value.map { (name, $0) } }, to: uri)
    }
}

/// `{"error", "error_description"}`.
struct ErrorBody: Encodable {
    var error: String
    var errorDescription: String?

    private enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
