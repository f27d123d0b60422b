import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession` (FoundationNetworking on Linux) with an ephemeral
/// configuration — no cookies, no cache, no credential storage — that never follows redirects
/// and never answers authentication challenges.
///
/// A `401` with `WWW-Authenticate` (RFC 6749 §5.2's answer to wrong client credentials) is
/// returned as a response with that status and header and no body: FoundationNetworking cannot
/// deliver the body of a challenged response without answering the challenge, and on Linux
/// letting it handle the challenge itself never completes.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a transport with its own ephemeral `URLSession`.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCredentialStorage = nil
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request` and reads the whole response, within the request's timeout and size limit.
    public func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = request.timeout.timeInterval
        urlRequest.httpShouldHandleCookies = false
        // Marks the request so the delegate can tell which one a challenge belongs to. The main
        // document URL is never sent (it only steers cookie policy, and cookies are off), so the
        // marker stays on this side of the connection.
        let marker = SessionDelegate.marker()
        urlRequest.mainDocumentURL = marker
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let endpoint = request.url.redactedForLogs
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await withDeadline(
                request.timeout, onGiveUp: { [session] in Self.cancelTasks(markedWith: marker, in: session) },
                { [session, urlRequest] in try await session.data(for: urlRequest) })
        } catch let error as HTTPTransportError {
            delegate.forget(marker)
            throw error.code == .timedOut
                ? HTTPTransportError(code: .timedOut, message: "\(endpoint) did not answer within \(request.timeout)")
                : error
        } catch let error as URLError {
            if let challenged = delegate.challengedResponse(for: marker) {
                return challenged
            }
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
            delegate.forget(marker)
            throw HTTPTransportError(code: .connectionFailed, message: "cannot reach \(endpoint)")
        }
        delegate.forget(marker)
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
        return HTTPResponse(status: http.statusCode, headerFields: http.headerFieldList, body: data)
    }

    /// Cancels the session's tasks for the request marked `marker`, from a queue of its own
    /// (`URLSessionTask.cancel()` waits for the session's queue).
    private static func cancelTasks(markedWith marker: URL, in session: URLSession) {
        session.getAllTasks { tasks in
            let marked = tasks.filter {
                $0.originalRequest?.mainDocumentURL == marker
            }
            DispatchQueue.global().async {
                for task in marked { task.cancel() }
            }
        }
    }
}

/// Refuses every redirect, so a 3xx reaches ``URLSessionTransport`` as it is, and cancels every
/// authentication challenge, keeping the challenged response for the transport to return.
private final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let challenged = Mutex<[URL: HTTPResponse]>([:])

    /// A URL no other request carries, to tell requests apart.
    static func marker() -> URL {
        guard let url = URL(string: "urn:uuid:\(UUID().uuidString)") else { preconditionFailure("a UUID URN is a URL") }
        return url
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if let marker = task.originalRequest?.mainDocumentURL,
            let response = challenge.failureResponse as? HTTPURLResponse
        {
            let recorded = HTTPResponse(status: response.statusCode, headerFields: response.headerFieldList)
            challenged.withLock { $0[marker] = recorded }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func challengedResponse(for marker: URL) -> HTTPResponse? {
        challenged.withLock { $0.removeValue(forKey: marker) }
    }

    func forget(_ marker: URL) {
        _ = challenged.withLock { $0.removeValue(forKey: marker) }
    }
}

extension HTTPURLResponse {
    fileprivate var headerFieldList: [HTTPRequest.HeaderField] {
        allHeaderFields.compactMap { name, value in
            guard let name = name as? String, let value = value as? String else { return nil }
            return HTTPRequest.HeaderField(name: name, value: value)
        }
    }
}

/// Runs `operation`, failing with ``HTTPTransportError/Code/timedOut`` once `limit` has passed
/// — whether or not `operation` ever stops: FoundationNetworking's own timeout is an idle timeout
/// that some requests never reach, so this bounds the whole exchange and returns without waiting.
///
/// On the deadline or the caller's cancellation it calls `giveUp` (on a dispatch queue) to stop
/// the operation, and never cancels the operation's task: FoundationNetworking's cancellation
/// handler for `URLSession.data(for:)` waits for the session's queue, which can at that moment be
/// waiting for the cancelled task's status lock — a deadlock that took every cooperative thread
/// with it.
func withDeadline<Value: Sendable>(
    _ limit: Duration, onGiveUp giveUp: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = OneShot<Value>()
    let abandon: @Sendable (any Error) -> Void = { error in
        if outcome.resume(with: .failure(error)) { DispatchQueue.global().async(execute: giveUp) }
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.attach(continuation)
            Task {
                do {
                    outcome.resume(with: .success(try await operation()))
                } catch {
                    outcome.resume(with: .failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                abandon(HTTPTransportError(code: .timedOut, message: "no answer within \(limit)"))
            }
            outcome.onFinish { timer.cancel() }
        }
    } onCancel: {
        abandon(CancellationError())
    }
}

/// A continuation resumed by whichever result comes first; later ones are dropped.
private final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Resumes with `result` if nothing has yet; returns whether it did.
    @discardableResult
    func resume(with result: Result<Value, any Error>) -> Bool {
        let (continuation, cleanup, resumed) = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?, Bool) in
            guard !state.finished else { return (nil, nil, false) }
            state.finished = true
            let continuation = state.continuation
            state.continuation = nil
            if continuation == nil { state.early = result }
            let cleanup = state.cleanup
            state.cleanup = nil
            return (continuation, cleanup, true)
        }
        continuation?.resume(with: result)
        cleanup?()
        return resumed
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
