// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the process can tell about where a browser could appear.
///
/// Linux has a display when `DISPLAY` (X11) or `WAYLAND_DISPLAY` is set; an SSH session
/// without X forwarding has neither. macOS has one unless the process runs over SSH.
public struct DisplayEnvironment: Sendable, Hashable {
    /// Whether a graphical browser window could be shown.
    public var hasDisplay: Bool
    /// Whether the process runs in an SSH session.
    public var isRemoteSession: Bool

    /// Reads the display situation from environment variables.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        isRemoteSession = isSet("SSH_CONNECTION") || isSet("SSH_CLIENT") || isSet("SSH_TTY")
        #if os(macOS)
            hasDisplay = !isRemoteSession
        #else
            hasDisplay = isSet("DISPLAY") || isSet("WAYLAND_DISPLAY")
        #endif
    }
}
