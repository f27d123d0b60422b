import Testing
import WebAuthCore

/// A machine presented to the rules: its variables, kernel release and marker files.
struct PresentedHost: HostFacts {
    var environment: [String: String] = [:]
    var kernelRelease: String? = "6.1.0-28-amd64"
    var files: Set<String> = []
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
