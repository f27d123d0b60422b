import Foundation

/// An HTTP response from an OAuth endpoint.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields as received.
    public var headerFields: [HTTPTransportRequest.HeaderField]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headerFields: [HTTPTransportRequest.HeaderField] = [], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// The value of the first header field named `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headerFields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
