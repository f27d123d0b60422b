// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// What the machine tells about where a sign-in happens: the environment, the kernel's release
/// string and the marker files containers leave. The seam through which tests present a WSL
/// kernel or a container without being in one.
public protocol HostFacts: Sendable {
    /// The process's environment variables.
    var environment: [String: String] { get }
    /// The kernel's release string (`/proc/sys/kernel/osrelease` on Linux), if it can be read.
    var kernelRelease: String? { get }
    /// Whether a file exists at `path`.
    func fileExists(_ path: String) -> Bool
    /// This machine's host name (`/proc/sys/kernel/hostname` on Linux), if it can be read.
    var hostName: String? { get }
}

extension HostFacts {
    /// No host name: a machine presented without one.
    public var hostName: String? { nil }
}

/// The facts of this machine: `environment`, `/proc/sys/kernel/osrelease` and the file system.
public struct SystemHostFacts: HostFacts {
    /// The environment variables read.
    public var environment: [String: String]

    /// This machine's facts, with `environment` as its variables.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The first line of `/proc/sys/kernel/osrelease`, at most 256 bytes of it.
    public var kernelRelease: String? { Self.firstLine(of: "/proc/sys/kernel/osrelease") }

    /// The first line of `/proc/sys/kernel/hostname`, at most 256 bytes of it.
    public var hostName: String? { Self.firstLine(of: "/proc/sys/kernel/hostname") }

    private static func firstLine(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 256)).map { String(decoding: $0, as: UTF8.self) }?
            .split(whereSeparator: \.isNewline).first.map(String.init)
    }

    /// Whether something exists at `path`.
    public func fileExists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}

/// Where a person signs in, as far as choosing how goes: at a desktop, over SSH, in WSL, in a
/// container, or with a `$BROWSER` helper that forwards URLs to their machine (VS Code Remote
/// and its kind).
///
/// ```swift
/// let surroundings = SignInSurroundings(SystemHostFacts())
/// print(surroundings.place, surroundings.why)   // ssh, "SSH_CONNECTION is set, and neither …"
/// ```
///
/// The rules, first match wins:
/// 1. `$BROWSER` is set: ``Place/browserHelper``; the helper opens the URL where the person is.
/// 2. `WSL_DISTRO_NAME` is set, or the kernel release names Microsoft: ``Place/wsl``; the
///    Windows default browser opens the page (`wslview`, else `explorer.exe`), and the
///    loopback callback reaches this machine through WSL2's localhost forwarding.
/// 3. A display (`DisplayEnvironment`: `DISPLAY` or `WAYLAND_DISPLAY` on Linux):
///    ``Place/desktop``.
/// 4. `SSH_CONNECTION`, `SSH_CLIENT` or `SSH_TTY` is set: ``Place/ssh``.
/// 5. `/.dockerenv` or `/run/.containerenv` exists, or `container` is set: ``Place/container``.
/// 6. Otherwise ``Place/noDisplay``: a console with no display.
///
/// Without a browser to open (rules 4–6), a sign-in uses the device flow where the provider
/// offers it, else prints the URL and takes the pasted redirect.
public struct SignInSurroundings: Sendable, Hashable {
    /// The kinds of place.
    public enum Place: String, Sendable, Hashable, CaseIterable {
        /// A graphical session: a browser opens on this machine.
        case desktop
        /// An SSH session with no forwarded display.
        case ssh
        /// Windows Subsystem for Linux: the Windows browser opens the page.
        case wsl
        /// A container with no display.
        case container
        /// `$BROWSER` names the program that opens URLs.
        case browserHelper = "browser-helper"
        /// No display, and nothing above applies.
        case noDisplay = "no-display"
    }

    /// Where the sign-in happens.
    public let place: Place
    /// Why: the facts the rule matched, such as `SSH_TTY is set, and neither DISPLAY nor
    /// WAYLAND_DISPLAY`.
    public let why: String

    /// For ``Place/ssh``: where the person's own computer reaches this machine, as `ssh` takes
    /// it (`alice@192.0.2.7`), for the `ssh -L` line that lets their browser reach a loopback
    /// listener here. The address is the one this SSH session came in on (the third field of
    /// `SSH_CONNECTION`), else the host name; the user is `USER` or `LOGNAME`. `nil` elsewhere,
    /// or when no address is known; a value that is not a plain address, host or user name is
    /// left out.
    public let sshDestination: String?

    /// Whether a browser can open on this machine or through a helper: a desktop, WSL (the
    /// Windows browser) or a `$BROWSER` helper.
    public var opensBrowser: Bool { [.desktop, .wsl, .browserHelper].contains(place) }

    /// Decides from `facts`, by the rules above.
    public init(_ facts: some HostFacts) {
        let environment = facts.environment
        func set(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        let noDisplay = "and neither DISPLAY nor WAYLAND_DISPLAY is"
        if set("BROWSER") {
            (place, why) = (.browserHelper, "BROWSER is set: it opens the page")
        } else if set("WSL_DISTRO_NAME") {
            (place, why) = (.wsl, "WSL_DISTRO_NAME is set")
        } else if let release = facts.kernelRelease, release.lowercased().contains("microsoft") {
            (place, why) = (.wsl, "the kernel release (\(UntrustedText(release).displayed(limit: 80))) is Microsoft's")
        } else if DisplayEnvironment(environment: environment).hasDisplay {
            let display = ["DISPLAY", "WAYLAND_DISPLAY"].first(where: set)
            (place, why) = (.desktop, display.map { "\($0) is set" } ?? "a local graphical session")
        } else if let ssh = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"].first(where: set) {
            (place, why) = (.ssh, "\(ssh) is set, \(noDisplay)")
        } else if let marker = ["/.dockerenv", "/run/.containerenv"].first(where: facts.fileExists) {
            (place, why) = (.container, "\(marker) exists, \(noDisplay)")
        } else if set("container") {
            (place, why) = (.container, "container is set, \(noDisplay)")
        } else {
            (place, why) = (.noDisplay, "neither DISPLAY nor WAYLAND_DISPLAY is set")
        }
        sshDestination = place == .ssh ? Self.sshDestination(facts) : nil
    }

    /// `user@address` from the session's variables, by the rule ``sshDestination`` states.
    private static func sshDestination(_ facts: some HostFacts) -> String? {
        let environment = facts.environment
        func plain(_ value: String?, _ allowed: (Character) -> Bool) -> String? {
            guard let value, !value.isEmpty, value.count <= 253, value.first != "-", value.allSatisfy(allowed) else {
                return nil
            }
            return value
        }
        let serverAddress = environment["SSH_CONNECTION"].flatMap { connection -> String? in
            let fields = connection.split(separator: " ")
            return fields.count == 4 ? String(fields[2]) : nil
        }
        let address = plain(serverAddress) { $0.isHexDigit || $0 == "." || $0 == ":" }
        let host =
            address ?? plain(facts.hostName) { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-.".contains($0) }
        guard let host else { return nil }
        let user = plain(environment["USER"] ?? environment["LOGNAME"]) {
            ($0.isASCII && ($0.isLetter || $0.isNumber)) || "._-".contains($0)
        }
        return user.map { "\($0)@\(host)" } ?? host
    }
}
