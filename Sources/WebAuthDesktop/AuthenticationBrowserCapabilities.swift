// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// What a program registered as the person's web-authentication browser declares it can do —
/// the keys of Apple's `ASWebAuthenticationSessionWebBrowserSupportCapabilities` `Info.plist`
/// dictionary, kept in the program's desktop entry (see ``AuthenticationBrowserRegistry``).
///
/// A session hands a request to the program only when the program can honour it; otherwise it
/// falls back to a browser it controls, as Apple's system falls back to Safari:
///
/// | Request | Needs |
/// |---|---|
/// | any | ``isSupported`` |
/// | `prefersEphemeralWebBrowserSession` | ``ephemeralBrowserSessionIsSupported`` |
/// | an `https` callback | ``callbackURLMatchingIsSupported`` |
public struct AuthenticationBrowserCapabilities: Sendable, Hashable, CustomStringConvertible {
    /// The program handles web authentication requests at all (`IsSupported`).
    public var isSupported: Bool
    /// The program honours `shouldUseEphemeralSession` (`EphemeralBrowserSessionIsSupported`).
    public var ephemeralBrowserSessionIsSupported: Bool
    /// The program matches `https` callbacks itself (`CallbackURLMatchingIsSupported`).
    public var callbackURLMatchingIsSupported: Bool

    /// Creates capabilities.
    public init(
        isSupported: Bool = true, ephemeralBrowserSessionIsSupported: Bool = false,
        callbackURLMatchingIsSupported: Bool = false
    ) {
        self.isSupported = isSupported
        self.ephemeralBrowserSessionIsSupported = ephemeralBrowserSessionIsSupported
        self.callbackURLMatchingIsSupported = callbackURLMatchingIsSupported
    }

    /// The desktop entry group the keys are in, named after Apple's dictionary.
    public static let group = "X-ASWebAuthenticationSessionWebBrowserSupportCapabilities"
    /// Apple's key for ``isSupported``.
    public static let isSupportedKey = "IsSupported"
    /// Apple's key for ``ephemeralBrowserSessionIsSupported``.
    public static let ephemeralBrowserSessionIsSupportedKey = "EphemeralBrowserSessionIsSupported"
    /// Apple's key for ``callbackURLMatchingIsSupported``.
    public static let callbackURLMatchingIsSupportedKey = "CallbackURLMatchingIsSupported"

    /// Whether a request with this callback and ephemeral preference can go to the program.
    public func canHonor(callback: Callback, prefersEphemeralSession: Bool) -> Bool {
        guard isSupported else { return false }
        if prefersEphemeralSession && !ephemeralBrowserSessionIsSupported { return false }
        if callback.isHTTPS { return callbackURLMatchingIsSupported }
        return callback.isCustomScheme
    }

    /// Such as `IsSupported=true EphemeralBrowserSessionIsSupported=false …`.
    public var description: String {
        "\(Self.isSupportedKey)=\(isSupported) "
            + "\(Self.ephemeralBrowserSessionIsSupportedKey)=\(ephemeralBrowserSessionIsSupported) "
            + "\(Self.callbackURLMatchingIsSupportedKey)=\(callbackURLMatchingIsSupported)"
    }
}
