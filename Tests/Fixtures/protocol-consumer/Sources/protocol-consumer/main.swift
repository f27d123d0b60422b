// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthOAuth

// protocol-consumer ISSUER CLIENT_ID SCOPE, with the client's secret in CONSUMER_CLIENT_SECRET:
// asks for a token with the client credentials grant and says what it got, never the token.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let issuer = URL(string: arguments[arguments.startIndex]),
    let secret = ProcessInfo.processInfo.environment["CONSUMER_CLIENT_SECRET"]
else {
    FileHandle.standardError.write(
        Data("usage: CONSUMER_CLIENT_SECRET=… protocol-consumer ISSUER CLIENT_ID SCOPE\n".utf8))
    exit(64)
}
let clientID = arguments[arguments.startIndex + 1]
let scope = arguments[arguments.startIndex + 2]
do {
    let client = try OAuthClient(
        configuration: ClientConfiguration(
            issuer: issuer, clientID: clientID, clientSecret: secret, scopes: [scope], grant: .clientCredentials))
    let tokens = try await client.clientCredentials()
    print("token for \(clientID): \(tokens.tokenType), scopes \(tokens.scopes.joined(separator: " "))")
} catch {
    FileHandle.standardError.write(Data("protocol-consumer: \(error)\n".utf8))
    exit(1)
}
