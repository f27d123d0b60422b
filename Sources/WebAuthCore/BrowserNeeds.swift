// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a starting session asks of its browser, for environments that choose one per session.
public struct BrowserNeeds: Sendable, Hashable {
    /// The session's callback.
    public var callback: Callback
    /// Whether the session prefers an ephemeral browser session.
    public var prefersEphemeralSession: Bool
    /// Whether the session has additional header fields to send.
    public var hasAdditionalHeaderFields: Bool
    /// Capabilities the browser must have.
    public var requiredCapabilities: BrowserCapabilities
    /// Whether one of the environment's receivers can receive the callback, so the browser
    /// need not catch it.
    public var callbackIsReceivable: Bool

    /// Creates a description of needs.
    public init(
        callback: Callback, prefersEphemeralSession: Bool = false, hasAdditionalHeaderFields: Bool = false,
        requiredCapabilities: BrowserCapabilities = [], callbackIsReceivable: Bool = false
    ) {
        self.callback = callback
        self.prefersEphemeralSession = prefersEphemeralSession
        self.hasAdditionalHeaderFields = hasAdditionalHeaderFields
        self.requiredCapabilities = requiredCapabilities
        self.callbackIsReceivable = callbackIsReceivable
    }

    /// What a browser with `capabilities` lacks of these needs: ``wantedCapabilities`` it
    /// does not have. The required ones among them stop a session; the rest are preferences
    /// it goes without.
    public func lacking(in capabilities: BrowserCapabilities) -> BrowserCapabilities {
        wantedCapabilities.subtracting(capabilities)
    }

    /// The capabilities a browser would need to honour every need, preferences included.
    public var wantedCapabilities: BrowserCapabilities {
        var wanted = requiredCapabilities
        if prefersEphemeralSession { wanted.insert(.ephemeralSessions) }
        if hasAdditionalHeaderFields { wanted.insert(.additionalHeaderFields) }
        if !callbackIsReceivable { wanted.insert(.callbackInterception) }
        return wanted
    }
}
