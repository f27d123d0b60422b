// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuth

func signIn() {
    let session = WebAuthSession(
        url: URL(string: "https://example.com/auth")!, callback: .customScheme("com.example.app")
    ) { result in
        switch result {
        case .success(let received): print(received.url)  // the callback URL
        case .failure(let error): print(error)  // a WebAuthenticationSessionError
        }
    }
    session.prefersEphemeralWebBrowserSession = true
    session.start()  // false if already started or cancelled
}
