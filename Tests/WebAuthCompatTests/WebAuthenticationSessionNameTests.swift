// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Testing
    import WebAuth
    import WebAuthCompat

    /// A file that imports both WebAuth and WebAuthCompat (in Swift 6 mode, as this package
    /// builds) means SwiftUI's struct by `WebAuthenticationSession`, and the core's session by
    /// `WebAuthSession`: neither name is ambiguous. This file compiling is most of the test.
    @Suite("The name WebAuthenticationSession")
    struct WebAuthenticationSessionNameTests {
        @Test @MainActor func meansSwiftUIsStructAlongsideWebAuth() {
            let session: WebAuthenticationSession = EnvironmentValues().webAuthenticationSession
            let browserSession: WebAuthenticationSession.BrowserSession = .ephemeral
            #expect(browserSession != .shared)
            #expect("\(type(of: session))" == "WebAuthenticationSession")
            let core = WebAuthSession(
                url: URL(string: "https://example.com/auth")!, callback: .customScheme("com.example.app"))
            #expect(core.canStart)
        }
    }
#endif
