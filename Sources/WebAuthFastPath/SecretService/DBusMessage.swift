// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The few D-Bus messages the keyring read needs, in the wire format of the D-Bus
/// specification: method calls written little-endian, replies read in either byte order.
///
/// A message is a 16-byte fixed header (byte order `l`/`B`, type, flags, version 1, body
/// length, serial, length of the header fields), the header fields (an array of
/// `(code, variant)` structures), padding to 8, and the body. Every value is aligned to its
/// size (strings and arrays to 4 for their length, structures and dictionary entries to 8),
/// counted from the start of the message.
///
/// ```swift
/// let call = DBusMessage.methodCall(
///     serial: 2, destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
///     interface: "org.freedesktop.Secret.Service", member: "OpenSession", signature: "sv"
/// ) { body in
///     body.string("plain")
///     body.variantString("")
/// }
/// ```
package struct DBusMessage: Sendable, Hashable {
    /// What a message is.
    package enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// The message's kind.
    package let kind: Kind
    /// For a reply: the serial of the call it answers.
    package let replySerial: UInt32?
    /// For an error: its name, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
    package let errorName: String?
    /// The body's signature (empty for no body).
    package let signature: String
    /// The whole message; ``body()`` reads its body.
    let bytes: [UInt8]
    let bodyStart: Int
    let bigEndian: Bool

    /// The size of the fixed part of the header.
    static let fixedHeaderSize = 16
    /// The largest message read: far above a keyring entry (8 KiB) and its framing.
    package static let maximumSize = 256 * 1024

    /// The flag that keeps the bus from starting a service to answer a call.
    static let noAutoStart: UInt8 = 0x2

    // MARK: Writing

    /// A method call, little-endian, that never starts a service (`NO_AUTO_START`).
    package static func methodCall(
        serial: UInt32, destination: String, path: String, interface: String, member: String,
        signature: String = "", body: (inout DBusWriter) -> Void = { _ in }
    ) -> [UInt8] {
        var bodyWriter = DBusWriter()
        body(&bodyWriter)
        var message = DBusWriter()
        message.byte(UInt8(ascii: "l"))
        message.byte(Kind.methodCall.rawValue)
        message.byte(noAutoStart)
        message.byte(1)
        message.uint32(UInt32(bodyWriter.bytes.count))
        message.uint32(serial)
        message.array(elementAlignment: 8) { fields in
            fields.headerField(1, "o", path)
            fields.headerField(2, "s", interface)
            fields.headerField(3, "s", member)
            fields.headerField(6, "s", destination)
            if !signature.isEmpty { fields.headerField(8, "g", signature) }
        }
        message.pad(to: 8)
        // The body starts at a multiple of 8, and every alignment divides 8: written on its own,
        // it is aligned as within the message.
        return message.bytes + bodyWriter.bytes
    }

    // MARK: Reading

    /// How many bytes the message starting with `header` (at least ``fixedHeaderSize`` bytes)
    /// takes in all; `nil` for a header that is not D-Bus or a message over ``maximumSize``.
    package static func size(ofMessageStartingWith header: ArraySlice<UInt8>) -> Int? {
        guard header.count >= fixedHeaderSize else { return nil }
        var reader = DBusReader(bytes: Array(header.prefix(fixedHeaderSize)))
        guard let order = reader.byte(), order == UInt8(ascii: "l") || order == UInt8(ascii: "B") else { return nil }
        reader.bigEndian = order == UInt8(ascii: "B")
        reader.offset = 4
        guard let bodyLength = reader.uint32(), reader.uint32() != nil, let fieldsLength = reader.uint32() else {
            return nil
        }
        let headerEnd = (fixedHeaderSize + Int(fieldsLength) + 7) / 8 * 8
        let total = headerEnd + Int(bodyLength)
        return total <= maximumSize ? total : nil
    }

    /// Reads a whole message; `nil` for anything malformed, or with a header field of a type the
    /// specification does not give it.
    package init?(parsing bytes: [UInt8]) {
        guard let size = Self.size(ofMessageStartingWith: bytes[...]), size == bytes.count else { return nil }
        var reader = DBusReader(bytes: bytes)
        reader.bigEndian = bytes[0] == UInt8(ascii: "B")
        guard let kind = Kind(rawValue: bytes[1]), bytes[3] == 1 else { return nil }
        reader.offset = 12
        guard let fieldsLength = reader.uint32() else { return nil }
        let fieldsEnd = Self.fixedHeaderSize + Int(fieldsLength)
        var replySerial: UInt32?
        var errorName: String?
        var signature = ""
        while reader.offset < fieldsEnd {
            guard reader.align(8), let code = reader.byte(), let type = reader.signature() else { return nil }
            switch (code, type) {
            case (5, "u"), (9, "u"):
                guard let value = reader.uint32() else { return nil }
                if code == 5 { replySerial = value }
            case (1, "o"), (2, "s"), (3, "s"), (4, "s"), (6, "s"), (7, "s"):
                guard let value = reader.string() else { return nil }
                if code == 4 { errorName = value }
            case (8, "g"):
                guard let value = reader.signature() else { return nil }
                signature = value
            default:
                return nil
            }
        }
        guard reader.offset == fieldsEnd, reader.align(8) else { return nil }
        self.kind = kind
        self.replySerial = replySerial
        self.errorName = errorName
        self.signature = signature
        self.bytes = bytes
        self.bodyStart = reader.offset
        self.bigEndian = reader.bigEndian
    }

    /// A reader at the start of the body.
    package func body() -> DBusReader {
        var reader = DBusReader(bytes: bytes)
        reader.bigEndian = bigEndian
        reader.offset = bodyStart
        return reader
    }
}

/// Writes D-Bus values, little-endian, each aligned as the specification requires.
package struct DBusWriter: Sendable {
    /// What is written so far.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// Zero bytes up to a multiple of `alignment`.
    package mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// A `y`.
    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// A `u`.
    package mutating func uint32(_ value: UInt32) {
        pad(to: 4)
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// An `s` or an `o`: its length, its UTF-8 bytes and a NUL.
    package mutating func string(_ value: String) {
        uint32(UInt32(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    /// A `g`: a one-byte length, the characters and a NUL.
    package mutating func signature(_ value: String) {
        bytes.append(UInt8(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    /// A `v` holding an `s`.
    package mutating func variantString(_ value: String) {
        signature("s")
        string(value)
    }

    /// An array whose elements `elements` writes (they must be aligned to `elementAlignment`):
    /// its length in bytes, padding to the first element, the elements.
    package mutating func array(elementAlignment: Int, _ elements: (inout DBusWriter) -> Void) {
        uint32(0)
        let lengthAt = bytes.count - 4
        pad(to: elementAlignment)
        let start = bytes.count
        elements(&self)
        withUnsafeBytes(of: UInt32(bytes.count - start).littleEndian) { length in
            bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: length)
        }
    }

    /// An `a{ss}` of `pairs`, in order.
    package mutating func stringDictionary(_ pairs: [(String, String)]) {
        array(elementAlignment: 8) { entries in
            for (key, value) in pairs {
                entries.pad(to: 8)
                entries.string(key)
                entries.string(value)
            }
        }
    }

    /// A header field: `(code, variant)`, the variant of type `type` (`s`, `o` or `g`).
    package mutating func headerField(_ code: UInt8, _ type: String, _ value: String) {
        pad(to: 8)
        byte(code)
        signature(type)
        if type == "g" { signature(value) } else { string(value) }
    }
}

/// Reads D-Bus values from a whole message, checking every length and alignment against what is
/// there; each read is `nil` when the bytes do not hold the value.
package struct DBusReader: Sendable {
    let bytes: [UInt8]
    /// The position, counted from the start of the message.
    package var offset = 0
    /// Whether the message is big-endian (`B`).
    var bigEndian = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Skips padding up to a multiple of `alignment`; `false` past the end.
    package mutating func align(_ alignment: Int) -> Bool {
        offset = (offset + alignment - 1) / alignment * alignment
        return offset <= bytes.count
    }

    /// A `y`.
    package mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A `u`.
    package mutating func uint32() -> UInt32? {
        guard align(4), offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (bigEndian ? index : 3 - index)])
            value = value << 8 | byte
        }
        offset += 4
        return value
    }

    /// An `s` or an `o`.
    package mutating func string() -> String? {
        guard let length = uint32().map(Int.init), offset + length < bytes.count, bytes[offset + length] == 0 else {
            return nil
        }
        defer { offset += length + 1 }
        return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
    }

    /// A `g`.
    package mutating func signature() -> String? {
        guard let length = byte().map(Int.init), offset + length < bytes.count, bytes[offset + length] == 0 else {
            return nil
        }
        defer { offset += length + 1 }
        return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
    }

    /// An `ay`.
    package mutating func byteArray() -> [UInt8]? {
        guard let length = uint32().map(Int.init), offset + length <= bytes.count else { return nil }
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }

    /// An `ao` (or an `as`).
    package mutating func stringArray() -> [String]? {
        guard let length = uint32().map(Int.init), align(4), offset + length <= bytes.count else { return nil }
        let end = offset + length
        var strings: [String] = []
        while offset < end {
            guard let string = string(), offset <= end else { return nil }
            strings.append(string)
        }
        return strings
    }
}
