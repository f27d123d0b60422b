// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension TokenStores {
    /// One line of ``list(profile:)``: a profile, where it is kept, and its entry — or why it
    /// cannot be read.
    public struct Listing: Sendable {
        /// The profile; `nil` for a store that cannot be read when no profile is known to be in it.
        public var profile: String?
        /// The kind of store.
        public var store: TokenStoreKind
        /// Where the store keeps its entries (``TokenStore/location``).
        public var location: String
        /// The entry, or why it — or its whole store — cannot be read.
        public var entry: Result<StoredTokens, any Error>
    }

    /// Every signed-in profile of the stores the selection names — or only `profile` — with its
    /// entry, reading nothing but the entries (no token is refreshed).
    ///
    /// A store that cannot be opened or asked (a keyring gone, an unsafe directory) is listed as
    /// a failure for each profile the index puts there, or once with no profile when it knows
    /// none; asked about one `profile`, only when the profile may live there. With
    /// ``TokenStoreSelection/automatic``, a keyring that does not answer is left out unless the
    /// index has a profile there.
    ///
    /// ```swift
    /// for listing in await TokenStores().list() {
    ///     print(listing.profile ?? "*", listing.store, (try? listing.entry.get())?.description ?? "unreadable")
    /// }
    /// ```
    public func list(profile: String? = nil) async -> [Listing] {
        var listings: [Listing] = []
        for (kind, opened) in await listableStores() {
            let store: any TokenStore
            switch opened {
            case .success(let opened):
                store = opened
            case .failure(let error):
                let indexed = index.entries()
                if let profile, let home = indexed[profile], home != kind { continue }
                let names: [String?] = profile.map { [$0] } ?? indexed.filter { $0.value == kind }.keys.sorted()
                let location =
                    kind == .keyring ? "Secret Service" : FileTokenStore.defaultDirectory(environment: environment)
                listings += (names.isEmpty ? [nil] : names).map {
                    Listing(profile: $0, store: kind, location: location, entry: .failure(error))
                }
                continue
            }
            let names: [String]
            if let profile {
                names = [profile]
            } else {
                do {
                    names = try await store.profiles()
                } catch {
                    listings.append(
                        Listing(profile: nil, store: kind, location: store.location, entry: .failure(error)))
                    continue
                }
            }
            for name in names {
                do {
                    guard let entry = try await store.load(profile: name) else { continue }
                    listings.append(
                        Listing(profile: name, store: kind, location: store.location, entry: .success(entry)))
                } catch {
                    listings.append(
                        Listing(profile: name, store: kind, location: store.location, entry: .failure(error)))
                }
            }
        }
        return listings
    }
}
