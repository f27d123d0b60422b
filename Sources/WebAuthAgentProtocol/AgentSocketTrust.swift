// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthPlatform

/// The rule a client checks a socket path by before it connects: the socket and its directory
/// belong to this user or root, are not symbolic links, and cannot be replaced by anyone else.
///
/// Another user's listener at the path (a squatted default path, a planted forwarding target)
/// is then refused at once, without a connection that could stall or a request it could read.
/// The directory may be writable by others only when its sticky bit is set (as `/tmp` is):
/// there nobody but the socket's owner can rename or remove it.
package enum AgentSocketTrust {
    /// Why a socket path is not asked.
    package enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// The path is a symbolic link.
        case socketIsLink
        /// The path is a regular file or a directory, not a socket.
        case notASocket
        /// The socket belongs to another user.
        case socketOwner(UInt32)
        /// The socket is writable by its group or by others.
        case socketWritableByOthers(UInt32)
        /// The directory is a symbolic link or not a directory.
        case directoryNotDirectory
        /// The directory belongs to another user.
        case directoryOwner(UInt32)
        /// The directory is writable by its group or by others, without the sticky bit.
        case directoryWritableByOthers(UInt32)

        /// A sentence naming what is wrong.
        package var description: String {
            switch self {
            case .socketIsLink: "it is a symbolic link"
            case .notASocket: "it is not a socket"
            case .socketOwner(let owner): "it belongs to another user (uid \(owner))"
            case .socketWritableByOthers(let mode): "others may write to it (mode \(Self.octal(mode)))"
            case .directoryNotDirectory: "its directory is a symbolic link or not a directory"
            case .directoryOwner(let owner): "its directory belongs to another user (uid \(owner))"
            case .directoryWritableByOthers(let mode):
                "others may replace it: its directory is writable by them (mode \(Self.octal(mode)))"
            }
        }

        static func octal(_ mode: UInt32) -> String { "0" + String(mode, radix: 8) }
    }

    /// What is wrong with a socket of status `socket` in a directory of status `directory`, for
    /// user `user`; `nil` when it may be asked.
    package static func problem(socket: FileStatus, directory: FileStatus, user: UInt32) -> Problem? {
        switch socket.kind {
        case .symbolicLink: return .socketIsLink
        case .regular, .directory: return .notASocket
        case .other: break
        }
        guard socket.owner == user || socket.owner == 0 else { return .socketOwner(socket.owner) }
        guard socket.permissions & 0o022 == 0 else { return .socketWritableByOthers(socket.permissions) }
        guard directory.kind == .directory else { return .directoryNotDirectory }
        guard directory.owner == user || directory.owner == 0 else { return .directoryOwner(directory.owner) }
        let sticky: UInt32 = 0o1000
        guard directory.permissions & 0o022 == 0 || directory.permissions & sticky != 0 else {
            return .directoryWritableByOthers(directory.permissions)
        }
        return nil
    }
}
