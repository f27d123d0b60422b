// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

/// A small TCP client run as another local user (uid and gid 65534, no supplementary groups)
/// through `setpriv`, as a second person on the same machine would run it.
///
/// It is Debian's `/usr/bin/python3` running a script given on its command line: the other user
/// must be able to read and run all of it, which rules out the test build (under a root-owned
/// directory) and a Python environment under root's home.
enum AnotherUser {
    /// The user id the client runs as.
    static let uid: UInt32 = 65534

    /// What the client does once connected to 127.0.0.1 or ::1 on the port.
    enum Action {
        /// Prints its own port, then holds the connection open until the server closes it.
        case hold
        /// Prints its own port, then closes the connection (and exits).
        case close
        /// Sends `request`, then prints everything the server answers until it closes.
        case send(String)
    }

    /// The client's script: `python3 -I -c SCRIPT HOST PORT ACTION [REQUEST]`.
    private static let script = """
        import socket, sys
        host, port, action = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        client = socket.socket(family, socket.SOCK_STREAM)
        client.connect((host, port))
        if action == "send":
            client.sendall(sys.argv[4].encode())
            reply = b""
            while True:
                data = client.recv(65536)
                if not data:
                    break
                reply += data
            sys.stdout.write(reply.decode("utf-8", "replace"))
        else:
            print(client.getsockname()[1], flush=True)
            if action == "hold":
                while client.recv(65536):
                    pass
            client.close()
        """

    /// Starts the client against `host` (`127.0.0.1` or `::1`) and `port`; its standard output
    /// is ``Subprocess/standardOutput``.
    static func start(host: String = "127.0.0.1", port: Int, _ action: Action) throws -> Subprocess {
        var arguments = [
            "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-I", "-c", script, host,
            String(port),
        ]
        switch action {
        case .hold: arguments.append("hold")
        case .close: arguments.append("close")
        case .send(let request): arguments += ["send", request]
        }
        return try Subprocess(
            executable: "/usr/bin/setpriv", arguments: arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            standardOutput: .pipe, standardError: .pipe)
    }

    /// Runs the client to its end and returns what it printed, and its error output.
    static func run(host: String = "127.0.0.1", port: Int, _ action: Action) async throws -> (
        output: String, errors: String
    ) {
        let process = try start(host: host, port: port, action)
        async let errors = collect(process.standardError)
        let output = await collect(process.standardOutput)
        _ = await process.exitStatus()
        return (output, await errors)
    }

    /// Reads the first line the client prints: its own port.
    static func port(of process: Subprocess) async -> Int? {
        var line = [UInt8]()
        guard let output = process.standardOutput else { return nil }
        for await chunk in output {
            line += chunk
            if let end = line.firstIndex(of: UInt8(ascii: "\n")) {
                return Int(String(decoding: line[..<end], as: UTF8.self))
            }
        }
        return nil
    }

    private static func collect(_ stream: AsyncStream<[UInt8]>?) async -> String {
        var bytes = [UInt8]()
        if let stream { for await chunk in stream { bytes += chunk } }
        return String(decoding: bytes, as: UTF8.self)
    }
}
