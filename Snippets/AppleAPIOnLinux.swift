// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthCompat  // on Apple platforms: import AuthenticationServices

final class SignIn: NSObject, ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor()  // on Linux: the standard browser selection
    }

    func start() {
        let session = ASWebAuthenticationSession(
            url: URL(string: "https://example.com/auth")!, callback: .customScheme("exampleauth")
        ) { callbackURL, error in
            guard let callbackURL else { return print(error.map(String.init(describing:)) ?? "") }
            print(callbackURL)  // exampleauth://…?code=…
        }
        session.presentationContextProvider = self
        session.prefersEphemeralWebBrowserSession = true
        session.start()  // false if it cannot start; the session keeps itself alive until done
    }
}
