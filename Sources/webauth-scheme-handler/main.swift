// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// webauth-scheme-handler URL
//
// The program the desktop runs for a URL scheme registered with `webauth scheme register`: it
// hands the URL to the sign-in session waiting for that scheme, over a Unix socket, and exits.
// It never opens a browser and never keeps a URL for later. Exit status: 0 delivered, 1 refused
// by the session, 2 no session waiting (the URL is dropped), 64 usage, 65 not a callback URL,
// 70 other failure. Messages go to standard error and never contain the URL's query.
import Foundation
import WebAuthDesktopSocket

let name = "webauth-scheme-handler"
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--" { arguments.removeFirst() }
guard arguments.count == 1, let argument = arguments.first, !argument.hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: \(name) URL\n".utf8))
    exit(64)
}
do {
    try CallbackForwarder().forward(argument)
    FileHandle.standardError.write(Data("\(name): handed the callback to the waiting sign-in\n".utf8))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("\(name): \(error.message)\n".utf8))
    exit(error.code.exitStatus)
}
