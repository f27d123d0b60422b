// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

/// A provider started by a Python launcher (`Tests/Fixtures/NAME/launch.py DIRECTORY PORT
/// REDIRECT_PORT`) that writes `fixture.json` into its private directory once the provider
/// answers: glewlwyd's and LemonLDAP::NG's.
///
/// The two ports are free when chosen, but the provider's server binds its own only after the
/// launcher has set it up (keys, a database), a moment later; on a machine running many tests
/// at once another test's listener can take it in between, and the server exits saying so in
/// its log. That launch is retried once, on fresh ports; any other failure, or a second one, is
/// thrown with the logs of every attempt.
struct FixtureLauncher {
    /// The provider's name in messages, such as `glewlwyd`.
    var name: String
    /// The launcher script.
    var script: String
    /// The private directory's name prefix.
    var directoryPrefix: String
    /// Variables for the launcher on top of this process's environment.
    var environment: [String: String] = [:]
    /// The log, in the private directory, where the server says its port was taken…
    var portLog: String
    /// …and what it says then.
    var portTakenMessage: String
    /// How long the launcher's process group gets to end when it is stopped.
    var grace: Duration
    /// The end of the launch's logs, read from the private directory.
    var logs: @Sendable (URL) -> String

    /// Launches the provider, retrying once when its port was taken, and makes it from
    /// `fixture.json`, the private directory and the launcher with `make`.
    func start<Provider>(
        timeout: Duration, make: (Data, URL, Subprocess) throws -> Provider
    ) async throws -> Provider {
        guard
            let python = TestBrowsers.executablePath(
                named: "python3", searchPath: ProcessInfo.processInfo.environment["PATH"])
        else { throw IndependentProviderError("python3 not found on PATH; \(name)'s launcher needs it") }
        var taken: [String] = []
        for _ in 0..<2 {
            guard let provider = try await launch(python: python, timeout: timeout, make: make, portTaken: &taken)
            else { continue }
            return provider
        }
        throw IndependentProviderError(
            "\(name) could not bind its port, twice:\n\(taken[0])\n--- the retry:\n\(taken[1])")
    }

    /// One launch on two free loopback ports: the provider, or `nil` (with its logs appended to
    /// `portTaken`) when its port was taken.
    private func launch<Provider>(
        python: String, timeout: Duration, make: (Data, URL, Subprocess) throws -> Provider,
        portTaken: inout [String]
    ) async throws -> Provider? {
        let deadline = ContinuousClock.now + timeout
        let dataDirectory = try IndependentProvider.makePrivateDirectory(directoryPrefix)
        let log = dataDirectory.appendingPathComponent("launch.log")
        do {
            let port = try IndependentProvider.freeLoopbackPort()
            let redirectPort = try IndependentProvider.freeLoopbackPort()
            let launcher = try Subprocess(
                executable: python, arguments: [script, dataDirectory.path, String(port), String(redirectPort)],
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, output: log.path)
            let fixtureFile = dataDirectory.appendingPathComponent("fixture.json")
            _ = await eventually(within: deadline - .now) {
                FileManager.default.fileExists(atPath: fixtureFile.path) || launcher.hasExited
            }
            if let data = try? Data(contentsOf: fixtureFile) {
                do {
                    return try make(data, dataDirectory, launcher)
                } catch {
                    await launcher.terminate(grace: grace)
                    throw error
                }
            }
            if launcher.hasExited {
                let text = logs(dataDirectory)
                let taken = IndependentProvider.tail(of: dataDirectory.appendingPathComponent(portLog), lines: 20)
                    .contains(portTakenMessage)
                try? FileManager.default.removeItem(at: dataDirectory)
                if taken {
                    portTaken.append(text)
                    return nil
                }
                throw IndependentProviderError("\(name)'s launcher exited:\n\(text)")
            }
            await launcher.terminate(grace: grace)
            throw IndependentProviderError("\(name) was not ready in time:\n\(logs(dataDirectory))")
        } catch {
            try? FileManager.default.removeItem(at: dataDirectory)
            throw error
        }
    }
}
