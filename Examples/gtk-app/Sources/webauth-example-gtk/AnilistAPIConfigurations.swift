// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import Synchronization
import WebAuthOAuth

// The two types seed 000's view model calls, under the article's names. The article reads
// its configuration from a JSON file in the app's bundle and builds an implicit-grant URL for
// Anilist; this app takes its configuration from the command line and builds an authorization
// code request with PKCE, `state` and `nonce`, prepared by WebAuthOAuth before each sign-in.

extension Notification.Name {
    /// Posted by the view model when a sign-in ends without a callback URL; the object is the error.
    static let signInFailed = Notification.Name("SignInViewModel.signInFailed")
}

/// The app's client registration: the article's `anilist_api.json`, from the command line.
public final class AnilistAPIConfigurations: Sendable {
    /// The client ID.
    public let id: String
    /// The registered redirect URL, on the app's own scheme (`SCHEME:/callback`).
    public let redirectURL: URL

    init(id: String, redirectURL: URL) {
        self.id = id
        self.redirectURL = redirectURL
    }

    /// The configuration the app was started with.
    static let current = Mutex<AnilistAPIConfigurations?>(nil)

    static func load() -> AnilistAPIConfigurations {
        current.withLock { $0 }!
    }
}

/// Builds the authorization URL of the sign-in that is starting.
public final class AnilistAuthenticationURLBuilder {
    /// The authorization prepared for the sign-in that is starting (PKCE, `state`, `nonce`),
    /// set before the view model's `signIn()` runs.
    static let prepared = Mutex<PreparedAuthorization?>(nil)

    /// Client ID
    let clientID: String

    init(clientID: String) {
        self.clientID = clientID
    }

    var url: URL {
        let configuration = AnilistAPIConfigurations.load()
        let prepared = Self.prepared.withLock { $0 }!
        return prepared.url(redirectURI: configuration.redirectURL)
    }

    func callAsFunction() -> URL {
        url
    }
}
