// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

extension ProfileSandbox {
    /// A sandbox with git's global configuration inside it, no system configuration, no
    /// terminal prompts and a fixed author: git run in it leaves the machine's configuration
    /// untouched.
    static func forGit() throws -> ProfileSandbox {
        var sandbox = try ProfileSandbox()
        sandbox.extraEnvironment = [
            "GIT_CONFIG_GLOBAL": sandbox.root + "/gitconfig", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "",
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        ]
        return sandbox
    }

    /// Runs Debian's git with `arguments` in this sandbox (in `directory`), `input` on its
    /// standard input.
    func git(
        _ arguments: [String], input: String = "", in directory: String? = nil, timeout: Duration = .seconds(90)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let prefix = directory.map { ["-C", $0] } ?? []
        let process = try CLIProcess(
            prefix + arguments, environment: environment, keepStandardInputOpen: true, executable: "/usr/bin/git")
        process.finishInput(Array(input.utf8))
        let status = try await process.waitForExit(timeout: timeout)
        return (status, process.standardOutput, process.standardError)
    }
}
