import Foundation
import WebAuthCore

/// The WebDriver BiDi commands that prepare a fresh Firefox for a session: `session.new`, the
/// tab to use, the event subscriptions and the network intercept.
enum BiDiSessionSetup {
    /// What the setup found.
    struct Result: Sendable, Hashable {
        /// The browsing context (tab) the authorization page opens in.
        var context: String
        /// Firefox's version, such as `153.7.0`.
        var browserVersion: String
    }

    /// The events the session listens to.
    static let subscribedEvents: [JSONValue] = [
        "browsingContext.contextDestroyed", "browsingContext.navigationStarted",
        "network.beforeRequestSent", "network.responseStarted",
    ]

    /// The first Firefox release whose `network.continueRequest` can set header fields.
    static let firstVersionModifyingHeaders = 128

    /// Runs the setup on `connection`.
    static func run(
        on connection: BiDiConnection, callback: Callback, hasHeaders: Bool
    ) async throws(WebAuthenticationSessionError) -> Result {
        let session: JSONValue
        do {
            session = try await connection.send(
                "session.new", ["capabilities": ["alwaysMatch": ["acceptInsecureCerts": false]]])
        } catch {
            // Firefox accepts one BiDi session: if another local program connected to the port
            // first, it holds the browser and this session must not go on.
            throw .browserLaunchFailed(
                "Firefox refused a WebDriver BiDi session (\(error)); another program on this machine may have "
                    + "connected to its port first")
        }
        let version = session["capabilities"]?["browserVersion"]?.stringValue ?? "unknown"
        let major = Int(version.prefix { $0.isNumber }) ?? 0
        if hasHeaders && major > 0 && major < firstVersionModifyingHeaders {
            throw .browserCannotHonor(
                "Firefox \(version) cannot add header fields to a request over WebDriver BiDi (Firefox "
                    + "\(firstVersionModifyingHeaders) or newer can)")
        }

        do {
            let tree = try await connection.send("browsingContext.getTree", ["maxDepth": 0])
            let contexts = tree["contexts"]?.arrayValue ?? []
            let blank = contexts.first { $0["url"]?.stringValue == "about:blank" } ?? contexts.first
            let context: String
            if let existing = blank?["context"]?.stringValue {
                context = existing
            } else {
                let created = try await connection.send("browsingContext.create", ["type": "tab"])
                guard let id = created["context"]?.stringValue else {
                    throw WebAuthenticationSessionError.browserLaunchFailed("Firefox opened no tab for the authorization page")
                }
                context = id
            }
            try await connection.send("session.subscribe", ["events": .array(subscribedEvents)])
            do {
                try await connection.send("network.addIntercept", ["phases": ["beforeRequestSent", "responseStarted"]])
            } catch let error as BiDiConnection.CommandError where error.isUnknownCommand {
                throw WebAuthenticationSessionError.browserLaunchFailed(
                    "Firefox \(version) cannot intercept requests over WebDriver BiDi (network.addIntercept); "
                        + "use Firefox \(firstVersionModifyingHeaders) ESR or newer")
            }
            return Result(context: context, browserVersion: version)
        } catch let error as WebAuthenticationSessionError {
            throw error
        } catch {
            throw .browserLaunchFailed("Firefox's WebDriver BiDi setup failed: \(error)")
        }
    }
}
