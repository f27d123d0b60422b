// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthCore
public import WebAuthOAuth
import WebAuthPlatform

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `HTTPTransport` for the OAuth layer over `URLSession`, for a program that wants
/// Foundation's HTTP rather than the default `CurlTransport`: FoundationNetworking on Linux,
/// which makes every start of a program that links it load libcurl and its libraries. An ephemeral
/// configuration — no cookies, no cache, no credential storage, nothing left on disk (see
/// `SessionConfigurationTemplate`) — that never follows redirects and never answers
/// authentication challenges. A `3xx` fails with `HTTPTransportError.Code.redirected` unless
/// the request opts in with `HTTPTransportRequest.deliversRedirects`.
///
/// The response is read as it arrives, and the exchange is stopped as soon as it announces or
/// sends more than `HTTPTransportRequest.maximumResponseSize` bytes: a hostile endpoint cannot make
/// the client hold more than that.
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
        let configuration = SessionConfigurationTemplate.make()
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { SessionDelegate.invalidate(session) }

    /// Sends `request` and reads the response, within the request's timeout and size limit.
    public func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = request.timeout.timeInterval
        urlRequest.httpShouldHandleCookies = false
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        let endpoint = request.url.redactedForLogs
        let task = session.dataTask(with: urlRequest)
        let exchange: Exchange.Outcome
        do {
            exchange = try await withDeadline(
                request.timeout, onGiveUp: { SessionDelegate.cancel(task) },
                { [delegate] in try await delegate.run(task, limit: request.maximumResponseSize) })
        } catch let error as HTTPTransportError {
            throw error.code == .timedOut
                ? HTTPTransportError(code: .timedOut, message: "\(endpoint) did not answer within \(request.timeout)")
                : error
        } catch let error as URLError {
            switch error.code {
            case .timedOut:
                throw HTTPTransportError(
                    code: .timedOut, message: "\(endpoint) did not answer within \(request.timeout)")
            case .httpTooManyRedirects, .redirectToNonExistentLocation:
                throw HTTPTransportError(code: .redirected, message: "\(endpoint) answered with a redirect")
            default:
                let cause =
                    switch error.code {
                    case .cannotConnectToHost: "the connection was refused"
                    case .cannotFindHost: "the name \(request.url.host ?? "") does not resolve"
                    case .networkConnectionLost: "the connection broke"
                    case .badServerResponse: "the server closed the connection without answering"
                    default: "the connection failed"
                    }
                throw HTTPTransportError(
                    code: .connectionFailed, message: "cannot reach \(endpoint): \(cause)",
                    detail: "URLError \(error.code.rawValue): \(error.localizedDescription)")
            }
        } catch {
            throw HTTPTransportError(code: .connectionFailed, message: "cannot reach \(endpoint)")
        }
        switch exchange {
        case .challenged(let response):
            return response
        case .tooLarge(let size):
            throw .responseTooLarge(endpoint: endpoint, size: size, limit: request.maximumResponseSize)
        case .completed(let response, let data):
            if (300..<400).contains(response.statusCode), !request.deliversRedirects {
                throw HTTPTransportError(
                    code: .redirected, message: "\(endpoint) answered \(response.statusCode), a redirect")
            }
            return HTTPTransportResponse(
                status: response.statusCode, headerFields: response.headerFieldList, body: data)
        }
    }
}

/// One request under way: its continuation, and the response as it arrives.
private struct Exchange {
    /// How an exchange ended, when it did not fail.
    enum Outcome: Sendable {
        /// The whole response.
        case completed(HTTPURLResponse, Data)
        /// A `401` with a challenge, recorded when the challenge was refused.
        case challenged(HTTPTransportResponse)
        /// Stopped for announcing (with its size) or sending more than the limit.
        case tooLarge(Int64?)
    }

    var continuation: CheckedContinuation<Outcome, any Error>
    var limit: Int
    var response: HTTPURLResponse?
    var data = Data()
    var stopped: Outcome?
}

/// Runs data tasks for ``URLSessionTransport``: collects each response up to its limit,
/// refuses every redirect (so a 3xx reaches the transport as it is), and cancels every
/// authentication challenge, keeping the challenged response for the transport to return.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])

    /// Where tasks are resumed and cancelled. FoundationNetworking's `resume()` and `cancel()`
    /// wait (`DispatchQueue.sync`) for the session's queues, which need a thread of their own to
    /// get on. Called on one of Swift's few concurrency threads — as many as the machine has
    /// cores — that wait holds the thread, and a handful of requests starting at once can hold
    /// them all and stall every task of the program for seconds. A serial queue of our own gets
    /// a thread outside that pool, so only it waits.
    private static let control = DispatchQueue(label: "webauth.URLSessionTransport.control")

    /// Starts `task` and returns how it ended; throws its error (a `URLError`) otherwise.
    func run(_ task: URLSessionDataTask, limit: Int) async throws -> Exchange.Outcome {
        try await withCheckedThrowingContinuation { continuation in
            exchanges.withLock { $0[task.taskIdentifier] = Exchange(continuation: continuation, limit: limit) }
            Self.control.async { task.resume() }
        }
    }

    /// Stops `task` because of `outcome`, from ``control`` (`URLSessionTask.cancel()` can also
    /// wait for the session's queues, which are busy delivering this very callback).
    private func stop(_ task: URLSessionTask, because outcome: Exchange.Outcome) {
        exchanges.withLock { $0[task.taskIdentifier]?.stopped = outcome }
        Self.cancel(task)
    }

    /// Cancels `task` from ``control``.
    static func cancel(_ task: URLSessionTask) {
        control.async { task.cancel() }
    }

    /// Invalidates `session` once the tasks it still runs have ended. By then each of them has
    /// ended or been cancelled: a transport is not released while it waits for an exchange, and
    /// one it gave up on was cancelled then.
    ///
    /// Not `invalidateAndCancel()`: FoundationNetworking's reads the session's task registry off
    /// the session's own queue, where finishing tasks change it, and that crashed the process
    /// once in a full test run. `finishTasksAndInvalidate()` does all its work on that queue.
    static func invalidate(_ session: URLSession) {
        session.finishTasksAndInvalidate()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = exchanges.withLock { exchanges -> Bool in
            exchanges[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            guard let limit = exchanges[dataTask.taskIdentifier]?.limit else { return false }
            return response.expectedContentLength > Int64(limit)
        }
        // FoundationNetworking ignores the disposition (its documented bug): cancel the task.
        if tooLarge { stop(dataTask, because: .tooLarge(response.expectedContentLength)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit = exchanges.withLock { exchanges -> Bool in
            let id = dataTask.taskIdentifier
            guard let limit = exchanges[id]?.limit, let received = exchanges[id]?.data.count,
                exchanges[id]?.stopped == nil
            else { return false }
            guard received + data.count <= limit else { return true }
            // Appended in place: no copy of what arrived so far.
            exchanges[id]?.data.append(data)
            return false
        }
        if overLimit { stop(dataTask, because: .tooLarge(nil)) }
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
        if let response = challenge.failureResponse as? HTTPURLResponse {
            let recorded = HTTPTransportResponse(status: response.statusCode, headerFields: response.headerFieldList)
            exchanges.withLock { $0[task.taskIdentifier]?.stopped = .challenged(recorded) }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let stopped = exchange.stopped {
            exchange.continuation.resume(returning: stopped)
        } else if let error {
            exchange.continuation.resume(throwing: error)
        } else if let response = exchange.response {
            exchange.continuation.resume(returning: .completed(response, exchange.data))
        } else {
            exchange.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}

extension HTTPURLResponse {
    /// The response's header fields; one whose name is not a field name is left out.
    fileprivate var headerFieldList: HTTPFields {
        HTTPFields(
            allHeaderFields.compactMap { name, value in
                guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else {
                    return nil
                }
                return HTTPField(name: name, value: value)
            })
    }
}
