// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the example says what it does, one line per event (never a URL's query): the file
/// named by `WEBAUTH_EXAMPLE_BROWSER_LOG`, else standard error.
///
/// Lines come from several threads at once (the main thread, each request's), so the file is
/// opened for appending — every write lands at its end, none over another — and each line is
/// written whole under a lock.
final class ExampleLog: Sendable {
    private let descriptor: Mutex<Int32>

    init(path: String?) {
        let opened = path.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) } ?? -1
        descriptor = Mutex(opened >= 0 ? opened : STDERR_FILENO)
    }

    func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        descriptor.withLock { descriptor in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { writeRaw(descriptor, $0) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// `write(2)`, under a name the method above does not hide.
private func writeRaw(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(descriptor, bytes.baseAddress, bytes.count)
}
