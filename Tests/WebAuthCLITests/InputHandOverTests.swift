// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A shared library that, loaded first (`LD_PRELOAD`), makes every pipe the program creates hold
/// one page (4 KiB) — what a person over `pipe-user-pages-soft` gets (8 KiB), and smaller — so
/// that a test can see whether `webauth` hands git's input on through a pipe it must fill before
/// anyone reads it. Built once per process with the C compiler beside the toolchain.
private let smallPipesLibrary: Result<String, CLITestError> = {
    let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <unistd.h>
        static void shrink(int result, int ends[2]) { if (result == 0) fcntl(ends[1], F_SETPIPE_SZ, 4096); }
        int pipe(int ends[2]) {
            int (*real)(int[2]) = (int (*)(int[2]))dlsym(RTLD_NEXT, "pipe");
            int result = real(ends); shrink(result, ends); return result;
        }
        int pipe2(int ends[2], int flags) {
            int (*real)(int[2], int) = (int (*)(int[2], int))dlsym(RTLD_NEXT, "pipe2");
            int result = real(ends, flags); shrink(result, ends); return result;
        }
        """
    var template = Array("/tmp/webauth-small-pipes-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return .failure(CLITestError("mkdtemp failed")) }
    let directory = String(cString: made)
    guard FileManager.default.createFile(atPath: directory + "/small-pipes.c", contents: Data(source.utf8)) else {
        return .failure(CLITestError("cannot write the library's source"))
    }
    for compiler in ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"] where access(compiler, X_OK) == 0 {
        guard
            let result = try? Subprocess.runToCompletion(
                compiler,
                ["-shared", "-fPIC", "-o", directory + "/small-pipes.so", directory + "/small-pipes.c", "-ldl"],
                environment: ["PATH": "/usr/bin:/bin"]),
            Subprocess.exitCode(of: result.status) == 0
        else { continue }
        return .success(directory + "/small-pipes.so")
    }
    return .failure(CLITestError("no C compiler built the small-pipes library"))
}()

/// git's input for `get`: `lines` long `wwwauth[]` challenges (as a server may send), then the
/// request, then a line with a carriage return inside — which the full program refuses as it
/// reads the input's end: proof that all of it arrived.
private func gitInput(challenges lines: Int) -> [UInt8] {
    let challenge = "wwwauth[]=Bearer realm=\"" + String(repeating: "r", count: 960) + "\"\n"
    return Array(
        (String(repeating: challenge, count: lines) + "protocol=https\nhost=git.example.com\nend=one\rtwo\n\n").utf8)
}

@Suite("webauth hands git's input on to the full program, whatever its size")
struct InputHandOverTests {
    /// Runs `webauth git-credential get` with `input` on standard input (a file) in a fresh
    /// sandbox, with `environment` added.
    private func run(input: [UInt8], environment: [String: String] = [:]) async throws -> (
        status: Int32, stderr: String
    ) {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let path = sandbox.root + "/input"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(input)))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        let process: CLIProcess
        do {
            defer { close(descriptor) }
            process = try CLIProcess(
                ["git-credential", "get"], environment: sandbox.environment.merging(environment) { $1 },
                standardInput: .descriptor(descriptor))
        }
        let status = try await process.waitForExit(timeout: .seconds(30))
        return (status, process.standardError)
    }

    @Test("With pipes of one page, 20 KiB of git's input reaches the full program, all of it")
    func smallPipes() async throws {
        let library = try smallPipesLibrary.get()
        let input = gitInput(challenges: 20)
        #expect(input.count > 16 * 1024 && input.count < 32 * 1024)
        let result = try await run(input: input, environment: ["LD_PRELOAD": library])
        #expect(result.status == 7, "\(result.stderr)")  // the input's last line, refused
        #expect(result.stderr.contains("git's input was not acceptable"), "\(result.stderr)")
    }

    @Test("Input larger than a pipe holds (250 KiB) reaches the full program, all of it")
    func largeInput() async throws {
        let input = gitInput(challenges: 250)
        #expect(input.count > 240 * 1024)
        for environment in [[:], ["LD_PRELOAD": try smallPipesLibrary.get()]] {
            let result = try await run(input: input, environment: environment)
            #expect(result.status == 7, "\(result.stderr)")
            #expect(result.stderr.contains("git's input was not acceptable"), "\(result.stderr)")
        }
    }
}
