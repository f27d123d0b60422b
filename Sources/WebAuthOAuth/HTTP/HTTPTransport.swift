import Foundation

/// Sends HTTP requests for the OAuth layer: the seam between the protocol logic and the network.
///
/// The default is ``URLSessionTransport``. Tests and programs with their own HTTP stack supply
/// another:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     let base: any HTTPTransport
///     func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
///         print(request.method, request.url.host ?? "")
///         return try await base.send(request)
///     }
/// }
/// ```
///
/// A transport must not follow redirects (the OAuth endpoints answer directly), must honour
/// ``HTTPRequest/timeout`` and ``HTTPRequest/maximumResponseSize``, and must not keep cookies.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse
}

/// An HTTP request to an OAuth endpoint.
public struct HTTPRequest: Sendable, Hashable {
    /// The method, `GET` or `POST`.
    public var method: String
    /// The endpoint.
    public var url: URL
    /// Header fields, in the order they are sent.
    public var headerFields: [HeaderField]
    /// The body, for `POST`.
    public var body: Data?
    /// How long the whole exchange may take.
    public var timeout: Duration
    /// The largest response body accepted; larger ones fail with
    /// ``HTTPTransportError/Code/responseTooLarge``.
    public var maximumResponseSize: Int

    /// A header field name and value.
    public struct HeaderField: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The default ``timeout``: 30 seconds.
    public static let defaultTimeout: Duration = .seconds(30)
    /// The default ``maximumResponseSize``: 1 MiB, far more than any token or metadata response.
    public static let defaultMaximumResponseSize = 1 << 20

    /// Creates a request.
    public init(
        method: String, url: URL, headerFields: [HeaderField] = [], body: Data? = nil,
        timeout: Duration = HTTPRequest.defaultTimeout,
        maximumResponseSize: Int = HTTPRequest.defaultMaximumResponseSize
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// The value of the first header field named `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headerFields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// An HTTP response from an OAuth endpoint.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields as received.
    public var headerFields: [HTTPRequest.HeaderField]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headerFields: [HTTPRequest.HeaderField] = [], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// The value of the first header field named `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headerFields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Why a transport could not deliver a response.
public struct HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case timedOut, responseTooLarge, connectionFailed, redirected
        }
        private let kind: Kind

        /// No complete response within the request's timeout.
        public static let timedOut = Code(kind: .timedOut)
        /// The response body was larger than the request allows.
        public static let responseTooLarge = Code(kind: .responseTooLarge)
        /// No connection, or the connection broke.
        public static let connectionFailed = Code(kind: .connectionFailed)
        /// The server answered with a redirect, which OAuth endpoints must not do.
        public static let redirected = Code(kind: .redirected)

        /// The code's name.
        public var description: String { kind.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A description for people; never contains a query string or a request body.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and message.
    public var description: String { "\(code): \(message)" }
}
