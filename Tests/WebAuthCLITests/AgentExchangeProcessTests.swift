// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#endif

/// Tokens for another audience or resource through the agent: `webauth token --audience`,
/// `--resource` and `--scope` against a running agent and the embedded provider, as processes.
extension AgentProcessTests {
    /// The targets the provider issues exchanged tokens for.
    static let exchangeTargets: Set<String> = ["billing", "reports", "https://api.example.com/v1"]

    @Test func anAgentOnlyProfileGetsTokensForATargetExchangedOnceAndKeptInTheAgent() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withAgentTestProvider(tokenExchangeTargets: Self.exchangeTargets) { provider in
            let agent = try await Self.startAgentSignedInAlone(sandbox, provider, extra: ["--scope", "profile"]).agent
            #expect(try sandbox.storedEntry() == nil)

            let first = try await sandbox.run(["token", "--audience", "billing", "--scope", "profile"])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let billing = first.stdout.trimmingCharacters(in: .newlines)
            #expect(first.stdout == billing + "\n")
            #expect(provider.audiences(ofAccessToken: billing) == ["billing"])
            #expect(provider.scopes(ofAccessToken: billing) == ["profile"])
            #expect(provider.tokenExchangeCount == 1)

            // Within its validity the agent's kept token is printed, with no request.
            let again = try await sandbox.run(["token", "--scope", "profile", "--audience", "billing"])
            #expect(again.stdout == first.stdout, "stderr: \(again.stderr)")
            #expect(provider.tokenExchangeCount == 1)

            // Another target, or more validity than the kept token has, is another exchange.
            let reports = try await sandbox.run(["token", "--audience", "reports"])
            #expect(reports.status == 0, "stderr: \(reports.stderr)")
            #expect(provider.audiences(ofAccessToken: reports.stdout.trimmingCharacters(in: .newlines)) == ["reports"])
            #expect(provider.tokenExchangeCount == 2)
            let resource = try await sandbox.run(["token", "--resource", "https://api.example.com/v1", "--json"])
            #expect(resource.status == 0, "stderr: \(resource.stderr)")
            let printed = try #require(try jsonObject(resource.stdout)["access_token"] as? String)
            #expect(provider.audiences(ofAccessToken: printed) == ["https://api.example.com/v1"])
            #expect(provider.tokenExchangeCount == 3)
            let longer = try await sandbox.run([
                "token", "--audience", "billing", "--scope", "profile", "--min-validity", "7200",
            ])
            #expect(longer.status == 0, "stderr: \(longer.stderr)")
            #expect(longer.stdout != first.stdout)
            #expect(provider.tokenExchangeCount == 4)

            // The provider's refusal, as it is without the agent (exit 9, its error named).
            let refused = try await sandbox.run(["token", "--audience", "elsewhere"])
            #expect(refused.status == 9, "stderr: \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("refused the token exchange (invalid_target)"), "\(refused.stderr)")

            let status = try await sandbox.run(["agent", "status", "--json"])
            #expect(!status.stdout.contains(billing))
            #expect(!agent.standardError.contains(billing), "no token in the agent's log")
            #expect(agent.standardError.contains("exchanged the token of profile \"default\" for audience billing"))

            // The agent dies: nothing to fall back to, and the message says why.
            agent.send(SIGKILL)
            _ = try? await agent.waitForEnd(timeout: .seconds(10))
            let after = try await sandbox.run(["token", "--audience", "billing"])
            #expect(after.status == 8, "stderr: \(after.stderr)")
            #expect(after.stdout.isEmpty)
            #expect(after.stderr.contains("agent only"), "\(after.stderr)")
            #expect(after.stderr.contains("stopped"))
        }
    }

    @Test func aStoredProfileHeldByTheAgentIsExchangedInTheAgentNotInTheStore() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withAgentTestProvider(tokenExchangeTargets: Self.exchangeTargets) { provider in
            _ = try await sandbox.signInWithDevice(provider, extra: ["--scope", "profile"])
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }

            // Not held yet: the store answers, and --verbose says why.
            let stored = try await sandbox.run(["token", "--audience", "reports", "--verbose"])
            #expect(stored.status == 0, "stderr: \(stored.stderr)")
            #expect(stored.stderr.contains("does not hold profile"), "\(stored.stderr)")
            #expect(try sandbox.storedEntry()?.exchangedTokens.map(\.target) == [ExchangeTarget(audience: "reports")])
            #expect(provider.tokenExchangeCount == 1)

            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let first = try await sandbox.run(["token", "--audience", "billing", "--verbose"])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(
                first.stderr.hasPrefix("note: the agent at ") && first.stderr.contains(" answered"),
                "--verbose says the agent answered: \(first.stderr)")
            let billing = first.stdout.trimmingCharacters(in: .newlines)
            #expect(provider.audiences(ofAccessToken: billing) == ["billing"])
            #expect(provider.tokenExchangeCount == 2)
            #expect(
                try sandbox.storedEntry()?.exchangedTokens.map(\.target) == [ExchangeTarget(audience: "reports")],
                "the agent keeps its exchanged token in memory, not in the store")

            // From Swift: the agent's client, and the stores asking it first.
            let client = AgentClient(socketPath: sandbox.agentSocket)
            guard
                case .tokens(let answer) = try await client.tokens(
                    profile: "default", exchangedFor: ExchangeTarget(audience: "billing"))
            else {
                Issue.record("the agent did not answer")
                return
            }
            #expect(answer.tokens.accessToken == billing)
            #expect(answer.tokens.refreshToken == nil)
            let stores = TokenStores(selection: .file, environment: sandbox.environment)
            #expect(
                try await stores.freshTokens(profile: "default", exchangedFor: ExchangeTarget(audience: "billing"))
                    .accessToken == billing)
            #expect(provider.tokenExchangeCount == 2)

            // Requests for one target at once share one exchange.
            let target = ExchangeTarget(audience: "reports", scopes: ["profile"])
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        guard
                            case .tokens(let answer) = try await client.tokens(profile: "default", exchangedFor: target)
                        else { throw CLITestError("not answered") }
                        return answer.tokens.accessToken
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(provider.tokenExchangeCount == 3)

            // A refusal is the same failure, status and message, as without the agent.
            let refused = try await sandbox.run(["token", "--audience", "elsewhere"])
            var withoutAgent = sandbox
            withoutAgent.extraEnvironment["WEBAUTH_AGENT_SOCK"] = sandbox.root + "/no-agent.sock"
            let refusedByStore = try await withoutAgent.run(["token", "--audience", "elsewhere"])
            #expect(refused.status == 9, "stderr: \(refused.stderr)")
            #expect(refused.status == refusedByStore.status)
            #expect(refused.stderr == refusedByStore.stderr)
            #expect(refused.stderr.contains("invalid_target"))
            let refusedJSON = try await sandbox.run(["token", "--audience", "elsewhere", "--json"])
            let refusedJSONByStore = try await withoutAgent.run(["token", "--audience", "elsewhere", "--json"])
            #expect(refusedJSON.stdout == refusedJSONByStore.stdout)
            #expect(refusedJSON.status == refusedJSONByStore.status)
            #expect(provider.tokenExchangeCount == 7, "a refusal is not kept: the agent and the store asked twice each")

            // Removing the profile drops what the agent kept: added again, it exchanges anew.
            #expect(try await sandbox.run(["agent", "remove", "default"]).status == 0)
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let afterRemove = try await sandbox.run(["token", "--audience", "billing", "--verbose"])
            #expect(afterRemove.status == 0, "stderr: \(afterRemove.stderr)")
            #expect(
                afterRemove.stderr.hasPrefix("note: the agent at ") && afterRemove.stderr.contains(" answered"),
                "the agent answered: \(afterRemove.stderr)")
            #expect(afterRemove.stdout != first.stdout)
            #expect(provider.tokenExchangeCount == 8)
            #expect(!agent.standardError.contains(billing))
        }
    }

    @Test func withConfirmATokenForATargetIsAskedForNamingTheTarget() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withAgentTestProvider(tokenExchangeTargets: Self.exchangeTargets) { provider in
            _ = try await sandbox.signInWithDevice(provider)
            sandbox.extraEnvironment["WEBAUTH_ASKPASS"] = try Self.askpass(sandbox, allowing: false)
            let agent = try await Self.startAgent(sandbox, ["--confirm"])
            defer { agent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let refused = try await sandbox.run(["token", "--audience", "billing"])
            #expect(refused.status == 9, "stderr: \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            let question = try String(contentsOfFile: sandbox.root + "/question", encoding: .utf8)
            #expect(question.contains("\"default\" for audience billing"), "\(question)")
            #expect(provider.tokenExchangeCount == 0, "nothing is exchanged before the person allows it")

            _ = try Self.askpass(sandbox, allowing: true)
            let allowed = try await sandbox.run(["token", "--audience", "billing"])
            #expect(allowed.status == 0, "stderr: \(allowed.stderr)")
            #expect(provider.audiences(ofAccessToken: allowed.stdout.trimmingCharacters(in: .newlines)) == ["billing"])
        }
    }
}

extension EmbeddedProvider {
    /// How many token exchanges (RFC 8693) the provider was asked for.
    var tokenExchangeCount: Int {
        requests(to: .token).count { $0.grantType == "urn:ietf:params:oauth:grant-type:token-exchange" }
    }
}
