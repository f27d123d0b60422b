// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import FuzzHarness
import WebAuthFastPath
import WebAuthTokenFiles

/// A message from the session bus as the fast path's keyring read takes it, and a bus address.
///
/// Input: the bytes of one D-Bus message (the corpus holds the Secret Service's replies). Checks:
/// a message that parses is exactly as long as its header says; a secret the reader takes is
/// plain text no larger than an entry; an item or session it takes is an object path; the same bytes read as a bus
/// address give a socket name that fits a Unix socket address.
@main
enum FuzzSecretServiceReply {
    static func main() {
        FuzzHarness.run { bytes in
            if let message = DBusMessage(parsing: bytes) {
                FuzzHarness.require(
                    DBusMessage.size(ofMessageStartingWith: bytes[...]) == bytes.count,
                    "a message that parses but is not as long as its header says")
                if let secret = SecretServiceLookup.plainText(message) {
                    FuzzHarness.require(
                        secret.count <= KeyringItem.maximumEntrySize, "a secret larger than an entry")
                }
                if let item = SecretServiceLookup.onlyUnlockedItem(message) {
                    FuzzHarness.require(item.hasPrefix("/"), "an item that is not an object path")
                }
                if let session = SecretServiceLookup.sessionPath(message) {
                    FuzzHarness.require(session.hasPrefix("/"), "a session that is not an object path")
                }
            }
            if let address = DBusAddress(String(decoding: bytes, as: UTF8.self)) {
                switch address.socket {
                case .path(let name), .abstract(let name):
                    FuzzHarness.require(!name.isEmpty && name.utf8.count <= 107, "a socket name that does not fit")
                }
            }
        }
    }
}
