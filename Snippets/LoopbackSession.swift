// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuth

func signIn() async throws -> ReceivedCallback {
    // One unguessable value per sign-in: the provider sends it back, and only a callback
    // carrying it is ours.
    let state = UUID().uuidString

    let session = WebAuthSession(callback: .loopback(path: "/callback")) { redirectURI in
        var components = URLComponents(string: "https://auth.example.com/authorize")!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: "my-cli"),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
            URLQueryItem(name: "state", value: state),
        ]
        return components.url!
    }
    // A callback with the wrong `state` gets an error page; the session keeps waiting.
    session.acceptsCallback = { url in
        URLComponents(url: url, resolvingAgainstBaseURL: false)?
            .queryItems?.contains { $0.name == "state" && $0.value == state } == true
    }
    session.timeout = .seconds(300)
    // .url: the callback URL; .redirectURI: the redirect URI it was built with
    return try await session.authenticate()
}
