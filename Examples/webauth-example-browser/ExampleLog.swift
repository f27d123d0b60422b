import Foundation

/// Where the example says what it does, one line per event (never a URL's query): the file
/// named by `WEBAUTH_EXAMPLE_BROWSER_LOG`, else standard error.
final class ExampleLog: Sendable {
    private let path: String?

    init(path: String?) {
        self.path = path
    }

    func write(_ line: String) {
        let data = Data((line + "\n").utf8)
        guard let path, let handle = FileHandle(forWritingAtPath: path) ?? create(path) else {
            FileHandle.standardError.write(data)
            return
        }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: data)
    }

    private func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        return FileHandle(forWritingAtPath: path)
    }
}
