// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthEmbeddedProvider

extension AuthorizationPageServer {
    /// What the server answers to `request`, and the record of the exchange. Pure: no I/O.
    static func respond(to request: ServerRequest) -> (ServerResponse, RecordedRequest) {
        var record = RecordedRequest(received: request)
        let response = authorizationResponse(for: request, record: &record)
        record.responseStatus = response.status
        return (response, record)
    }

    private static func authorizationResponse(
        for request: ServerRequest, record: inout RecordedRequest
    ) -> ServerResponse {
        let path = request.path
        guard path == "/authorize" else { return .text("not found: \(path)\n", status: 404) }
        guard request.method == "GET" else {
            var response = ServerResponse.text("only GET is supported\n", status: 405)
            response.headerFields.append(HTTPField(name: .allow, value: "GET"))
            return response
        }
        guard let redirectURI = record.queryValue("redirect_uri"), !redirectURI.isEmpty else {
            return .text("missing redirect_uri\n", status: 400)
        }
        let state = record.queryValue("state")
        let mode = Mode(rawValue: record.queryValue("mode") ?? Mode.redirect.rawValue)
        guard [.redirect, .error, .page, .cookie].contains(mode) else {
            return .text("unknown mode \(mode)\n", status: 400)
        }

        var parameters: [(String, String)]
        if mode == .error {
            parameters = [("error", "access_denied"), ("error_description", "The person denied the request.")]
        } else {
            let code = makeCode()
            record.issuedCode = code
            parameters = [("code", code)]
        }
        if let state { parameters.append(("state", state)) }
        let location = FormCoding.appendingQuery(parameters, to: redirectURI)
        record.redirectLocation = location

        switch mode {
        case .page:
            let escaped = location.htmlEscaped
            let html = """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8">
                <meta http-equiv="refresh" content="0;url=\(escaped)">
                <title>Sign in</title></head>
                <body><p><a id="continue" href="\(escaped)">Continue</a></p></body></html>
                """
            return .html(html)
        case .cookie:
            return ServerResponse(
                status: 302,
                headerFields: [.location: location, .setCookie: "\(testCookieName)=1; Max-Age=3600"])
        default:
            return .redirect(to: location)
        }
    }

    /// A fresh authorization code: 128 random bits, hex.
    static func makeCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
