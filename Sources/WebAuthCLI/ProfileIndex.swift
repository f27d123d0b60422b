import Foundation
import WebAuthTokenStore

/// Which store each profile was saved in, so later commands with `--store automatic` go
/// straight to it instead of asking the keyring first.
///
/// A small JSON file, `$XDG_STATE_HOME/webauth/profiles.json` (next to the file store's
/// `tokens` directory), mode 0600, holding only profile names and store kinds — no tokens:
///
/// ```json
/// {"profiles":{"default":"file","work":"keyring"},"version":1}
/// ```
///
/// Writes are atomic and durable (``PrivateFile``: temporary file, `fsync`, rename) under
/// `flock` on `.profiles.lock`; a missing or unreadable index just means "not known", and
/// commands then look in every store.
package struct ProfileIndex: Sendable {
    /// The index file.
    let path: String
    /// The directory holding it.
    let directory: String

    /// The index for `environment`'s file store location.
    init(environment: [String: String]) {
        directory = (FileTokenStore.defaultDirectory(environment: environment) as NSString).deletingLastPathComponent
        path = directory + "/profiles.json"
    }

    private struct Contents: Codable {
        var version = 1
        var profiles: [String: TokenStoreKind] = [:]
    }

    /// Every profile the index knows, with its store.
    func entries() -> [String: TokenStoreKind] {
        read().profiles
    }

    /// The store `profile` was saved in, if known.
    func kind(of profile: String) -> TokenStoreKind? {
        read().profiles[profile]
    }

    /// Records that `profile` lives in a store of `kind`.
    func record(_ kind: TokenStoreKind, for profile: String) async throws {
        try await change { $0.profiles[profile] = kind }
    }

    /// Forgets `profile`.
    func forget(_ profile: String) async throws {
        try await change { $0.profiles[profile] = nil }
    }

    /// The profiles and stores the bytes of an index file name; `nil` when they are not an
    /// index this version reads.
    package static func entries(decoding data: Data) -> [String: TokenStoreKind]? {
        (try? JSONDecoder().decode(Contents.self, from: data))?.profiles
    }

    private func read() -> Contents {
        guard let data = FileManager.default.contents(atPath: path), let profiles = Self.entries(decoding: data)
        else { return Contents() }
        return Contents(profiles: profiles)
    }

    private func change(_ body: (inout Contents) -> Void) async throws {
        try FileTokenStore.preparePrivateDirectory(directory, logger: .init(label: "webauth.index"))
        try await ProfileLock.withLock(at: directory + "/.profiles.lock", timeout: .seconds(30)) {
            var contents = read()
            let before = contents.profiles
            body(&contents)
            guard contents.profiles != before else { return }
            try write(contents)
        }
    }

    private func write(_ contents: Contents) throws(TokenStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(contents) else {
            throw TokenStoreError(code: .encodingFailed, message: "the profile index could not be encoded")
        }
        try PrivateFile.write(data, to: path)
    }
}
