// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Where a D-Bus bus listens, read from an address such as `DBUS_SESSION_BUS_ADDRESS`: its first
/// entry, when that is `unix:path=…` or `unix:abstract=…` (entries are separated by `;`, keys by
/// `,`, and values percent-escaped), with the bus's `guid=` when the address gives one.
///
/// Only the first entry: it is the one D-Bus clients (libsecret's `secret-tool` among them) try
/// first, and the one ``SessionBusSocket`` checks for them. An address that starts with another
/// transport — `tcp:`, `autolaunch:`, `unixexec:` — is not used here.
///
/// ```swift
/// DBusAddress("unix:path=/run/user/1000/bus")?.socket         // .path("/run/user/1000/bus")
/// DBusAddress("unix:abstract=/tmp/dbus-x,guid=0f3c")?.guid    // "0f3c"
/// DBusAddress("autolaunch:")                                  // nil
/// ```
package struct DBusAddress: Sendable, Hashable {
    /// A Unix socket: a file, or a name in Linux's abstract namespace.
    package enum Socket: Sendable, Hashable {
        case path(String)
        case abstract(String)
    }

    /// The socket to connect to.
    package let socket: Socket

    /// The bus's GUID, when the address names one: the bus must say the same in its `OK`.
    package let guid: String?

    /// The longest socket name that fits a `sockaddr_un` (108 bytes, with its terminating or
    /// leading NUL).
    static let maximumNameLength = 107

    /// The first entry of `text`, or `nil` when it is not a usable `unix:` entry.
    package init?(_ text: String) {
        guard let entry = text.split(separator: ";").first, let colon = entry.firstIndex(of: ":"),
            entry[..<colon] == "unix"
        else { return nil }
        var keys: [Substring: String] = [:]
        for pair in entry[entry.index(after: colon)...].split(separator: ",") {
            guard let equals = pair.firstIndex(of: "="),
                let value = Self.unescaped(pair[pair.index(after: equals)...])
            else { continue }
            keys[pair[..<equals]] = value
        }
        guid = keys["guid"]
        if let path = keys["path"], !path.isEmpty, path.utf8.count <= Self.maximumNameLength {
            socket = .path(path)
        } else if let name = keys["abstract"], !name.isEmpty, name.utf8.count <= Self.maximumNameLength {
            socket = .abstract(name)
        } else {
            return nil
        }
    }

    /// `value` with its `%XX` escapes decoded; `nil` for a broken escape or bytes that are not
    /// UTF-8.
    static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = value.utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = rest.popFirst().flatMap(hexValue), let low = rest.popFirst().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
