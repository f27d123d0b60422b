import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession` (FoundationNetworking on Linux) with an ephemeral
/// configuration — no cookies, no cache, no credential storage — that never follows redirects.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport with its own ephemeral `URLSession`.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCredentialStorage = nil
        self.session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request` and reads the whole response, within the request's timeout and size limit.
    public func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = request.timeout.timeInterval
        urlRequest.httpShouldHandleCookies = false
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let endpoint = request.url.redactedForLogs
        let exchange = Task { [session] in try await session.data(for: urlRequest) }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await withTaskCancellationHandler {
                try await withDeadline(request.timeout) { try await exchange.value }
            } onCancel: {
                exchange.cancel()
            }
        } catch let error as HTTPTransportError {
            exchange.cancel()
            throw error.with(endpoint: endpoint, timeout: request.timeout)
        } catch let error as URLError {
            switch error.code {
            case .timedOut:
                throw HTTPTransportError(
                    code: .timedOut, message: "\(endpoint) did not answer within \(request.timeout)")
            case .httpTooManyRedirects, .redirectToNonExistentLocation:
                throw HTTPTransportError(code: .redirected, message: "\(endpoint) answered with a redirect")
            default:
                throw HTTPTransportError(
                    code: .connectionFailed, message: "cannot reach \(endpoint): \(error.code.rawValue) (URLError)")
            }
        } catch {
            throw HTTPTransportError(code: .connectionFailed, message: "cannot reach \(endpoint)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPTransportError(code: .connectionFailed, message: "\(endpoint) gave no HTTP response")
        }
        if (300..<400).contains(http.statusCode) {
            throw HTTPTransportError(code: .redirected, message: "\(endpoint) answered \(http.statusCode), a redirect")
        }
        guard data.count <= request.maximumResponseSize else {
            throw HTTPTransportError(
                code: .responseTooLarge,
                message: "\(endpoint) sent \(data.count) bytes; at most \(request.maximumResponseSize) are accepted")
        }
        var fields: [HTTPRequest.HeaderField] = []
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                fields.append(.init(name: name, value: value))
            }
        }
        return HTTPResponse(status: http.statusCode, headerFields: fields, body: data)
    }
}

/// Refuses every redirect, so a 3xx reaches ``URLSessionTransport`` as it is.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

extension HTTPTransportError {
    fileprivate func with(endpoint: String, timeout: Duration) -> HTTPTransportError {
        code == .timedOut
            ? HTTPTransportError(code: .timedOut, message: "\(endpoint) did not answer within \(timeout)") : self
    }
}

/// Runs `operation`, failing with ``HTTPTransportError/Code/timedOut`` once `limit` has passed.
///
/// FoundationNetworking's own timeout is an idle timeout; this one bounds the whole exchange.
func withDeadline<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw HTTPTransportError(code: .timedOut, message: "no answer within \(limit)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            throw HTTPTransportError(code: .timedOut, message: "no answer within \(limit)")
        }
        return first
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
