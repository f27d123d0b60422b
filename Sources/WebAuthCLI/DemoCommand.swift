import ArgumentParser
import Foundation
import WebAuth
import WebAuthTesting

/// `webauth demo`: a complete sign-in round trip against a sign-in page inside this process.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Sign in end to end against a sign-in page that runs inside this program.",
        discussion: """
            Starts a local authorization page on 127.0.0.1, opens it in your browser (or, with no
            display or browser, lets a built-in scripted browser play the person), receives the
            redirect on a loopback listener, and checks it — printing each step. Nothing leaves
            this machine.
            """
    )

    @Flag(name: .customLong("no-browser"), help: "Let the built-in scripted browser sign in instead of yours.")
    var noBrowser = false

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 300

    func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds.")
        }
    }

    func run() async throws {
        let steps = StepPrinter()
        let server = try await AuthorizationPageServer.start()
        steps.done("Started a local sign-in page at \(server.baseURL.absoluteString)")

        var browser = BrowserSelection.fromEnvironment().browser(
            for: BrowserNeeds(callback: .loopback(), callbackIsReceivable: true))
        if noBrowser || browser is TerminalPresenter {
            browser = RedirectFollowingBrowser()
            steps.note(
                noBrowser
                    ? "Using the built-in scripted browser (--no-browser)."
                    : "No display or browser found here: the built-in scripted browser plays the person.")
        }
        let scripted = browser is RedirectFollowingBrowser
        let state = RedirectTemplate.percentEncoded(UUID().uuidString)
        let session = WebAuthenticationSession(callback: .loopback(), environment: .standard(browser: browser)) {
            redirectURI in
            server.authorizationURL(redirectURI: redirectURI, state: state, mode: scripted ? .redirect : .page)
        }
        session.acceptsCallback = { url in Self.queryValue("state", in: url) == state }
        session.timeout = .milliseconds(Int((timeout * 1000).rounded()))
        session.progressHandler = { progress in
            switch progress.phase {
            case .listening: steps.done("Listening for the redirect at \(progress.redirectURI?.absoluteString ?? "?")")
            case .opening: steps.done("Opening the sign-in page with \(progress.browserName ?? "the browser")")
            case .waiting: steps.note("Waiting for the browser to come back… (Ctrl-C cancels)")
            case .notice: steps.note(progress.message ?? "")
            default: break
            }
        }

        let trap = InterruptTrap()
        let outcome = await trap.whileTrapping(onSignal: session.cancel) {
            do throws(WebAuthenticationSessionError) {
                return Result<URL, WebAuthenticationSessionError>.success(try await session.authenticate())
            } catch {
                return .failure(error)
            }
        }
        await server.shutdown()

        switch outcome {
        case .success(let callbackURL):
            steps.done("Received the redirect at \(callbackURL.redactedForDisplay)")
            steps.done("Its state matches the one this sign-in sent")
            let code = Self.queryValue("code", in: callbackURL) ?? ""
            steps.done("It carries an authorization code (\(code.count) characters, not shown)")
            steps.done("The listener has closed and its port is released")
            print("Signed in.")
        case .failure(let error):
            steps.failed(error.message)
            throw ExitCode(ExitStatus.status(for: error))
        }
    }

    private static func queryValue(_ name: String, in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}

/// Numbered progress lines on standard error.
final class StepPrinter: Sendable {
    private let started = ContinuousClock.now

    func done(_ message: String) { write("✔ \(message)") }
    func note(_ message: String) { write("  \(message)") }
    func failed(_ message: String) { write("✘ \(message)") }

    private func write(_ line: String) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(
            elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let time = String(milliseconds)
        let padded = String(repeating: " ", count: max(0, 6 - time.count)) + time
        FileHandle.standardError.write(Data("\(padded) ms  \(line)\n".utf8))
    }
}

extension URL {
    /// The URL with its query values hidden (`…?code=…&state=…`), for showing on a terminal.
    var redactedForDisplay: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return "<URL>" }
        let names = components.queryItems?.map(\.name) ?? []
        components.query = nil
        components.fragment = nil
        let query = names.isEmpty ? "" : "?" + names.map { "\($0)=…" }.joined(separator: "&")
        return (components.string ?? "<URL>") + query
    }
}
