// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// An example browser app for Linux, written against Apple's names for "Supporting Single Sign-On
// in a Web Browser App": it handles other programs' web sign-ins by driving a headless Chromium.
//
//   swift build --product webauth-example-browser   (not a product: swift build builds it)
//   webauth browser register .build/debug/webauth-example-browser --name "Example Browser" --ephemeral
//
// Sessions of this user then hand their custom-scheme sign-ins to it, starting it when it is not
// running. Its environment:
//   WEBAUTH_EXAMPLE_BROWSER_ARGS      Chromium arguments, one per line (tests keep it offline)
//   WEBAUTH_EXAMPLE_BROWSER_LOG       a file to log to (default: standard error)
//   WEBAUTH_EXAMPLE_BROWSER_IDLE      seconds without a request after which it exits (default 300)
//   WEBAUTH_EXAMPLE_BROWSER_DECLINE=1 decline every request, as a person who says no
import Foundation
import WebAuth
import WebAuthCompat

let variables = ProcessInfo.processInfo.environment
let log = ExampleLog(path: variables["WEBAUTH_EXAMPLE_BROWSER_LOG"])
let arguments = (variables["WEBAUTH_EXAMPLE_BROWSER_ARGS"] ?? "").split(separator: "\n").map(String.init)
let idleLimit = Duration.seconds(Int(variables["WEBAUTH_EXAMPLE_BROWSER_IDLE"] ?? "") ?? 300)
let handler = ExampleSessionHandler(
    browser: ChromiumBrowser(options: ChromiumBrowser.Options(headless: true, extraArguments: arguments)),
    declinesEverything: variables["WEBAUTH_EXAMPLE_BROWSER_DECLINE"] == "1", log: log)

let manager = ASWebAuthenticationSessionWebBrowserSessionManager.shared
manager.sessionHandler = handler
if let error = manager.listeningError {
    log.write("cannot listen: \(error)")
    exit(1)
}
log.write("listening pid=\(getpid()) launched=\(manager.wasLaunchedByAuthenticationServices)")

while handler.idleTime < idleLimit {
    Thread.sleep(forTimeInterval: 0.5)
}
manager.sessionHandler = nil
log.write("idle; exiting")
