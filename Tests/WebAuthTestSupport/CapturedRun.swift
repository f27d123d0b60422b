// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a program to its end within a time limit: standard input from a string (or nothing),
/// standard output and error collected in files under a directory of the caller's, the exit
/// status. What ``SSHServer`` and ``IsolatedContainer`` run their commands through.
public enum CapturedRun {
    /// Why a run produced no exit status: its input could not be made, or a signal ended it.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Runs `executable` with `arguments` and `environment`, ended after `timeout`; the files
    /// it needs go in `directory` and are removed afterwards.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], input: String?,
        directory: String, timeout: Duration
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let name = UUID().uuidString
        var inputDescriptor: Int32 = -1
        if let input {
            let path = "\(directory)/input-\(name)"
            guard FileManager.default.createFile(atPath: path, contents: Data(input.utf8)) else {
                throw Failure(description: "cannot write \(path)")
            }
            inputDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            unlink(path)
            guard inputDescriptor >= 0 else { throw Failure(description: "cannot open \(path)") }
        }
        defer { if inputDescriptor >= 0 { close(inputDescriptor) } }
        let (stdoutPath, stderrPath) = ("\(directory)/out-\(name)", "\(directory)/err-\(name)")
        defer {
            unlink(stdoutPath)
            unlink(stderrPath)
        }
        let process = try Subprocess(
            executable: executable, arguments: arguments, environment: environment,
            standardInput: inputDescriptor >= 0 ? .descriptor(inputDescriptor) : .null,
            standardOutput: .file(stdoutPath), standardError: .file(stderrPath))
        let bound = watchdog(after: timeout) { await process.terminate() }
        let status = await process.exitStatus()
        bound.cancel()
        let stdout = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        guard let code = Subprocess.exitCode(of: status) else {
            let name = URL(fileURLWithPath: executable).lastPathComponent
            throw Failure(description: "\(name) ended by \(Subprocess.describe(status: status)); stderr: \(stderr)")
        }
        return (code, stdout, stderr)
    }
}
