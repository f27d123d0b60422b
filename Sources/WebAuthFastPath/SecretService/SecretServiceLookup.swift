// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// Reads a profile's item from the desktop keyring straight over D-Bus (the freedesktop.org
/// Secret Service API), in a few milliseconds instead of the tens a `secret-tool` process takes —
/// but only when the answer is the one `secret-tool lookup`, which the keyring store runs, would
/// give:
///
/// 1. connect to the session bus (``DBusAddress``: a `unix:path` or `unix:abstract` socket);
/// 2. `OpenSession("plain")` on `org.freedesktop.secrets`, and `SearchItems` for the item's
///    attributes (``KeyringItem/attributes(profile:)``): exactly one unlocked item, no locked
///    one;
/// 3. `GetSecret` on that item: a `text/plain` secret of at most
///    ``KeyringItem/maximumEntrySize`` bytes.
///
/// Anything else is `nil` — no item, several, a locked keyring (the full program's
/// `secret-tool` asks to unlock it; this never prompts), a keyring that wants an encrypted
/// session, no keyring running (calls carry `NO_AUTO_START`: this never starts one), another
/// transport, a malformed reply, or no answer within ``timeLimit`` — and the full program asks
/// again and reports.
///
/// The session is `plain`: the secret crosses the session bus — a socket only this user can
/// reach — unencrypted, as the Secret Service hands it to any program of this user that asks;
/// nothing else (a proxy, a file) ever holds it.
///
/// ```swift
/// let bytes = SecretServiceLookup.secret(profile: "work", busAddress: "unix:path=/run/user/1000/bus")
/// ```
package enum SecretServiceLookup {
    /// How long the whole read may take. It never waits for a person, so a keyring slower than
    /// this is left to the full program, which gives `secret-tool` 10 seconds.
    package static let timeLimit: Duration = .seconds(2)

    static let service = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"

    /// The secret of `profile`'s item, or `nil`.
    package static func secret(profile: String, busAddress: String) -> [UInt8]? {
        guard let address = DBusAddress(busAddress),
            var bus = DBusConnection(address, deadline: .now + timeLimit)
        else { return nil }
        defer { bus.close() }

        // Both calls at once: the search does not need the session.
        let open = bus.nextSerial()
        let search = bus.nextSerial()
        let calls =
            DBusMessage.methodCall(
                serial: open, destination: service, path: servicePath, interface: "org.freedesktop.Secret.Service",
                member: "OpenSession", signature: "sv"
            ) { body in
                body.string("plain")
                body.variantString("")
            }
            + DBusMessage.methodCall(
                serial: search, destination: service, path: servicePath, interface: "org.freedesktop.Secret.Service",
                member: "SearchItems", signature: "a{ss}"
            ) { body in
                let attributes = KeyringItem.attributes(profile: profile)
                body.stringDictionary(
                    stride(from: 0, to: attributes.count, by: 2).map { (attributes[$0], attributes[$0 + 1]) })
            }
        guard bus.send(calls),
            let opened = bus.reply(to: open), let session = sessionPath(opened),
            let found = bus.reply(to: search), let item = onlyUnlockedItem(found)
        else { return nil }

        let get = bus.nextSerial()
        guard
            bus.send(
                DBusMessage.methodCall(
                    serial: get, destination: service, path: item, interface: "org.freedesktop.Secret.Item",
                    member: "GetSecret", signature: "o"
                ) { body in body.string(session) }),
            let reply = bus.reply(to: get), let secret = plainText(reply)
        else { return nil }
        // The session ends with the connection, as libsecret's do: the keyring closes the
        // sessions of a client that leaves the bus.
        return secret
    }

    /// `OpenSession`'s session path, from its `(v output, o result)`.
    package static func sessionPath(_ reply: DBusMessage) -> String? {
        guard reply.kind == .methodReturn, reply.signature == "vo" else { return nil }
        var body = reply.body()
        guard body.signature() == "s", body.string() != nil, let session = body.string(), session.hasPrefix("/")
        else { return nil }
        return session
    }

    /// `SearchItems`' one unlocked item, from its `(ao unlocked, ao locked)`.
    package static func onlyUnlockedItem(_ reply: DBusMessage) -> String? {
        guard reply.kind == .methodReturn, reply.signature == "aoao" else { return nil }
        var body = reply.body()
        guard let unlocked = body.stringArray(), let locked = body.stringArray(), unlocked.count == 1, locked.isEmpty,
            unlocked[0].hasPrefix("/")
        else { return nil }
        return unlocked[0]
    }

    /// `GetSecret`'s value, from its `((o session, ay parameters, ay value, s content type))`,
    /// when it is plain text no larger than an entry.
    package static func plainText(_ reply: DBusMessage) -> [UInt8]? {
        guard reply.kind == .methodReturn, reply.signature == "(oayays)" else { return nil }
        var body = reply.body()
        guard body.align(8), body.string() != nil, let parameters = body.byteArray(), parameters.isEmpty,
            let value = body.byteArray(), let contentType = body.string(),
            contentType == "text/plain" || contentType.hasPrefix("text/plain;"),
            value.count <= KeyringItem.maximumEntrySize
        else { return nil }
        return value
    }
}
