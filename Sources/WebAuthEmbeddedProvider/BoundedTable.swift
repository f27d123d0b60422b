// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A dictionary with a capacity and an expiry per entry: when it is full, inserting drops the
/// expired entries, then the oldest ones. What keeps the provider's memory bounded whatever
/// a client (or a flood of them) does.
struct BoundedTable<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
        var sequence: Int
    }

    /// The most entries kept.
    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var nextSequence = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// How many entries there are, expired ones included until they are dropped.
    var count: Int { entries.count }

    /// The entry for `key` if it has not expired at `now`.
    func value(for key: String, now: Date) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// The entry for `key` whatever its expiry, with the expiry.
    func entry(for key: String) -> (value: Value, expiresAt: Date)? {
        entries[key].map { ($0.value, $0.expiresAt) }
    }

    /// The first unexpired entry that satisfies `predicate`, with its key.
    func first(now: Date, where predicate: (Value) -> Bool) -> (key: String, value: Value)? {
        for (key, entry) in entries where entry.expiresAt > now && predicate(entry.value) {
            return (key, entry.value)
        }
        return nil
    }

    /// Stores `value` under `key` until `expiresAt`, making room first if the table is full.
    mutating func insert(_ value: Value, for key: String, expiresAt: Date, now: Date) {
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expiresAt > now }
            while entries.count >= capacity, let oldest = entries.min(by: { $0.value.sequence < $1.value.sequence }) {
                entries[oldest.key] = nil
            }
        }
        entries[key] = Entry(value: value, expiresAt: expiresAt, sequence: nextSequence)
        nextSequence += 1
    }

    /// Changes the entry for `key`, if there is one; returns whether there was.
    @discardableResult
    mutating func update(_ key: String, _ change: (inout Value) -> Void) -> Bool {
        guard var entry = entries[key] else { return false }
        change(&entry.value)
        entries[key] = entry
        return true
    }

    /// Removes and returns the entry for `key`.
    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        entries.removeValue(forKey: key)?.value
    }
}
