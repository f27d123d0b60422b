import Foundation
import Synchronization

/// Runs a short-lived program directly (never through a shell) and collects its output.
enum ChildProcess {
    struct Result: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `executable` with `arguments` and exactly `environment`, with standard input from
    /// `/dev/null`, and waits for it. Blocks the calling thread; meant for quick tools such as
    /// `xdg-mime`.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes at once so that neither can fill up and stall the child.
        let errorText = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        let errorHandle = errors.fileHandleForReading
        Thread.detachNewThread {
            let data = errorHandle.readDataToEndOfFile()
            errorText.withLock { $0 = data }
            errorsRead.signal()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorText.withLock { $0 }, as: UTF8.self))
    }
}
