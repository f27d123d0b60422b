// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// Runs one fuzz target: under libFuzzer when built with `-DFUZZING` (and
/// `-sanitize=fuzzer,address`), otherwise as a replayer that feeds the files and directories
/// named on its command line to the same test, so the corpus and every input that once
/// crashed run in an ordinary build too.
///
/// ```swift
/// @main enum FuzzSomething {
///     static func main() { FuzzHarness.run { bytes in _ = Parser.parse(bytes) } }
/// }
/// ```
///
/// A test reports a broken invariant with ``require(_:_:)``, which stops the process so that
/// libFuzzer keeps the input as a crash.
package enum FuzzHarness {
    /// Hands control to libFuzzer, or replays the inputs named in the arguments; never returns.
    package static func run(_ test: @escaping @Sendable ([UInt8]) -> Void) -> Never {
        #if FUZZING
            registeredTest = test
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runLibFuzzerDriver(&argc, &argv, fuzzTestOneInput))
        #else
            exit(replay(arguments: Array(CommandLine.arguments.dropFirst()), through: test))
        #endif
    }

    /// Feeds every file named in `arguments` (a directory stands for the files in it, in name
    /// order) to `test`, and prints how many; the exit status is 0, or 1 when an argument
    /// cannot be read. An input that breaks the test ends the process abnormally.
    static func replay(arguments: [String], through test: ([UInt8]) -> Void) -> Int32 {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE_OR_DIRECTORY...\n".utf8))
            return 1
        }
        var count = 0
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("no such file: \(argument)\n".utf8))
                return 1
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).sorted()
                    .map { argument + "/" + $0 }
                : [argument]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    return 1
                }
                test(Array(data))
                count += 1
            }
        }
        print("replayed \(count) inputs")
        return 0
    }

    /// Stops the process (a crash libFuzzer records) when `condition` is false.
    package static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant broken: \(message())") }
    }

    /// Runs an `async` entry point to completion on the calling thread.
    package static func wait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }

    /// Splits `bytes` at each NUL into at most `limit` parts (the last one keeps the rest), for
    /// targets whose input has several pieces.
    package static func parts(of bytes: [UInt8], limit: Int) -> [[UInt8]] {
        bytes.split(separator: 0, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init)
    }

    #if FUZZING
        /// The test libFuzzer runs. Written once, before libFuzzer starts, which then calls
        /// the test from its one thread.
        nonisolated(unsafe) static var registeredTest: (@Sendable ([UInt8]) -> Void)?
    #endif
}

#if FUZZING
    /// libFuzzer's entry for one input.
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        FuzzHarness.registeredTest?(bytes)
        return 0
    }

    /// libFuzzer's driver (compiler-rt's `FuzzerDriver.cpp`), started from our own `main`:
    /// SwiftPM links an executable target's entry as `main`, so libFuzzer's cannot be used.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runLibFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32
#endif
