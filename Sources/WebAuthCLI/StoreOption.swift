// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import WebAuthTokenStore

/// `--store`, shared by `login`, `token`, `logout` and `status`.
struct StoreOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where tokens are kept: automatic (the keyring when one answers, else files), file, or keyring.",
            valueName: "automatic|file|keyring"),
        completion: .list(TokenStoreSelection.allCases.map(\.rawValue)))
    var store: String = TokenStoreSelection.automatic.rawValue

    /// The parsed `--store`.
    var selection: TokenStoreSelection { TokenStoreSelection(rawValue: store) ?? .automatic }

    /// The stores `--store` names, as every command uses them: a command waits up to two
    /// minutes for another process holding a profile (long enough for a queue of refreshes on a
    /// slow machine), and the stores' warnings are shown as notes.
    func stores(environment: [String: String] = ProcessInfo.processInfo.environment) -> TokenStores {
        var logger = Logger(label: "webauth.tokenstore", factory: { _ in NoteLogHandler() })
        logger.logLevel = .warning
        return TokenStores(selection: selection, environment: environment, lockTimeout: .seconds(120), logger: logger)
    }

    func validate() throws {
        guard TokenStoreSelection(rawValue: store) != nil else {
            throw ValidationError("--store must be automatic, file or keyring, not '\(store)'.")
        }
    }
}
