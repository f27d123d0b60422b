// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HTTPTypes

extension RawHTTPClient {
    /// Sends one HTTP/1.1 request to a loopback `url` (`http` only) and reads the whole reply.
    ///
    /// The request carries `Host`, `Connection: close`, the given header fields, and for a
    /// body its `Content-Length`. Nothing is followed or retried.
    ///
    /// - Parameters:
    ///   - method: The method, such as `POST`.
    ///   - url: An `http` URL on `127.0.0.1`, `[::1]` or `localhost`, with a port.
    ///   - headerFields: More header fields, in order.
    ///   - body: The body, if any.
    ///   - timeout: How long to wait for the reply; only a bound against a server that never
    ///     answers, long enough for a machine busy with a whole test suite. Default 60 seconds,
    ///     as for ``exchange(port:bytes:address:timeout:)``.
    /// - Throws: `URLError(.unsupportedURL)` for another kind of URL; socket errors.
    public static func request(
        method: String, url: URL, headerFields: HTTPFields = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> Response {
        guard url.scheme?.lowercased() == "http", let host = url.host, let port = url.port else {
            throw URLError(.unsupportedURL)
        }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let address: String
        switch bareHost.lowercased() {
        case "127.0.0.1", "localhost": address = "127.0.0.1"
        case "::1": address = "::1"
        default: throw URLError(.unsupportedURL)
        }
        var target = url.path.isEmpty ? "/" : url.path
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
        }
        let hostField = address == "::1" ? "[::1]:\(port)" : "\(bareHost):\(port)"
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(hostField)\r\nConnection: close\r\n"
        for field in headerFields { head += "\(field.name.rawName): \(field.value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try await exchange(port: port, bytes: Array(head.utf8) + body, address: address, timeout: timeout)
    }
}

extension RawHTTPClient.Response {
    /// Every value of the header field `name` (case-insensitive), in order — such as each
    /// `Set-Cookie`.
    public func headers(_ name: String) -> [String] {
        var values: [String] = []
        for line in raw.components(separatedBy: "\r\n").dropFirst() {
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                values.append(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return values
    }
}
