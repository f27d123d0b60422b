// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebAuthCore

/// A machine presented to the rules: its variables, kernel release and marker files.
struct PresentedHost: HostFacts {
    var environment: [String: String] = [:]
    var kernelRelease: String? = "6.1.0-28-amd64"
    var files: Set<String> = []
    var hostName: String? = nil
    func fileExists(_ path: String) -> Bool { files.contains(path) }
}

@Suite("Where a sign-in happens")
struct SignInSurroundingsTests {
    private func place(_ host: PresentedHost) -> SignInSurroundings.Place { SignInSurroundings(host).place }

    @Test func aBrowserHelperWinsOverEverythingElse() {
        let host = PresentedHost(
            environment: ["BROWSER": "/vscode/helper.sh", "SSH_CONNECTION": "1 2 3 4", "WSL_DISTRO_NAME": "Debian"],
            files: ["/.dockerenv"])
        #expect(place(host) == .browserHelper)
        #expect(SignInSurroundings(host).opensBrowser)
    }

    @Test func wslIsKnownByItsVariableOrItsKernelEvenWithADisplay() {
        #expect(place(PresentedHost(environment: ["WSL_DISTRO_NAME": "Debian"])) == .wsl)
        let kernel = PresentedHost(environment: ["DISPLAY": ":0"], kernelRelease: "5.15.167.4-microsoft-standard-WSL2")
        #expect(place(kernel) == .wsl)
        #expect(SignInSurroundings(kernel).why.contains("microsoft-standard-WSL2"))
        #expect(place(PresentedHost(kernelRelease: "4.4.0-19041-Microsoft")) == .wsl)
    }

    @Test func aDisplayIsADesktopEvenOverSSH() {
        #expect(place(PresentedHost(environment: ["DISPLAY": ":0"])) == .desktop)
        #expect(
            place(PresentedHost(environment: ["WAYLAND_DISPLAY": "wayland-0", "SSH_TTY": "/dev/pts/0"])) == .desktop)
    }

    @Test func sshWithoutADisplay() {
        for variable in ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] {
            let surroundings = SignInSurroundings(PresentedHost(environment: [variable: "x"], files: ["/.dockerenv"]))
            #expect(surroundings.place == .ssh)
            #expect(surroundings.why.hasPrefix("\(variable) is set"))
            #expect(!surroundings.opensBrowser)
        }
    }

    @Test func overSSHTheDestinationIsTheAddressTheSessionCameInOn() {
        func destination(_ environment: [String: String], hostName: String? = nil) -> String? {
            SignInSurroundings(PresentedHost(environment: environment, hostName: hostName)).sshDestination
        }
        let connection = "198.51.100.20 51234 192.0.2.7 22"
        #expect(destination(["SSH_CONNECTION": connection, "USER": "alice"]) == "alice@192.0.2.7")
        #expect(destination(["SSH_CONNECTION": connection, "LOGNAME": "bob"]) == "bob@192.0.2.7")
        #expect(destination(["SSH_CONNECTION": "2001:db8::5 51234 2001:db8::7 22"]) == "2001:db8::7")
        // Without the session's address, the host name.
        #expect(destination(["SSH_TTY": "/dev/pts/1", "USER": "alice"], hostName: "build-7") == "alice@build-7")
        #expect(destination(["SSH_TTY": "/dev/pts/1"]) == nil)
        // Anything but a plain address, host or user name is left out, never printed.
        #expect(destination(["SSH_CONNECTION": "1 2 \u{1B}[2J 22", "USER": "alice"], hostName: "h") == "alice@h")
        #expect(destination(["SSH_CONNECTION": connection, "USER": "-oProxyCommand=x"]) == "192.0.2.7")
        #expect(destination(["SSH_CONNECTION": connection, "USER": "a b"]) == "192.0.2.7")
        // Only over SSH.
        #expect(destination(["SSH_CONNECTION": connection, "DISPLAY": ":0"]) == nil)
    }

    @Test func aContainerByItsMarkersOrItsVariable() {
        #expect(place(PresentedHost(files: ["/.dockerenv"])) == .container)
        #expect(place(PresentedHost(files: ["/run/.containerenv"])) == .container)
        #expect(place(PresentedHost(environment: ["container": "podman"])) == .container)
        #expect(place(PresentedHost(environment: ["container": "podman", "DISPLAY": ":1"])) == .desktop)
    }

    @Test func otherwiseNoDisplay() {
        let surroundings = SignInSurroundings(PresentedHost(environment: ["DISPLAY": "", "BROWSER": ""]))
        #expect(surroundings.place == .noDisplay)
        #expect(!surroundings.opensBrowser)
    }

    @Test func aKernelStringIsShownSafely() {
        let surroundings = SignInSurroundings(PresentedHost(kernelRelease: "5.15-microsoft\u{1B}]0;owned\u{07}"))
        #expect(surroundings.place == .wsl)
        #expect(!surroundings.why.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
