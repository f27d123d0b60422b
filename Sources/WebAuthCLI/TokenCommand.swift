import ArgumentParser
import Foundation
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth token`: prints a fresh access token for a profile, refreshing it first if needed.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a fresh access token for a signed-in profile (refreshing it if needed).",
        discussion: """
            Standard output gets the access token and a newline, nothing else, so it can be used \
            as $(webauth token):

              curl -H "Authorization: Bearer $(webauth token --profile work)" https://api.example.com/

            While the stored token is valid for at least --min-validity seconds it is printed \
            straight from the store, with no network traffic. Otherwise it is refreshed with the \
            stored refresh token, under the profile's lock: processes refreshing at once take \
            turns, and each sees the tokens the one before it stored, so a rotated refresh token \
            is never used twice.

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @Option(
        name: .customLong("min-validity"),
        help: ArgumentHelp("Refresh when the token expires within this many seconds.", valueName: "SECONDS"))
    var minimumValidity: Double = 60

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print {\"access_token\", \"expires_at\", \"token_type\"} as JSON instead.")
    var json = false

    func validate() throws {
        try ProfileOptions.validate(profile)
        try SecondsOption.validate(minimumValidity, option: "--min-validity", allowsZero: true)
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        do {
            let tokens = try await freshTokens()
            if json {
                var object: [String: Any] = ["access_token": tokens.accessToken, "token_type": tokens.tokenType]
                object["expires_at"] = tokens.expiresAt.map(JSONDate.string) ?? NSNull()
                output.emit(object)
            } else {
                writeFully(STDOUT_FILENO, Array((tokens.accessToken + "\n").utf8))
            }
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "refresh")
            output.failure(failure, terminal: TerminalOutput())
            throw ExitCode(failure.status)
        }
    }

    private var minimumValidityDuration: Duration { SecondsOption.duration(minimumValidity) }

    /// The stored tokens if fresh; else refreshed under the profile's lock and stored.
    func freshTokens() async throws -> TokenSet {
        let stores = TokenStores(selection: storeOption.selection)
        guard let (store, entry) = try await stores.find(profile: profile) else {
            throw CommandFailure.notSignedIn(profile: profile)
        }
        let configuration: ClientConfiguration
        switch TokenFreshness.of(entry, now: Date(), minimumValidity: minimumValidityDuration) {
        case .fresh:
            return entry.tokens
        case .cannotRefresh(let reason):
            throw TokenFreshness.failure(reason, profile: profile)
        case .needsRefresh(let stored):
            configuration = stored
        }
        // Discover before taking the lock, so the lock is held only for the refresh itself.
        let prepared = try OAuthClient(configuration: configuration)
        _ = try await prepared.metadata()
        let profile = profile
        let minimumValidity = minimumValidityDuration
        var refreshed: StoredTokens?
        let updated: StoredTokens?
        do {
            updated = try await store.update(profile: profile) { current in
                guard let current else { throw CommandFailure.notSignedIn(profile: profile) }
                // Another process may have refreshed while this one waited for the lock.
                switch TokenFreshness.of(current, now: Date(), minimumValidity: minimumValidity) {
                case .fresh:
                    return current
                case .cannotRefresh(let reason):
                    throw TokenFreshness.failure(reason, profile: profile)
                case .needsRefresh(let configuration):
                    let client =
                        configuration == prepared.configuration
                        ? prepared : try OAuthClient(configuration: configuration)
                    var next = current
                    next.tokens = try await client.refresh(current.tokens)
                    next.savedAt = Date()
                    refreshed = next
                    return next
                }
            }
        } catch let error as TokenStoreError where stores.fallsBackToFiles(from: store, after: error) {
            // The provider may have rotated the refresh token already: keep the new tokens in
            // files rather than lose them.
            guard let refreshed else { throw error }
            try await stores.fileStore().save(refreshed, profile: profile)
            try await stores.index.record(.file, for: profile)
            _ = try? await store.delete(profile: profile)
            TerminalOutput().note(
                "the keyring did not keep the refreshed tokens of profile \"\(profile)\" (\(error.message)); "
                    + "they are in files now")
            return refreshed.tokens
        }
        guard let updated else { throw CommandFailure.notSignedIn(profile: profile) }
        return updated.tokens
    }
}

/// Dates in JSON output: ISO 8601 in UTC, whole seconds.
enum JSONDate {
    /// `2025-01-31T12:00:00Z`. A date outside years 1–9999 (or not a number), as an entry
    /// written before provider numbers were bounded may hold, is shown as the nearest of them.
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let bounded = seconds.isNaN ? 0 : min(max(seconds, -62_135_596_800), 253_402_300_799)
        return Date(timeIntervalSince1970: bounded).formatted(.iso8601)
    }
}
