// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthTokenStore

/// The `--profile` option's rules and completion.
enum ProfileOptions {
    /// The profile used when `--profile` is not given.
    static let defaultProfile = "default"

    /// The `--profile` help.
    static let help = ArgumentHelp(
        "The profile: a name for one sign-in.", valueName: "NAME")

    /// Completes `--profile` with the profiles the index and the file store know (no keyring
    /// query: completion must be quick).
    static let completion = CompletionKind.custom { _, _, _ in
        let environment = ProcessInfo.processInfo.environment
        var names = Set(ProfileIndex(environment: environment).entries().keys)
        let directory = FileTokenStore.defaultDirectory(environment: environment)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasSuffix(".json") {
            names.insert(String(name.dropLast(5)))
        }
        return names.filter(ProfileName.isValid).sorted()
    }

    /// Throws a usage error unless `name` is a valid profile name.
    static func validate(_ name: String) throws {
        do {
            try ProfileName.validate(name)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
