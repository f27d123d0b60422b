import Foundation

extension HostileProvider {
    /// A JSON value, for documents, token responses and ID token claims the provider serves:
    /// written with literals, `Sendable`, and encoded with sorted keys.
    ///
    /// ```swift
    /// let value: HostileProvider.JSONValue = ["aud": ["client", "other"], "exp": 1_700_000_000, "ok": true]
    /// ```
    package enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible,
        ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
        ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral,
        ExpressibleByFloatLiteral
    {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// An integer.
        case int(Int)
        /// A number with a fraction.
        case double(Double)
        /// A string.
        case string(String)
        /// An array.
        case array([JSONValue])
        /// An object.
        case object([String: JSONValue])

        /// A string.
        package init(stringLiteral value: String) { self = .string(value) }
        /// An integer.
        package init(integerLiteral value: Int) { self = .int(value) }
        /// A Boolean.
        package init(booleanLiteral value: Bool) { self = .bool(value) }
        /// An array.
        package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
        /// `null`.
        package init(nilLiteral: ()) { self = .null }
        /// A number with a fraction.
        package init(floatLiteral value: Double) { self = .double(value) }
        /// An object; a repeated key keeps its last value.
        package init(dictionaryLiteral elements: (String, JSONValue)...) {
            self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
        }

        /// A date as seconds since 1970 (a JWT `NumericDate`), rounded down.
        package static func date(_ date: Date) -> JSONValue { .int(Int(date.timeIntervalSince1970.rounded(.down))) }

        /// An array of strings.
        package static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

        /// Decodes any JSON value.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSONValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        /// Encodes the value.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }

        /// Parses `data`, or returns `nil` when it is not JSON.
        package static func parse(_ data: some DataProtocol) -> JSONValue? {
            try? JSONDecoder().decode(JSONValue.self, from: Data(data))
        }

        /// The compact JSON text, keys sorted, as bytes.
        package var serialized: [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Encoding cannot fail: every case maps onto a JSON value.
            return Array((try? encoder.encode(self)) ?? Data("null".utf8))
        }

        /// The compact JSON text, keys sorted.
        package var description: String { String(decoding: serialized, as: UTF8.self) }

        /// The member `key` of an object; `nil` for other values or a missing member.
        package subscript(key: String) -> JSONValue? {
            if case .object(let members) = self { return members[key] }
            return nil
        }

        /// The string, if this is one.
        package var stringValue: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        /// The integer, if this is one.
        package var intValue: Int? {
            if case .int(let value) = self { return value }
            return nil
        }

        /// The Boolean, if this is one.
        package var boolValue: Bool? {
            if case .bool(let value) = self { return value }
            return nil
        }

        /// The elements, if this is an array.
        package var arrayValue: [JSONValue]? {
            if case .array(let value) = self { return value }
            return nil
        }

        /// The members, if this is an object.
        package var objectValue: [String: JSONValue]? {
            if case .object(let value) = self { return value }
            return nil
        }
    }
}
