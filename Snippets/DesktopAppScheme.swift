// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuth
import WebAuthCompat  // on Apple platforms: import AuthenticationServices

final class DesktopSignIn: NSObject, ASWebAuthenticationPresentationContextProviding {
    // The scheme the app's .desktop entry declares (MimeType=x-scheme-handler/com.example.app).
    let receiver = ApplicationSchemeReceiver(schemes: ["com.example.app"])

    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor()  // the standard browser selection
    }

    // "Sign in": Apple's API, with the app's own receiver for its scheme.
    func start() {
        let session = ASWebAuthenticationSession(
            url: URL(string: "https://example.com/auth")!, callback: .customScheme("com.example.app")
        ) { callbackURL, error in
            // On the main thread when a main loop drains the main queue, as on Apple platforms.
            print(callbackURL ?? error.map(String.init(describing:)) ?? "")
        }
        session.presentationContextProvider = self
        let environment = SessionEnvironment(receivers: [receiver]) { needs in
            BrowserSelection.fromEnvironment().browser(for: needs)
        }
        ASWebAuthenticationSession.$environment.withValue(environment) {
            session.start()
        }
    }

    // GApplication's `open` signal: the desktop started the app with the callback URL.
    func open(_ url: URL) {
        if !receiver.open(url) {
            print("no sign-in was waiting for this URL")
        }
    }
}
