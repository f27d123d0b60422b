// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuth

func signIn(at url: URL) async {
    // Print the URL and take the pasted address back, whatever the desktop has.
    let session = WebAuthSession(
        url: url, callback: .loopback(), environment: .standard(browser: TerminalPresenter()))
    do {
        let callbackURL = try await session.authenticate().url
        print(callbackURL)
    } catch let error where error.cancellationReason == .user {
        print("You closed the browser window.")
    } catch let error where error.code == .timedOut {
        print("No answer from the browser in time.")
    } catch {
        print(error)  // code: message, never a secret
    }
}
