// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthTestSupport

/// The terminal blocks of the README and the DocC articles, read from the files themselves and
/// each run whole in `bash` (`set -e -o pipefail`, from the home directory) on a fresh login:
/// an empty home, the XDG base directories set to empty directories, an empty 0700 runtime
/// directory, no display, and `PATH` holding the built `webauth`. The person's browser is
/// played by the test (``PlayedBrowser``), signing in as the demo user and confirming a
/// sign-out.
///
/// A block is run when the comment right before it is
/// `<!-- run by: DocumentedCommandsTests -->`, which may go on, after a `;` each, with
///
/// - `given: …`, what the block takes as already there, from ``Given``: `profile NAME` (signed in
///   at the provider, with the client `my-cli`), `item.json` (a JSON file in the home directory),
///   `generate-report` (a program that prints a report);
/// - `not run: …`, the lines left out, each named by its beginning in backquotes, and why
///   (``not run: the line starting `ssh -R`, which needs another machine``). A line ending in
///   `\` takes the next with it.
///
/// The addresses the documentation uses for the person's provider and API are replaced by the
/// stand-ins the test starts, as ``placeholders`` lists; nothing else in a block changes.
@Suite("The documentation's terminal blocks run on a fresh login", .serialized, TestFixture.git.required)
struct DocumentedCommandsTests {
    /// What the blocks' placeholders become: the provider's issuer, the API's address, the
    /// person's own program (one that does nothing). A host that is only written down
    /// (`git.example.com` for `git-credential setup`, `https://billing.example.com` as an
    /// audience) stays as it is.
    static func placeholders(issuer: URL, api: URL, programs: String) -> [(placeholder: String, standIn: String)] {
        [
            ("https://id.example.com", issuer.absoluteString),
            ("https://accounts.example.com", issuer.absoluteString),
            ("https://api.example.com", api.absoluteString),
            ("/usr/local/bin/example-browser", programs + "/example-browser"),
        ]
    }

    /// The client IDs the blocks sign in with, which the provider knows.
    static let clientIDs = ["my-cli", "cli", "git-cli"]
    /// The audience the README exchanges a token for, which the provider serves.
    static let exchangeTarget = "https://billing.example.com"

    /// The provider the blocks sign in to: the demo user, the documentation's clients (public,
    /// loopback redirect URIs), token exchange for ``exchangeTarget``.
    static var providerConfiguration: EmbeddedProvider.Configuration {
        let loopback = [URL(string: "http://127.0.0.1/callback")!, URL(string: "http://[::1]/callback")!]
        var configuration = EmbeddedProvider.Configuration(
            clients: clientIDs.map { EmbeddedProvider.Client(id: $0, redirectURIs: loopback) })
        configuration.tokenExchangeTargets = [exchangeTarget]
        return configuration
    }

    @Test(
        "Each block marked for this suite exits 0 and does what it says", .timeLimit(.minutes(3)),
        arguments: DocumentedBlock.marked)
    func theBlockRuns(_ block: DocumentedBlock) async throws {
        let plan = block.plan()
        try #require(plan.problems.isEmpty, "\(block.location): \(plan.problems.joined(separator: "; "))")
        var fresh = try FreshLogin(withRuntimeDirectory: true, withBaseDirectories: true)
        defer { fresh.remove() }
        let programs = fresh.root + "/bin"
        try FileManager.default.createDirectory(atPath: programs, withIntermediateDirectories: false)
        let browser = try PlayedBrowser(in: fresh.root, programs: programs)
        try Self.writeProgram(programs + "/example-browser", "exit 0")
        fresh.extraEnvironment = [
            "PATH": programs + ":" + fresh.environment["PATH", default: ""], "BROWSER": browser.program,
        ]
        let login = fresh

        try await EmbeddedProvider.withProvider(Self.providerConfiguration) { provider in
            let api = RequestCommandProcessTests.resource(
                provider: provider, refused: "", other: provider.issuer, seen: RequestCommandProcessTests.Seen())
            try await LoopbackHTTPServer.withServer(handler: api) { server in
                let playing = Task { await browser.play(signingInAt: provider) }
                defer { playing.cancel() }
                for given in plan.givens {
                    try await given.prepare(in: login, programs: programs, provider: provider)
                }
                var script = plan.script
                for (placeholder, standIn) in Self.placeholders(
                    issuer: provider.issuer, api: server.baseURL, programs: programs)
                {
                    script = script.replacingOccurrences(of: placeholder, with: standIn)
                }
                let step: ShellStep
                do {
                    step = try await login.run(
                        "(\ncd \"$HOME\"\nset -e -o pipefail\n\(script)\n)", shell: "/bin/bash")
                    await Self.stopAgent(in: login)
                } catch {
                    await Self.stopAgent(in: login)
                    throw error
                }
                playing.cancel()
                let played = await playing.value

                let report = Report(block: block, script: script, step: step, login: login)
                #expect(step.status == 0, "\(report)")
                for failure in played.failures {
                    Issue.record("the browser could not do its part: \(report.redacted(failure))\n\(report)")
                }
                try await Self.expectWhatTheLinesSay(
                    DocumentedBlock.commandLines(of: script), step: step, login: login, provider: provider, api: server,
                    played: played,
                    report: report)
            }
        }
    }

    @Test("Every comment naming this suite stands right before a block it runs")
    func everyMarkerIsBeforeARunBlock() throws {
        #expect(!DocumentedBlock.marked.isEmpty, "no block is marked for this suite")
        for document in try DocumentedBlock.documents() {
            let lines = try DocumentationAsWrittenTests.document(document).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.contains("DocumentedCommandsTests") {
                #expect(
                    DocumentedBlock.marked.contains { $0.document == document && $0.markerLine == index + 1 },
                    "\(document):\(index + 1) names this suite, but no fenced block follows it right away")
            }
        }
    }

    /// Writes an executable `sh` script running `body`.
    static func writeProgram(_ path: String, _ body: String) throws {
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8), attributes: [.posixPermissions: 0o700])
        else { throw CLITestError("cannot write \(path)") }
    }

    /// Stops an agent a block started and left running, before the provider goes.
    static func stopAgent(in login: FreshLogin) async {
        guard let runtime = login.runtimeDirectory else { return }
        let socket = runtime + "/webauth/agent.sock"
        if FileManager.default.fileExists(atPath: socket) {
            _ = try? await login.run("WEBAUTH_AGENT_SOCK='\(socket)' webauth agent stop")
        }
    }

    /// The checks behind the exit status: what the block's commands must have done, by the
    /// lines that ran.
    static func expectWhatTheLinesSay(
        _ lines: [String], step: ShellStep, login: FreshLogin, provider: EmbeddedProvider,
        api: LoopbackHTTPServer, played: PlayedBrowser.Outcome, report: Report
    ) async throws {
        // The API saw every request the lines sent, each with a live token of the provider.
        let apiLines = lines.filter { $0.contains(api.baseURL.absoluteString) }
        let answered = await api.requests
        #expect(answered.count >= apiLines.count, "the API got \(answered.count) requests\n\(report)")
        for request in answered {
            #expect(
                (200..<300).contains(request.responseStatus ?? 0),
                "the API answered \(request.method) \(request.path) with \(request.responseStatus ?? 0)\n\(report)")
        }
        for line in lines {
            if line.hasPrefix("webauth token") {
                // Compared here, so that no expectation shows the output unredacted.
                let printedAToken = Report.redacted(step.stdout) != step.stdout
                #expect(printedAToken, "`\(line)` printed nothing token-shaped\n\(report)")
            }
            if line.hasPrefix("webauth token --audience") {
                #expect(
                    provider.requests(to: .token).contains {
                        $0.grantType == "urn:ietf:params:oauth:grant-type:token-exchange" && $0.status == 200
                    }, "no token exchange was answered\n\(report)")
            }
            if line.hasPrefix("webauth logout --end-session") {
                #expect(
                    provider.requests(to: .endSession).contains { $0.method == "POST" && $0.status == 302 },
                    "the provider's session was not ended\n\(report)")
                #expect(played.signedOut, "the browser was not brought back signed out\n\(report)")
            }
            let words = line.split(separator: " ").map(String.init)
            if words.starts(with: ["webauth", "git-credential", "setup"]), words.count > 3 {
                let configuration = try String(contentsOfFile: login.home + "/.gitconfig", encoding: .utf8)
                #expect(
                    configuration.contains("[credential \"https://\(words[3])\"]")
                        && configuration.contains("git-credential --profile"),
                    "no helper line for \(words[3]) in ~/.gitconfig\n\(report)")
            }
            if line.contains("--generate-completion-script"),
                let target = words.drop(while: { $0 != ">" }).dropFirst().first
            {
                let path = target.replacingOccurrences(of: "~", with: login.home)
                #expect(
                    (FileManager.default.contents(atPath: path)?.count ?? 0) > 100,
                    "\(target) was not written\n\(report)")
            }
        }
    }
}

/// A fenced block of the documentation whose comment names ``DocumentedCommandsTests``.
struct DocumentedBlock: Sendable, CustomTestStringConvertible {
    /// The document, relative to the repository.
    let document: String
    /// The line of the opening fence, from 1.
    let line: Int
    /// The line of the comment before it.
    let markerLine: Int
    /// The fence's info string (`sh`).
    let info: String
    /// The block's text.
    let code: String
    /// The comment, without `<!--` and `-->`.
    let marker: String

    var location: String { "\(document):\(line)" }
    var testDescription: String { location }

    /// The README and every DocC article.
    static func documents() throws -> [String] {
        let sources = DocumentationAsWrittenTests.repository.appendingPathComponent("Sources").path
        let articles = try FileManager.default.subpathsOfDirectory(atPath: sources).filter {
            $0.hasSuffix(".md") && $0.contains(".docc/")
        }
        return ["README.md"] + articles.sorted().map { "Sources/" + $0 }
    }

    /// Every block marked for the suite, in document order.
    static let marked: [DocumentedBlock] = {
        guard let documents = try? documents() else { return [] }
        return documents.flatMap { document in
            (try? DocumentationAsWrittenTests.document(document)).map { blocks(in: $0, document: document) } ?? []
        }
    }()

    /// The fenced blocks of `text` whose comment names the suite.
    static func blocks(in text: String, document: String) -> [DocumentedBlock] {
        let lines = text.components(separatedBy: "\n")
        var found: [DocumentedBlock] = []
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            guard let fence = ["```", "~~~"].first(where: { trimmed.hasPrefix($0) }) else {
                index += 1
                continue
            }
            let marker = String(trimmed.prefix { $0 == fence.first })
            let end = lines[(index + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix(marker) }
            let before = lines[..<index].lastIndex { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if let before {
                let comment = lines[before].trimmingCharacters(in: .whitespaces)
                if comment.hasPrefix("<!--"), comment.hasSuffix("-->"), comment.contains("DocumentedCommandsTests") {
                    found.append(
                        DocumentedBlock(
                            document: document, line: index + 1, markerLine: before + 1,
                            info: String(trimmed.dropFirst(marker.count)).trimmingCharacters(in: .whitespaces),
                            code: lines[(index + 1)..<(end ?? lines.count)].joined(separator: "\n"),
                            marker: String(comment.dropFirst(4).dropLast(3)).trimmingCharacters(in: .whitespaces)))
                }
            }
            index = (end ?? lines.count) + 1
        }
        return found
    }

    /// How the block is run: its text without the lines left out, what it is given, and what
    /// is wrong with its comment.
    struct Plan {
        var script = ""
        var givens: [Given] = []
        var problems: [String] = []
    }

    func plan() -> Plan {
        var plan = Plan()
        if !["sh", "bash", "shell"].contains(info.split(separator: " ").first.map(String.init) ?? "") {
            plan.problems.append("a `\(info)` block: the suite runs sh, bash and shell blocks")
        }
        let parts = marker.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.first != "run by: DocumentedCommandsTests" {
            plan.problems.append("the comment must begin `run by: DocumentedCommandsTests`")
        }
        var skipped: [String] = []
        for part in parts.dropFirst() {
            if part.hasPrefix("given:") {
                for name in part.dropFirst("given:".count).split(separator: ",") {
                    let name = name.trimmingCharacters(in: .whitespaces)
                    if let given = Given(name) {
                        plan.givens.append(given)
                    } else {
                        plan.problems.append("nothing is known to give `\(name)`")
                    }
                }
            } else if part.hasPrefix("not run:") {
                let quoted = part.split(separator: "`", omittingEmptySubsequences: false)
                skipped = stride(from: 1, to: quoted.count, by: 2).map { String(quoted[$0]) }
                if skipped.isEmpty { plan.problems.append("`not run:` names no line in backquotes") }
            } else {
                plan.problems.append("`\(part)` is neither `given:` nor `not run:`")
            }
        }
        var kept: [String] = []
        var used = Set<String>()
        var continuing: Bool?  // whether the line before ended in `\`, and was left out
        for line in code.components(separatedBy: "\n") {
            let start = line.trimmingCharacters(in: .whitespaces)
            let leftOut: Bool
            if let continuing {
                leftOut = continuing
            } else if let prefix = skipped.first(where: { start.hasPrefix($0) }) {
                used.insert(prefix)
                leftOut = true
            } else {
                leftOut = false
            }
            if !leftOut { kept.append(line) }
            continuing = line.hasSuffix("\\") ? leftOut : nil
        }
        for prefix in skipped where !used.contains(prefix) {
            plan.problems.append("no line begins `\(prefix)`")
        }
        plan.script = kept.joined(separator: "\n")
        if Self.commandLines(of: plan.script).isEmpty { plan.problems.append("no line is left to run") }
        return plan
    }

    /// The commands of `script`, a line each (continuations joined), without comment lines.
    static func commandLines(of script: String) -> [String] {
        script.replacingOccurrences(of: "\\\n", with: " ").components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}

/// What a block takes as already there, named in its comment after `given:`.
enum Given: Sendable {
    /// A profile signed in at the provider, with the client `my-cli`.
    case profile(String)
    /// `item.json` in the home directory: a small JSON object.
    case itemFile
    /// `generate-report` on `PATH`: prints a few lines.
    case reportProgram

    init?(_ name: String) {
        switch name {
        case "item.json": self = .itemFile
        case "generate-report": self = .reportProgram
        default:
            guard name.hasPrefix("profile "), let profile = name.split(separator: " ").last,
                name.split(separator: " ").count == 2
            else { return nil }
            self = .profile(String(profile))
        }
    }

    func prepare(in login: FreshLogin, programs: String, provider: EmbeddedProvider) async throws {
        switch self {
        case .profile(let name):
            let signedIn = try await login.run(
                "webauth login --profile \(name) --issuer \(provider.issuer.absoluteString) --client-id my-cli "
                    + "--scope openid --scope offline_access")
            try #require(signedIn.status == 0, "signing \(name) in failed: \(Report.redacted(signedIn.stderr))")
        case .itemFile:
            try Data(#"{"name": "a new item"}"#.utf8).write(to: URL(fileURLWithPath: login.home + "/item.json"))
        case .reportProgram:
            try DocumentedCommandsTests.writeProgram(programs + "/generate-report", "printf 'a report\\n'")
        }
    }
}

/// The person's browser, played: `program` (for `BROWSER`) drops each address it is given into
/// a spool directory, and ``play(signingInAt:)`` answers them — a sign-in page of the provider
/// as the demo user who approves, a one-use sign-out page by posting its form and following the
/// provider back.
struct PlayedBrowser: Sendable {
    let program: String
    let spool: String

    /// What the browser did.
    struct Outcome: Sendable {
        var signedOut = false
        var failures: [String] = []
    }

    init(in root: String, programs: String) throws {
        spool = root + "/browser"
        program = programs + "/browser"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
        try DocumentedCommandsTests.writeProgram(
            program,
            #"name="$(date +%s%N)-$$"; printf '%s' "$1" > "\#(spool)/.$name" && mv "\#(spool)/.$name" "\#(spool)/$name""#
        )
    }

    /// Answers each address as it arrives, until cancelled.
    func play(signingInAt provider: EmbeddedProvider) async -> Outcome {
        var outcome = Outcome()
        var answered = Set<String>()
        while !Task.isCancelled {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") && !answered.contains(name) {
                answered.insert(name)
                do {
                    let text = try String(contentsOfFile: spool + "/" + name, encoding: .utf8)
                    guard let url = URL(string: text) else { throw CLITestError("not an address") }
                    if url.host == provider.issuer.host, url.port == provider.issuer.port {
                        let redirect = try await ScriptedUserAgent().redirectAddress(from: url)
                        let back = try await RawHTTPClient.request(method: "GET", url: redirect)
                        guard back.status == 200 else { throw CLITestError("the callback answered \(back.status)") }
                    } else {
                        let (form, _) = try await EndSessionProcessTests.fetchPage(url)
                        let answer = try await EndSessionProcessTests.post(form)
                        guard let location = answer.header("Location").flatMap(URL.init(string:)) else {
                            throw CLITestError("the provider answered the sign-out with \(answer.status)")
                        }
                        let back = try await RawHTTPClient.request(method: "GET", url: location)
                        outcome.signedOut = outcome.signedOut || back.body.contains("Signed out")
                    }
                } catch {
                    outcome.failures.append("\(error)")
                }
            }
            // Real time is the point: the stand-in browser looks at its spool as a person would.
            try? await Task.sleep(for: .milliseconds(50))
        }
        return outcome
    }
}

/// A block's run, for failure messages: where the block is, what ran, how it ended and what it
/// wrote — with anything shaped like a token, code or secret left out.
struct Report: CustomStringConvertible {
    let block: DocumentedBlock
    let script: String
    let step: ShellStep
    let login: FreshLogin

    var description: String {
        """
        \(block.location) exited \(step.status); the block as run:
        \(script)
        stdout:
        \(redacted(step.stdout))
        stderr:
        \(redacted(step.stderr))
        """
    }

    /// `text` with the login's directory shortened and secrets left out.
    func redacted(_ text: String) -> String {
        Self.redacted(text.replacingOccurrences(of: login.root, with: "$LOGIN"))
    }

    /// `text` without runs of 20 or more token characters that mix upper case, lower case and
    /// digits, as random tokens, codes and JWTs do.
    static func redacted(_ text: String) -> String {
        var result = ""
        var run = ""
        func flush() {
            let secret =
                run.count >= 20 && run.contains(where: \.isUppercase) && run.contains(where: \.isLowercase)
                && run.contains(where: \.isNumber)
            result += secret ? "[redacted]" : run
            run = ""
        }
        for character in text {
            if character.isTokenCharacter {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}

extension Character {
    /// A character of a token as the providers write them: base64url, and the dots of a JWT.
    fileprivate var isTokenCharacter: Bool {
        isASCII && (isLetter || isNumber || self == "-" || self == "_" || self == ".")
    }
}
