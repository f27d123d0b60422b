// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A device authorization in progress (RFC 8628 §3.2): what to show the person, and the
/// device code to poll with.
///
/// ```swift
/// let authorization = try await client.startDeviceAuthorization()
/// print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
/// let tokens = try await client.pollDeviceAuthorization(authorization)
/// ```
public struct DeviceAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The device code; secret, sent only to the token endpoint.
    public let deviceCode: String
    /// The code the person types at ``verificationURI``.
    public let userCode: String
    /// Where the person goes to approve.
    public let verificationURI: URL
    /// The verification URI with the user code already in it, if the provider gives one (good
    /// for a QR code or a link).
    public let verificationURIComplete: URL?
    /// When the device code expires.
    public let expiresAt: Date
    /// How long to wait between polls, as the provider asked (default 5 s).
    public let interval: Duration

    /// Creates a device authorization.
    public init(
        deviceCode: String, userCode: String, verificationURI: URL, verificationURIComplete: URL?, expiresAt: Date,
        interval: Duration
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
    }

    /// The verification URI, user code and expiry; never the device code.
    public var description: String {
        "DeviceAuthorization(\(verificationURI.absoluteString), user code \(userCode), expires \(expiresAt.formatted(.iso8601)))"
    }
}

/// The device authorization endpoint's answer (RFC 8628 §3.2). Google's older
/// `verification_url` spelling is accepted too.
struct DeviceAuthorizationResponse: Decodable {
    var deviceCode: String
    var userCode: String
    var verificationURI: URL
    var verificationURIComplete: URL?
    var expiresIn: Double
    var interval: Double?

    private enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURL = "verification_url"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deviceCode = try container.decode(String.self, forKey: .deviceCode)
        userCode = try container.decode(String.self, forKey: .userCode)
        verificationURI =
            try container.decodeIfPresent(URL.self, forKey: .verificationURI)
            ?? container.decode(URL.self, forKey: .verificationURL)
        verificationURIComplete = try? container.decodeIfPresent(URL.self, forKey: .verificationURIComplete)
        expiresIn = try container.decode(Double.self, forKey: .expiresIn)
        interval = try container.decodeIfPresent(Double.self, forKey: .interval)
    }
}
