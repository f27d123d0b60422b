// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()`` or, at the
/// latest, when the value goes away.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Makes the directory, empty and private to this process's user.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes an executable `#!/bin/sh` script called `name` with `body`; its path.
    public func writeScript(named name: String, body: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        let contents = "#!/bin/sh\n\(body)\n"
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o700])
        else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// Removes the directory and what is in it (again when the value goes away: harmless).
    public func remove() { try? FileManager.default.removeItem(at: url) }

    deinit { remove() }
}

/// The text of the file at `path` once it exists and `isComplete` says so (by default: once it
/// is not empty), waiting up to `timeout` with ``eventually(within:_:)``.
public func waitForFile(
    _ path: String, timeout: Duration = .seconds(60), isComplete: (String) -> Bool = { !$0.isEmpty }
) async throws -> String {
    var text: String?
    let found = await eventually(within: timeout) {
        text = try? String(contentsOfFile: path, encoding: .utf8)
        return text.map(isComplete) ?? false
    }
    guard found, let text else { throw WaitedInVain(description: "\(path) never appeared, or stayed incomplete") }
    return text
}

/// What a wait for something that never came throws.
public struct WaitedInVain: Error, CustomStringConvertible {
    /// What never came.
    public let description: String
}
