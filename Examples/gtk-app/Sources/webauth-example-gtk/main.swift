// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// webauth-example-gtk: a GTK 4 app that signs in with ASWebAuthenticationSession, as seed 000's
// SwiftUI app does on iOS. See the article "A desktop app" in the WebAuth documentation.
//
//   webauth-example-gtk --issuer URL --client-id ID --scheme SCHEME [--scope S]...
//                       [--sign-in-now] [--quit-when-signed-in]
import Foundation
import GLibMainQueue
import GtkWindowShim

let options: ExampleOptions
do {
    options = try ExampleOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { FileHandle.standardError.write(Data("webauth-example-gtk: \(message)\n".utf8)) }
    FileHandle.standardError.write(Data((ExampleOptions.usage + "\n").utf8))
    exit(error.message == nil ? 0 : 2)
}

// The app's scheme reaches it through its .desktop entry: the desktop runs it with the URL, and
// the running instance receives that URL in GApplication's `open` signal.
let entry = DesktopEntry(
    applicationID: ExampleOptions.applicationID, scheme: options.scheme, command: options.desktopCommand)
do {
    if let written = try entry.install() {
        FileHandle.standardOutput.write(Data("registered \(options.scheme): URLs to this app: \(written)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("webauth-example-gtk: cannot register \(options.scheme): \(error)\n".utf8))
}

let app: ExampleApp
do {
    app = try ExampleApp(options: options)
} catch {
    FileHandle.standardError.write(Data("webauth-example-gtk: \(error)\n".utf8))
    exit(2)
}

// Swift's main queue (DispatchQueue.main, @MainActor tasks) runs inside GLib's main loop.
GLibMainQueue.install()

func withApp(_ context: UnsafeMutableRawPointer?, _ body: @MainActor (ExampleApp) -> Void) {
    let app = Unmanaged<ExampleApp>.fromOpaque(context!).takeUnretainedValue()
    MainActor.assumeIsolated { body(app) }
}

example_app_create(
    ExampleOptions.applicationID,
    ExampleAppCallbacks(
        context: Unmanaged.passUnretained(app).toOpaque(),
        ready: { withApp($0) { $0.ready() } },
        sign_in: { withApp($0) { $0.signIn() } },
        cancel_sign_in: { withApp($0) { $0.cancelSignIn() } },
        sign_out: { withApp($0) { $0.signOut() } },
        open_uri: { context, uri in
            let text = String(cString: uri!)
            withApp(context) { $0.open(text) }
        }
    ))

// GApplication gets the program's name and the URLs only: a second instance forwards them to
// the first one over D-Bus and exits.
var arguments = [CommandLine.arguments[0]] + options.urls
var argv = arguments.map { strdup($0) } + [nil]
let status = example_app_run(Int32(arguments.count), &argv)
withExtendedLifetime(app) {}
exit(status)
