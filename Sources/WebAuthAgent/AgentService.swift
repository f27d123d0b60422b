// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import Logging
public import WebAuthAgentProtocol
import WebAuthCore
package import WebAuthOAuth
import WebAuthPlatform
import WebAuthTokenFiles
package import WebAuthTokenStore

/// The agent's logic: answers each request, refreshes each held profile ahead of time, and
/// forgets profiles as the policy says. The decisions are ``AgentHolder``'s; this actor does
/// what they say — refreshing (one refresh per profile at a time, shared by every request that
/// needs it), asking for confirmation, writing rotated tokens back to the store.
///
/// Each request line is read once (``AgentRequest/read(_:)``, by the server) and answered
/// here as an ``AgentReply``, which stays typed until the server writes it. A token request
/// the holder can serve as it is (no refresh, no confirmation: nearly every one) is answered
/// without the actor, by the server's accepting thread before the connection becomes a channel
/// (``immediateAnswer(to:through:)``), once its line has been read: the lines read are remembered with what they ask, the holder is shared
/// under a lock, and the answer line is made once per token.
///
/// No token appears in a status, a log line or an error message.
package actor AgentService {
    /// Who asks, from the connection's `SO_PEERCRED`.
    package struct Asker: Sendable, Hashable {
        /// The asking process's ID.
        package var processID: Int32
        /// Its user ID.
        package var userID: UInt32

        /// An asker.
        package init(processID: Int32, userID: UInt32) {
            self.processID = processID
            self.userID = userID
        }
    }

    /// A question for the person.
    package struct Question: Sendable, Hashable {
        /// The question, naming the asking process, the profile and what it asks.
        package var text: String
        /// Whether only an explicit, typed yes allows: for a request through the forwarding
        /// socket, whose asker is on another machine.
        package var needsTypedYes: Bool

        /// A question.
        package init(text: String, needsTypedYes: Bool) {
            self.text = text
            self.needsTypedYes = needsTypedYes
        }
    }

    /// How a confirmation is asked: the question in, the person's yes or no out.
    package typealias Confirmation = @Sendable (_ question: Question) async -> Bool

    /// The held profiles and their decisions, shared with ``immediateAnswer(to:through:)``.
    let holder: Locked<AgentHolder>
    /// Token request lines already read, with what they ask for (see `remember(_:asking:)`).
    private let readRequests = Locked<[[UInt8]: (profile: String, validity: Duration)]>([:])
    private let stores: TokenStores
    /// The time every decision is made at, and the timer's (see ``keepTime()``).
    let clock: any AgentClock
    private let confirmation: Confirmation?
    let transport: (any HTTPTransport)?
    let logger: Logger
    private var refreshes: [String: (id: Int, task: Task<TokenSet, any Error>)] = [:]
    private var refreshCount = 0
    private var retryAheadAt: [String: Date] = [:]
    /// The exchanged tokens kept and the exchanges under way (see `AgentService+Exchange.swift`).
    var exchangeState = ExchangeState()
    /// Recent answers to confirmations, by door, asking process and profile: a process that
    /// asks again at once (the fast path handing over to the full program, which keeps the
    /// process ID) gets the same answer without a second question. Through the forwarding door
    /// only refusals are remembered: every far-side request comes from the one `ssh` process,
    /// so an allowance kept for it would serve every far-side program.
    private var recentConfirmations: [ConfirmationKey: (allowed: Bool, at: Date)] = [:]
    private var stopHandler: (@Sendable () -> Void)?
    private let agentOnlyList: AgentOnlyProfiles?
    /// The forwarding socket's path, once the server listens there.
    private var forwardingSocket: String?

    private struct ConfirmationKey: Hashable {
        var door: AgentDoor
        var processID: Int32
        var profile: String
        var target: ExchangeTarget?
        /// `add` rather than a token.
        var adding: Bool
    }

    /// How long a confirmation's answer holds for the same process and profile.
    static let confirmationMemory: TimeInterval = 10
    /// How long after a failed refresh ahead the next is tried.
    static let retryAheadDelay: TimeInterval = 5
    /// How many token request lines are remembered, read.
    static let readRequestsLimit = 64
    /// The longest request line remembered (a token request is far shorter).
    static let readRequestLength = 1024

    /// A service holding nothing yet.
    ///
    /// - Parameters:
    ///   - policy: The lifetimes.
    ///   - stores: The token stores stored profiles are read from and written back to.
    ///   - confirmation: Asks before each token is handed out; `nil`: no asking.
    ///   - transport: The HTTP transport refreshes use; `nil`: the default.
    ///   - clock: The clock; the system's unless a test drives one.
    ///   - socketPath: The socket, beside which the names of agent-only profiles are listed.
    ///   - logger: Where it says what it does (never with a token).
    package init(
        policy: AgentHolder.Policy, stores: TokenStores, confirmation: Confirmation? = nil,
        transport: (any HTTPTransport)? = nil, clock: any AgentClock = SystemAgentClock(),
        socketPath: String? = nil, logger: Logger
    ) {
        self.holder = Locked(AgentHolder(policy: policy))
        var stores = stores
        // The agent is the refresher: it never asks an agent (itself) for tokens.
        stores.agent = nil
        self.stores = stores
        self.agentOnlyList = socketPath.map(AgentOnlyProfiles.init(socketPath:))
        self.confirmation = confirmation
        self.transport = transport
        self.clock = clock
        self.logger = logger
    }

    /// The clock's current time.
    nonisolated func now() -> Date { clock.now() }

    /// Records that the forwarding socket listens at `path` (for `status`).
    package func servesForwarding(at path: String) {
        forwardingSocket = path
    }

    /// Sets what a `stop` request calls (after its answer is written).
    package func onStop(_ handler: @escaping @Sendable () -> Void) {
        stopHandler = handler
    }

    /// Whether a `stop` was asked for: the server stops after answering.
    package func stopRequested() {
        stopHandler?()
    }

    /// The answer to `request` from `asker`, which came in through `door` as `line` (when it
    /// came as one: a token request's line is remembered, for ``immediateAnswer(to:through:)``).
    /// The request is of this build's version: reading the line checked it
    /// (``AgentRequest/read(_:)``).
    ///
    /// Through the forwarding door only `token` is served, and only for profiles added with
    /// `--forward`: any other profile is answered as not held, any other operation is refused
    /// with ``AgentAnswer/Code/notServedHere``.
    package func reply(
        to request: AgentRequest, line: [UInt8]? = nil, from asker: Asker, through door: AgentDoor = .full
    ) async -> AgentReply {
        guard door == .full || request.operation == .token else {
            return .answer(
                .failure(
                    .notServedHere,
                    "the agent's forwarding socket serves tokens only; manage the agent on its own machine"))
        }
        let time = now()
        _ = holder.withLock { $0.forgetExpired(now: time) }
        switch request.operation {
        case .status:
            return .answer(AgentAnswer(ok: true, status: status()))
        case .stop:
            return .answer(.done)
        case .token, .add, .remove:
            guard let profile = request.profile, ProfileNameRule.isValid(profile) else {
                return .answer(.failure(.badRequest, "the request names no valid profile"))
            }
            switch request.operation {
            case .token: return await token(profile, request: request, line: line, asker: asker, door: door)
            case .add: return .answer(await add(profile, request: request, asker: asker))
            default:
                let removed = holder.withLock { $0.remove(profile) }
                exchangeState.kept.forget(profile)
                unlist(profile)
                return .answer(removed ? .done : .failure(.notHeld, "the agent does not hold profile \"\(profile)\""))
            }
        }
    }

    /// ``reply(to:line:from:through:)``'s answer as a value, for callers in this process.
    package func answer(_ request: AgentRequest, from asker: Asker, through door: AgentDoor = .full) async
        -> AgentAnswer
    {
        await reply(to: request, from: asker, through: door).answer
    }

    // MARK: - Requests

    /// The answer line to `line`, come in through `door`, when it is a token request line the
    /// agent has read before and the held token answers as it is, and the agent does not
    /// confirm: the answer the actor would give, without its hop and without reading the line
    /// again (see ``AgentHolder/serveAsHeld(profile:minimumValidity:now:door:)``). `nil` leaves
    /// the request to the server's reading and ``reply(to:line:from:through:)``. Quick and
    /// non-blocking, for the server's accepting thread and its event loop.
    package nonisolated func immediateAnswer(to line: [UInt8], through door: AgentDoor = .full) -> [UInt8]? {
        guard confirmation == nil, let (profile, validity) = readRequests.withLock({ $0[line] }) else { return nil }
        let time = now()
        return holder.withLock { $0.serveAsHeld(profile: profile, minimumValidity: validity, now: time, door: door) }
    }

    /// Remembers that `line` asks for `profile`'s own token, valid for `validity`: programs send
    /// the same line again and again, and reading JSON is most of the cost of answering one, so
    /// the next time the line comes ``immediateAnswer(to:through:)`` knows it
    /// (``readRequestsLimit`` lines, each at most ``readRequestLength`` bytes).
    private func remember(_ line: [UInt8], asking: (profile: String, validity: Duration)) {
        guard line.count <= Self.readRequestLength else { return }
        readRequests.withLock { read in
            if read[line] == nil, read.count >= Self.readRequestsLimit { read.removeAll() }
            read[line] = asking
        }
    }

    /// The validity `request` asks for (60 seconds when it names none); `nil` when it is not a
    /// number of seconds the agent takes.
    private static func minimumValidity(of request: AgentRequest) -> Duration? {
        let validity = request.minimumValidity ?? 60
        guard validity.isFinite, validity >= 0, validity <= 366 * 86400 else { return nil }
        return .milliseconds(Int64(validity * 1000))
    }

    private func token(
        _ profile: String, request: AgentRequest, line: [UInt8]?, asker: Asker, door: AgentDoor
    ) async -> AgentReply {
        guard let minimumValidity = Self.minimumValidity(of: request) else {
            return .answer(.failure(.badRequest, "min_validity must be a number of seconds"))
        }
        switch Self.target(of: request) {
        case .success(let target)?:
            return .answer(
                await exchangedToken(profile, for: target, minimumValidity: minimumValidity, asker: asker, door: door))
        case .failure(let failure)?:
            return .answer(AgentAnswer(ok: false, error: failure))
        case nil:
            if let line { remember(line, asking: (profile, minimumValidity)) }
        }
        let time = now()
        let decision = holder.withLock {
            $0.decide(profile: profile, minimumValidity: minimumValidity, now: time, door: door)
        }
        switch decision {
        case .notHeld:
            return .answer(.failure(.notHeld, "the agent does not hold profile \"\(profile)\""))
        case .refused(let reason):
            return .answer(.failure(.refreshRefused, reason))
        case .serve, .refresh:
            break
        }
        // The question comes before anything the request causes: a refresh it needs is made
        // only once the person allowed the token.
        guard await confirmed(profile, asker: asker, door: door) else {
            return .answer(.failure(.confirmationRefused, "the token of profile \"\(profile)\" was not allowed"))
        }
        switch decision {
        case .serve, .notHeld, .refused:
            break
        case .refresh:
            let tokens: TokenSet
            do {
                tokens = try await refresh(profile, margin: minimumValidity)
            } catch let failure as AgentAnswer.Failure {
                return .answer(AgentAnswer(ok: false, error: failure))
            } catch {
                return .answer(AgentAnswer(ok: false, error: failure(of: error, profile: profile)))
            }
            if tokens.isExpired(at: now(), margin: minimumValidity) {
                return .answer(
                    .failure(
                        .unsupported,
                        "the provider's tokens for profile \"\(profile)\" are not valid for \(Int(minimumValidity.seconds)) seconds"
                    ))
            }
        }
        let served = now()
        let held = holder.withLock { holder -> [UInt8]? in
            guard let held = holder.held(profile, through: door) else { return nil }
            holder.used(profile, now: served)
            return held.answerLine
        }
        guard let held else { return .answer(.failure(.notHeld, "the agent does not hold profile \"\(profile)\"")) }
        return .heldToken(held)
    }

    private func add(_ profile: String, request: AgentRequest, asker: Asker) async -> AgentAnswer {
        let lifetime = request.lifetime.flatMap { $0 > 0 && $0.isFinite ? Duration.seconds($0) : nil }
        let forwarded = request.forward ?? false
        var given: StoredTokens?
        if let text = request.entry {
            guard let entry = try? TokenEntryFormat.decoder().decode(StoredTokens.self, from: Data(text.utf8)) else {
                return .failure(.badRequest, "the entry given for profile \"\(profile)\" cannot be read")
            }
            // Nothing a request names is read or called on its word: no file, no endpoint.
            if let problem = AgentOnlyEntryRule.problem(in: entry) {
                return .failure(.badRequest, "the entry given for profile \"\(profile)\" is refused: \(problem)")
            }
            given = entry
        }
        guard await confirmed(profile, asker: asker, door: .full, adding: (forwarded, given != nil)) else {
            return .failure(.confirmationRefused, "adding profile \"\(profile)\" was not allowed")
        }
        exchangeState.kept.forget(profile)
        if let given {
            let time = now()
            holder.withLock {
                $0.add(given, profile: profile, source: .agentOnly, now: time, lifetime: lifetime, forwarded: forwarded)
            }
            listAgentOnly()
            logger.info("holding profile \"\(profile)\" (agent only\(forwarded ? ", forwarded" : ""))")
            return .done
        }
        do {
            guard let (_, entry) = try await stores.find(profile: profile) else {
                return .failure(.notSignedIn, "profile \"\(profile)\" is not signed in")
            }
            let time = now()
            holder.withLock {
                $0.add(entry, profile: profile, source: .store, now: time, lifetime: lifetime, forwarded: forwarded)
            }
            listAgentOnly()
            retryAheadAt[profile] = nil
            logger.info("holding profile \"\(profile)\" from the store\(forwarded ? ", forwarded" : "")")
            return .done
        } catch let error as TokenStoreError {
            return .failure(.failed, "profile \"\(profile)\" cannot be read: \(error.message)")
        } catch {
            return .failure(.failed, "profile \"\(profile)\" cannot be read (\(type(of: error)))")
        }
    }

    /// Lists the agent-only profiles beside the socket (see `AgentOnlyProfiles`): those held,
    /// and those listed before that this agent does not hold as stored ones — a profile an
    /// agent that stopped held stays listed until it is added or removed here.
    private func listAgentOnly() {
        guard let agentOnlyList else { return }
        let sources = holder.withLock { $0.profiles.mapValues(\.source) }
        var names = agentOnlyList.names().filter { sources[$0] == nil }
        for (name, source) in sources where source == .agentOnly { names.insert(name) }
        agentOnlyList.write(names)
    }

    /// Forgets `profile` from the agent-only list (a `remove` of a profile not held).
    private func unlist(_ profile: String) {
        guard let agentOnlyList else { return }
        agentOnlyList.write(agentOnlyList.names().subtracting([profile]))
    }

    /// Forgets the profiles whose lifetime or idle time is over at `time`, saying so, and the
    /// tokens exchanged for them.
    private func forgetDue(at time: Date) {
        for name in holder.withLock({ $0.forgetExpired(now: time) }) {
            logger.info("forgot profile \"\(name)\"")
            retryAheadAt[name] = nil
        }
        forgetExchangesOfProfilesNotHeld()
    }

    /// What the agent holds now: a profile whose time is over is forgotten first, as a token
    /// request would find it gone, whether or not the ticker has come round yet.
    private func status() -> AgentAnswer.Status {
        forgetDue(at: now())
        let held = holder.withLock { $0.profiles }
        let profiles = held.keys.sorted().compactMap { name -> AgentAnswer.Status.Profile? in
            guard let held = held[name] else { return nil }
            return AgentAnswer.Status.Profile(
                name: name, source: held.source.rawValue,
                expiresAt: held.expiresAt?.timeIntervalSince1970,
                forgetAt: held.forgetAt?.timeIntervalSince1970, lastUsedAt: held.lastUsedAt.timeIntervalSince1970,
                refused: held.refusal != nil, forwarded: held.forwarded)
        }
        return AgentAnswer.Status(
            processID: getpid(), confirms: confirmation != nil, profiles: profiles, forwardingSocket: forwardingSocket)
    }

    // MARK: - Confirmation

    /// Whether the person allows what `asker`, come in through `door`, asks of `profile`: a
    /// token (for `target`, when exchanged), or — with `adding` — holding the profile (whether
    /// forwarded, and whether given in the request). `true` when the agent does not confirm.
    func confirmed(
        _ profile: String, asker: Asker, door: AgentDoor, target: ExchangeTarget? = nil,
        adding: (forwarded: Bool, given: Bool)? = nil
    ) async -> Bool {
        guard let confirmation else { return true }
        let key = ConfirmationKey(
            door: door, processID: asker.processID, profile: profile, target: target, adding: adding != nil)
        let time = now()
        recentConfirmations = recentConfirmations.filter {
            time.timeIntervalSince($0.value.at) < Self.confirmationMemory
        }
        if let recent = recentConfirmations[key], door == .full || !recent.allowed { return recent.allowed }
        let asking = "process \(asker.processID) (\(Self.command(of: asker.processID)))"
        let text: String
        if let adding {
            text =
                "Allow \(asking) to add webauth profile \"\(profile)\" to the agent"
                + (adding.given ? " (signed in to the agent alone)" : "")
                + (adding.forwarded ? ", served on its forwarding socket" : "") + "?"
        } else if door == .forwarding {
            text =
                "Allow a forwarded request (through \(asking)) a token of webauth profile \"\(profile)\""
                + (target.map { " for \($0)" } ?? "") + "?"
        } else {
            text =
                "Allow \(asking) a token of webauth profile \"\(profile)\"" + (target.map { " for \($0)" } ?? "") + "?"
        }
        let allowed = await confirmation(Question(text: text, needsTypedYes: door == .forwarding))
        recentConfirmations[key] = (allowed, now())
        logger.info(
            "\(adding == nil ? "a token of" : "adding") profile \"\(profile)\" was \(allowed ? "allowed" : "refused") to process \(asker.processID) (\(door.rawValue) socket)"
        )
        return allowed
    }

    /// The command line of process `processID`, from `/proc`, safe to show (see `UntrustedText`).
    static func command(of processID: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(processID)/cmdline"), !data.isEmpty else {
            return "unknown command"
        }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return UntrustedText(words.joined(separator: " ")).displayed(limit: 200)
    }

    // MARK: - Refreshing

    /// Refreshes `profile` (or joins the refresh under way) so that its token is valid for
    /// `margin`; the refreshed tokens are held (and, for a stored profile, written back under
    /// its lock by `StoredProfile`).
    func refresh(_ profile: String, margin: Duration) async throws -> TokenSet {
        if let running = refreshes[profile] { return try await running.task.value }
        guard let held = holder.withLock({ $0.profiles[profile] }) else {
            throw AgentAnswer.Failure(code: .notHeld, message: "the agent does not hold profile \"\(profile)\"")
        }
        guard let configuration = held.entry.configuration else {
            throw AgentAnswer.Failure(
                code: .notSignedIn,
                message: "profile \"\(profile)\" was saved without its client configuration and cannot be refreshed")
        }
        let stores = stores
        let transport = transport
        let tokens = held.entry.tokens
        let source = held.source
        let lifetime = tokens.expiresAt.map { $0.timeIntervalSince(tokens.receivedAt) } ?? 0
        let aheadMargin = Duration.milliseconds(Int64(lifetime * AgentHolder.refreshAheadFraction * 1000))
        let providerMargin = max(margin, aheadMargin) + .seconds(1)
        refreshCount += 1
        let id = refreshCount
        let task = Task<TokenSet, any Error> {
            let client =
                if let transport {
                    try OAuthClient(configuration: configuration, transport: transport)
                } else {
                    try OAuthClient(configuration: configuration)
                }
            switch source {
            case .store:
                let provider = AccessTokenProvider(
                    client: client, tokens: tokens, refreshMargin: providerMargin,
                    persistence: StoredProfile(profile, in: stores))
                return try await provider.refreshNow()
            case .agentOnly:
                return try await client.refresh(tokens)
            }
        }
        refreshes[profile] = (id, task)
        defer { if refreshes[profile]?.id == id { refreshes[profile] = nil } }
        do {
            let refreshed = try await task.value
            holder.withLock { $0.refreshed(profile, tokens: refreshed) }
            logger.info("refreshed profile \"\(profile)\"")
            return refreshed
        } catch {
            if let reason = Self.refusal(error) {
                let reason = "the provider refused the refresh of profile \"\(profile)\" (\(reason)); sign in again"
                holder.withLock { $0.refusedRefresh(profile, reason: reason) }
                logger.warning("the provider refused the refresh of profile \"\(profile)\" (\(reason))")
            }
            throw error
        }
    }

    /// The provider's refusal in `error` (such as `invalid_grant`), when it is one.
    static func refusal(_ error: any Error) -> String? {
        guard let error = error as? OAuthError, error.code == .server, let server = error.serverError else {
            return nil
        }
        switch server.code {
        case .serverError, .temporarilyUnavailable, .invalidRequest, .unsupportedGrantType, .unsupportedResponseType,
            .unsupportedTokenType:
            return nil
        default:
            return server.code.rawValue
        }
    }

    func failure(of error: any Error, profile: String) -> AgentAnswer.Failure {
        if let reason = Self.refusal(error) {
            return AgentAnswer.Failure(
                code: .refreshRefused,
                message: "the provider refused the refresh of profile \"\(profile)\" (\(reason)); sign in again")
        }
        if let error = error as? OAuthError, error.code == .noRefreshToken {
            return AgentAnswer.Failure(
                code: .notSignedIn, message: "the token of profile \"\(profile)\" expired and there is no refresh token"
            )
        }
        if let error = error as? TokenStoreError, error.code == .notSignedIn {
            holder.withLock { _ = $0.remove(profile) }
            return AgentAnswer.Failure(code: .notSignedIn, message: "profile \"\(profile)\" is no longer signed in")
        }
        let kind = (error as? OAuthError).map { "\($0.code)" } ?? "\(type(of: error))"
        return AgentAnswer.Failure(code: .failed, message: "the refresh of profile \"\(profile)\" failed (\(kind))")
    }

    /// Does what is due at the current time — forgets the profiles whose time is over, refreshes
    /// ahead those entering the last fifth of their lifetime (a failure other than a refusal
    /// keeps the held token, to be tried again shortly) — and returns when to come back.
    package func tick() async -> Date? {
        let time = now()
        forgetDue(at: time)
        for name in holder.withLock({ $0.profilesToRefreshAhead(now: time) }) {
            if let retry = retryAheadAt[name], retry > time { continue }
            do {
                _ = try await refresh(name, margin: .zero)
                retryAheadAt[name] = nil
            } catch {
                retryAheadAt[name] = now().addingTimeInterval(Self.retryAheadDelay)
                if Self.refusal(error) == nil {
                    logger.notice("refreshing profile \"\(name)\" ahead failed; the held token is still served")
                }
            }
        }
        let later = now()
        let next = holder.withLock { $0.nextEvent(now: later) }
        let retry = retryAheadAt.values.min()
        switch (next, retry) {
        case (let next?, let retry?): return min(next, retry)
        case (let next?, nil): return next
        case (nil, let retry?): return retry
        case (nil, nil): return nil
        }
    }

    /// Keeps the agent's time until the task is cancelled: does what is due (``tick()``), then
    /// waits on the clock until the next thing is due, or a second at most (a profile added
    /// meanwhile may be due sooner).
    package func keepTime() async {
        while !Task.isCancelled {
            let next = await tick()
            let time = now()
            let soon = time.addingTimeInterval(1)
            do {
                try await clock.sleep(until: max(min(next ?? soon, soon), time.addingTimeInterval(0.05)))
            } catch {
                return
            }
        }
    }

    /// Whether the service holds `profile` (for tests).
    package func holds(_ profile: String) -> Bool { holder.withLock { $0.profiles[profile] != nil } }
}

extension AgentAnswer.Failure: Error {}
