// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Synchronization
import WebAuthCore
import WebAuthCurl
import WebAuthPlatform

/// The default ``HTTPTransport``: libcurl's easy interface, one blocking transfer on a thread of
/// its own per request. No redirect is followed, no cookie kept, no credential sent but the
/// request's own fields, and only `http` and `https` are spoken. A `3xx` fails with
/// ``HTTPTransportError/Code/redirected`` unless the request opts in with
/// ``HTTPTransportRequest/deliversRedirects``.
///
/// The response is read as it arrives, and the exchange is stopped as soon as it announces or
/// sends more than ``HTTPTransportRequest/maximumResponseSize`` bytes: a hostile endpoint cannot make
/// the client hold more than that.
///
/// Waiting costs nothing: the transfer sleeps in `poll` until the server sends something, and
/// wakes at most once a second to see whether the caller gave up. `URLSessionTransport`
/// (`WebAuthURLSession`; FoundationNetworking on Linux) does not: its libcurl loop keeps
/// watching a connected socket for writing after the request is sent, and a socket is always
/// writable, so waiting for a server that does not answer keeps a core busy until the timeout.
///
/// It loads the system's libcurl (`libcurl.so.4`) at its first request, so a program that
/// links only this transport does not load libcurl and its libraries at every start; on a
/// system without it, every request fails with ``HTTPTransportError/Code/connectionFailed``.
public final class CurlTransport: HTTPTransport {
    /// Creates a transport.
    public init() {}

    /// Sends `request` and reads the response, within the request's timeout and size limit.
    public func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        let endpoint = request.url.redactedForLogs
        let transfer = CurlTransfer(request: request)
        let outcome: CurlTransfer.Outcome
        do {
            outcome = try await withDeadline(
                request.timeout, onGiveUp: { transfer.abandon() }, { await transfer.run() })
        } catch let error as HTTPTransportError {
            throw error.code == .timedOut
                ? HTTPTransportError(code: .timedOut, message: "\(endpoint) did not answer within \(request.timeout)")
                : error
        } catch {
            throw HTTPTransportError(code: .connectionFailed, message: "cannot reach \(endpoint)")
        }
        switch outcome {
        case .tooLarge(let size):
            throw .responseTooLarge(endpoint: endpoint, size: size, limit: request.maximumResponseSize)
        case .failed(let failure):
            throw failure.transportError(endpoint: endpoint, host: request.url.host ?? "", timeout: request.timeout)
        case .completed(let response):
            if (300..<400).contains(response.status), !request.deliversRedirects {
                throw HTTPTransportError(
                    code: .redirected, message: "\(endpoint) answered \(response.status), a redirect")
            }
            return response
        }
    }
}

/// Why libcurl ended a transfer without a response: its result code (`CURLcode`), the system's
/// error number for the last connection attempt, and its own words.
struct CurlFailure: Sendable, Hashable {
    /// libcurl's `CURLcode`.
    var code: Int32
    /// `CURLINFO_OS_ERRNO`: the `errno` of the last failed connection attempt, or 0.
    var systemError: Int32
    /// libcurl's error buffer, such as `Failed to connect to 127.0.0.1 port 1: Connection refused`.
    var text: String

    /// The failure as the transport reports it: the cause in words a person can act on, and
    /// libcurl's code and words as the ``HTTPTransportError/detail``.
    func transportError(endpoint: String, host: String, timeout: Duration) -> HTTPTransportError {
        let detail = "libcurl error \(code) (errno \(systemError))" + (text.isEmpty ? "" : ": \(text)")
        let cause: String
        switch (code, systemError) {
        case (Self.operationTimedOut, _), (Self.couldNotConnect, ETIMEDOUT):
            return HTTPTransportError(
                code: .timedOut, message: "\(endpoint) did not answer within \(timeout)", detail: detail)
        case (Self.couldNotConnect, ECONNREFUSED):
            cause = "the connection was refused: nothing listens there (is the server running, on that port?)"
        case (Self.couldNotConnect, ENETUNREACH), (Self.couldNotConnect, EHOSTUNREACH):
            cause = "there is no route to \(host) (check the network)"
        case (Self.couldNotResolveHost, _):
            cause = "the name \(host) does not resolve (check its spelling and the network)"
        case (Self.couldNotResolveProxy, _):
            cause = "the proxy's name does not resolve (check https_proxy and http_proxy)"
        case (Self.tlsHandshakeFailed, _):
            cause = "the TLS handshake failed (is it an http:// server, not https://?)"
        case (Self.peerFailedVerification, _):
            cause = "the server's TLS certificate is not trusted here"
        case (Self.gotNothing, _):
            cause = "the server closed the connection without answering"
        case (Self.sendError, _), (Self.receiveError, _):
            cause = "the connection broke"
        case (Self.unavailable, _):
            cause = "libcurl (libcurl.so.4) is not installed"
        default:
            cause = "the connection failed"
        }
        return HTTPTransportError(
            code: .connectionFailed, message: "cannot reach \(endpoint): \(cause)", detail: detail)
    }

    /// libcurl missing (not a `CURLcode`).
    static let unavailable: Int32 = -1
    /// `CURLE_COULDNT_RESOLVE_PROXY`.
    static let couldNotResolveProxy: Int32 = 5
    /// `CURLE_COULDNT_RESOLVE_HOST`.
    static let couldNotResolveHost: Int32 = 6
    /// `CURLE_COULDNT_CONNECT`.
    static let couldNotConnect: Int32 = 7
    /// `CURLE_OPERATION_TIMEDOUT`.
    static let operationTimedOut: Int32 = 28
    /// `CURLE_SSL_CONNECT_ERROR`.
    static let tlsHandshakeFailed: Int32 = 35
    /// `CURLE_GOT_NOTHING`.
    static let gotNothing: Int32 = 52
    /// `CURLE_SEND_ERROR`.
    static let sendError: Int32 = 55
    /// `CURLE_RECV_ERROR`.
    static let receiveError: Int32 = 56
    /// `CURLE_PEER_FAILED_VERIFICATION`.
    static let peerFailedVerification: Int32 = 60
}

/// One request's transfer: set up on the thread that runs it, read by libcurl's callbacks on
/// that thread, and given up from any thread.
private final class CurlTransfer: Sendable {
    /// How a transfer ended.
    enum Outcome: Sendable {
        /// The whole response.
        case completed(HTTPTransportResponse)
        /// Stopped for announcing (with its size) or sending more than the limit.
        case tooLarge(Int64?)
        /// No response.
        case failed(CurlFailure)
    }

    /// What the callbacks gather.
    private struct Received {
        var headerFields = HTTPFields()
        var body = Data()
        /// Set when the response was cut off for its size.
        var stopped: Outcome?
    }

    private let request: HTTPTransportRequest
    private let received = Locked(Received())
    private let abandoned = Atomic(false)

    init(request: HTTPTransportRequest) {
        self.request = request
    }

    /// Runs the transfer on a thread of its own, which blocks in libcurl until it ends.
    func run() async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.perform()) }.start()
        }
    }

    /// Makes the transfer end at libcurl's next look at its progress (within a second).
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
    }

    private func perform() -> Outcome {
        guard let handle = webauth_curl_easy_init() else {
            return .failed(CurlFailure(code: CurlFailure.unavailable, systemError: 0, text: ""))
        }
        defer { webauth_curl_easy_cleanup(handle) }
        var fields: UnsafeMutableRawPointer?
        // Expect: 100-continue would hold a larger body back for a second.
        for line in request.headerFields.map({ "\($0.name.rawName): \($0.value)" }) + ["Expect:"] {
            fields = webauth_curl_slist_append(fields, line) ?? fields
        }
        defer { webauth_curl_slist_free_all(fields) }
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(WEBAUTH_CURL_ERROR_SIZE))
        errorText.initialize(repeating: 0, count: Int(WEBAUTH_CURL_ERROR_SIZE))
        defer { errorText.deallocate() }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let protocols = Int(WEBAUTH_CURLPROTO_HTTP | WEBAUTH_CURLPROTO_HTTPS)

        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_URL), request.url.absoluteString)
        _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_PROTOCOLS), protocols)
        _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_REDIR_PROTOCOLS), protocols)
        _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_FOLLOWLOCATION), 0)
        _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_NOSIGNAL), 1)
        _ = webauth_curl_setopt_long(
            handle, Int32(WEBAUTH_CURLOPT_TIMEOUT_MS), Int(max(1, request.timeout.timeInterval * 1000)))
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_USERAGENT), "webauth")
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_HTTPHEADER), fields)
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_ERRORBUFFER), errorText)
        _ = webauth_curl_setopt_data_callback(handle, Int32(WEBAUTH_CURLOPT_HEADERFUNCTION), curlHeaderLine)
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_HEADERDATA), context)
        _ = webauth_curl_setopt_data_callback(handle, Int32(WEBAUTH_CURLOPT_WRITEFUNCTION), curlBodyBytes)
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_WRITEDATA), context)
        _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_NOPROGRESS), 0)
        _ = webauth_curl_setopt_progress_callback(handle, curlProgress)
        _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_XFERINFODATA), context)
        switch (request.method, request.body) {
        case ("GET", nil):
            _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_HTTPGET), 1)
        case ("HEAD", _):
            _ = webauth_curl_setopt_long(handle, Int32(WEBAUTH_CURLOPT_NOBODY), 1)
        case (let method, let body):
            // The size first: then COPYPOSTFIELDS copies that many bytes, zeros included.
            let bytes = body ?? Data()
            _ = webauth_curl_setopt_offset(handle, Int32(WEBAUTH_CURLOPT_POSTFIELDSIZE_LARGE), Int64(bytes.count))
            _ = bytes.withUnsafeBytes { buffer in
                guard let start = buffer.baseAddress else {
                    return webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_COPYPOSTFIELDS), "")
                }
                return webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_COPYPOSTFIELDS), start)
            }
            if method != "POST" {
                _ = webauth_curl_setopt_pointer(handle, Int32(WEBAUTH_CURLOPT_CUSTOMREQUEST), method)
            }
        }

        let code = webauth_curl_easy_perform(handle)
        let received = received.withLock { $0 }
        if let stopped = received.stopped { return stopped }
        guard code == 0 else {
            var systemError = 0
            _ = webauth_curl_getinfo_long(handle, Int32(WEBAUTH_CURLINFO_OS_ERRNO), &systemError)
            return .failed(CurlFailure(code: code, systemError: Int32(systemError), text: String(cString: errorText)))
        }
        var status = 0
        _ = webauth_curl_getinfo_long(handle, Int32(WEBAUTH_CURLINFO_RESPONSE_CODE), &status)
        return .completed(
            HTTPTransportResponse(status: status, headerFields: received.headerFields, body: received.body))
    }

    /// Takes one header line; returns whether to go on. Read as bytes: the line's ends and the
    /// value's are trimmed of HTTP's whitespace (space, tab, and the line's CR LF), which is
    /// all RFC 9110 §5.5 lets surround a field value.
    fileprivate func headerLine(_ line: UnsafeRawBufferPointer) -> Bool {
        let line = Self.trimmed(line[...])
        return received.withLock { received in
            if line.starts(with: "HTTP/".utf8) {
                // A new response: an interim 100's fields are not the final one's.
                received.headerFields = HTTPFields()
                return true
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                let name = HTTPField.Name(String(decoding: line[..<colon], as: UTF8.self))
            else { return true }
            let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
            received.headerFields.append(HTTPField(name: name, value: value))
            if name == .contentLength, let length = Int64(value), length > Int64(request.maximumResponseSize) {
                received.stopped = .tooLarge(length)
                return false
            }
            return true
        }
    }

    /// `bytes` without the spaces, tabs, CRs and LFs at either end.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// Takes body bytes; returns whether to go on.
    fileprivate func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received.withLock { received in
            guard received.body.count + bytes.count <= request.maximumResponseSize else {
                received.stopped = .tooLarge(nil)
                return false
            }
            received.body.append(contentsOf: bytes)
            return true
        }
    }

    /// Whether the caller gave up.
    fileprivate var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }
}

/// `CURLOPT_HEADERFUNCTION`: one header line of the response.
private func curlHeaderLine(
    _ bytes: UnsafeMutablePointer<CChar>, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.headerLine(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
}

/// `CURLOPT_WRITEFUNCTION`: bytes of the response's body.
private func curlBodyBytes(
    _ bytes: UnsafeMutablePointer<CChar>, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.bodyBytes(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
}

/// `CURLOPT_XFERINFOFUNCTION`: called at least once a second; non-zero ends the transfer.
private func curlProgress(_ context: UnsafeMutableRawPointer?, _: Int64, _: Int64, _: Int64, _: Int64) -> Int32 {
    guard let context else { return 1 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().isAbandoned ? 1 : 0
}
