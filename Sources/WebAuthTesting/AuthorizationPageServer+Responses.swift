import Foundation

extension AuthorizationPageServer {
    /// What the server answers to `head`, and the record of the exchange. Pure: no I/O.
    static func respond(to head: RequestHead) -> (Response, RecordedRequest) {
        let components = URLComponents(string: "http://127.0.0.1" + head.target)
        let path = components?.path ?? head.target
        let queryItems = components?.queryItems ?? []
        var record = RecordedRequest(
            method: head.method, target: head.target, path: path, queryItems: queryItems,
            headerFields: head.headerFields, responseStatus: 0)

        let response = authorizationResponse(for: head, path: path, record: &record)
        record.responseStatus = response.status
        return (response, record)
    }

    private static func authorizationResponse(
        for head: RequestHead, path: String, record: inout RecordedRequest
    ) -> Response {
        guard path == "/authorize" else { return .text(404, "Not Found", "not found: \(path)") }
        guard head.method == "GET" else {
            var response = Response.text(405, "Method Not Allowed", "only GET is supported")
            response.headerFields.append(.init(name: "Allow", value: "GET"))
            return response
        }
        guard let redirectURI = record.queryValue("redirect_uri"), !redirectURI.isEmpty else {
            return .text(400, "Bad Request", "missing redirect_uri")
        }
        let state = record.queryValue("state")
        let mode = Mode(rawValue: record.queryValue("mode") ?? Mode.redirect.rawValue)
        guard [.redirect, .error, .page, .cookie].contains(mode) else {
            return .text(400, "Bad Request", "unknown mode \(mode)")
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
        let location = appendingQuery(parameters, to: redirectURI)
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
            return Response(
                status: 200, reason: "OK",
                headerFields: [.init(name: "Content-Type", value: "text/html; charset=utf-8")], body: html)
        case .cookie:
            return Response(
                status: 302, reason: "Found",
                headerFields: [
                    .init(name: "Location", value: location),
                    .init(name: "Set-Cookie", value: "\(testCookieName)=1; Max-Age=3600"),
                ])
        default:
            return Response(status: 302, reason: "Found", headerFields: [.init(name: "Location", value: location)])
        }
    }

    /// `uri` with the percent-encoded `parameters` added to its query (after `?`, or after `&`
    /// when it already has one), in front of any fragment.
    static func appendingQuery(_ parameters: [(String, String)], to uri: String) -> String {
        let encoded = parameters.map { "\($0.0.queryEncoded)=\($0.1.queryEncoded)" }.joined(separator: "&")
        var base = uri
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + encoded + fragment
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
