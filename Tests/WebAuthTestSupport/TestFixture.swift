// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Testing
import WebAuthPlatform
import WebAuthProcess

/// Something from outside the package that some tests need: a browser, the desktop's tools, a
/// keyring daemon, an independently written provider and its Python packages.
///
/// A test or suite that needs one says so with ``required``:
///
/// ```swift
/// @Suite(TestFixture.chromium.required) struct ChromiumSessionTests { … }
/// ```
///
/// When the fixture is installed the test runs. When it is missing, `swift test` skips the test
/// and prints one line per fixture naming what to install (`scripts/test` installs everything);
/// under `CI=true` a missing fixture fails the test instead, so CI can never pass by testing less.
public struct TestFixture: Sendable, CustomStringConvertible {
    /// What the fixture is, as people call it ("Chromium").
    public let name: String
    /// How to install it by hand.
    public let installation: String
    /// Finds out, once, why the fixture is not usable here (`nil`: it is). Asynchronous, so a
    /// probe that runs a program holds no thread of the concurrency pool while it waits.
    private let probe: Task<String?, Never>

    /// The fixture's name.
    public var description: String { name }

    /// Why the fixture is not usable on this machine, or `nil` when it is.
    public var problem: String? {
        get async { await probe.value }
    }

    /// The trait for a test or suite that needs this fixture (see the type's documentation).
    public var required: ConditionTrait {
        .enabled("needs \(name)") { try await checkAvailability() }
    }

    /// `true` when usable; otherwise a one-time note and `false` (skip), or under `CI=true` an
    /// error (fail).
    func checkAvailability(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Bool {
        guard let problem = await problem else { return true }
        if environment["CI"] == "true" {
            throw TestFixtureMissing(fixture: self, problem: problem)
        }
        let first = Self.announced.withLock { $0.insert(name).inserted }
        if first {
            print(
                "note: skipping the tests that need \(name) (\(problem)); scripts/test installs it, or: \(installation)"
            )
        }
        return false
    }

    /// The fixtures already announced as missing in this process.
    private static let announced = Locked<Set<String>>([])

    /// Creates a fixture whose `problem` is found on first use.
    init(name: String, installation: String, problem: @escaping @Sendable () async -> String?) {
        self.name = name
        self.installation = installation
        self.probe = Task { await problem() }
    }

    // MARK: - The fixtures

    /// Debian's `chromium` (or Chrome) on `PATH`.
    public static let chromium = TestFixture(name: "Chromium", installation: "apt-get install chromium") {
        TestBrowsers.chromiumPath() == nil ? "no chromium on PATH" : nil
    }

    /// Firefox ESR 128 or newer on `PATH`.
    public static let firefox = TestFixture(name: "Firefox", installation: "apt-get install firefox-esr") {
        missingPrograms(["firefox-esr"], alternatives: ["firefox"])
    }

    /// The desktop's `xdg-open` and `xdg-mime`, and `update-desktop-database`.
    public static let desktopTools = TestFixture(
        name: "the desktop tools (xdg-utils)", installation: "apt-get install xdg-utils desktop-file-utils"
    ) { missingPrograms(["xdg-open", "xdg-mime", "update-desktop-database"]) }

    /// A private D-Bus session with gnome-keyring-daemon, driven through `secret-tool`.
    public static let keyring = TestFixture(
        name: "a keyring (gnome-keyring, dbus, secret-tool)",
        installation: "apt-get install gnome-keyring dbus libsecret-tools"
    ) { missingPrograms(["dbus-run-session", "dbus-send", "gnome-keyring-daemon", "secret-tool"]) }

    /// Debian's git with `git http-backend`, for the credential helper's tests.
    public static let git = TestFixture(name: "git (with git http-backend)", installation: "apt-get install git") {
        if let missing = missingPrograms(["git"]) { return missing }
        return FileManager.default.isExecutableFile(atPath: "/usr/lib/git-core/git-http-backend")
            ? nil : "no /usr/lib/git-core/git-http-backend"
    }

    /// A second local user to run a small client as: root (who may become anyone),
    /// `/usr/bin/setpriv` and Debian's `/usr/bin/python3`, which that user can run (a Python under root's home or
    /// this package's build directory may not be readable to them).
    public static let anotherUser = TestFixture(
        name: "another local user (root, setpriv, /usr/bin/python3)",
        installation: "run the tests as root; apt-get install util-linux python3"
    ) {
        if geteuid() != 0 { return "not root: only root can run a program as another user" }
        let missing = ["/usr/bin/setpriv", "/usr/bin/python3"].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        return missing.isEmpty ? nil : "missing: " + missing.joined(separator: ", ")
    }

    /// OpenSSH's server and client (`sshd`, `ssh`, `ssh-keygen`), for ``SSHServer``.
    public static let openSSH = TestFixture(
        name: "OpenSSH (sshd, ssh)", installation: "apt-get install openssh-server openssh-client"
    ) {
        if SSHServer.serverExecutable == nil { return "no sshd in /usr/sbin or on PATH" }
        return missingPrograms(["ssh", "ssh-keygen"])
    }

    /// systemd's `systemd-analyze`, which checks unit files.
    public static let systemdAnalyze = TestFixture(name: "systemd-analyze", installation: "apt-get install systemd") {
        missingPrograms(["systemd-analyze"])
    }

    /// A fresh mount and network namespace with a bind mount (root, `unshare`, `mount`), for
    /// ``IsolatedContainer``.
    public static let mountNamespace = TestFixture(
        name: "mount namespaces (root, unshare)",
        installation: "run the tests as root; apt-get install util-linux mount"
    ) { await IsolatedContainer.problem() }

    /// Debian's glewlwyd (with the package's SQLite schema and login page), python3 and openssl,
    /// for `GlewlwydProvider`.
    public static let glewlwyd = TestFixture(name: "glewlwyd", installation: "apt-get install glewlwyd") {
        if let missing = missingPrograms(["glewlwyd", "python3", "openssl"]) { return missing }
        return FileManager.default.fileExists(atPath: "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3")
            ? nil : "no /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3"
    }

    /// Debian's LemonLDAP::NG (its portal and FastCGI server), nginx, python3 and openssl, for
    /// `LemonLDAPProvider`, with the Perl modules its portal loads beyond the packages'
    /// dependencies: String::Random (the OpenID Connect issuer) and GD::SecurityImage with
    /// Image::Magick (the captcha module, which the portal loads at every start).
    public static let lemonLDAP = TestFixture(
        name: "LemonLDAP::NG",
        installation:
            "apt-get install lemonldap-ng lemonldap-ng-fastcgi-server nginx-light libstring-random-perl "
            + "libgd-securityimage-perl libimage-magick-perl"
    ) {
        if let missing = missingPrograms(["python3", "openssl", "perl"]) { return missing }
        for program in ["/usr/sbin/llng-fastcgi-server", "/usr/sbin/nginx"]
        where !FileManager.default.isExecutableFile(atPath: program) {
            return "no \(program)"
        }
        let modules = [
            "Lemonldap::NG::Portal::Issuer::OpenIDConnect", "Lemonldap::NG::Portal::Captcha::SecurityImage",
            "Lemonldap::NG::Portal::Auth::Demo",
        ]
        guard
            let perl = TestBrowsers.executablePath(
                named: "perl", searchPath: ProcessInfo.processInfo.environment["PATH"])
        else { return "no perl" }
        do {
            let process = try Subprocess(
                executable: perl, arguments: modules.map { "-M\($0)" } + ["-e", "1"], newProcessGroup: false)
            let status = await process.exitStatus()
            return Subprocess.exitCode(of: status) == 0
                ? nil : "Perl cannot load the portal's modules (String::Random, GD::SecurityImage, Image::Magick?)"
        } catch {
            return "perl does not run: \(error)"
        }
    }

    /// Python with django-oauth-toolkit, for the independent provider in
    /// `Tests/Fixtures/django-provider`.
    public static let djangoProvider = pythonFixture(
        name: "the independent provider (django-oauth-toolkit 3.4.1, oauthlib 3)",
        check: """
            import django, oauth2_provider, oauthlib
            assert oauth2_provider.__version__ == "3.4.1" and oauthlib.__version__.startswith("3.")
            """)

    /// Python with the official `kubernetes` client and jwcrypto, for the stand-in API server and
    /// its client in `Tests/Fixtures/kube-api-server`.
    public static let kubernetesClient = pythonFixture(
        name: "the Python kubernetes client and jwcrypto", check: "import kubernetes, jwcrypto")

    /// Python with oauthlib, for the OAuth 1.0a provider in `Tests/Fixtures/oauth1-provider`.
    public static let oauth1Provider = pythonFixture(
        name: "the OAuth 1.0a provider (oauthlib)", check: "import oauthlib")

    /// The package in `Tests/Fixtures/protocol-consumer`, which depends on the `WebAuthOAuth`
    /// product alone, built into ``protocolConsumerBuild`` (`scripts/test` builds it).
    public static let protocolConsumer = TestFixture(
        name: "the protocol layer's consumer package",
        installation:
            "swift build --package-path Tests/Fixtures/protocol-consumer --scratch-path .build/protocol-consumer "
            + "--product protocol-consumer"
    ) {
        let program = protocolConsumerBuild + "/debug/protocol-consumer"
        return FileManager.default.isExecutableFile(atPath: program) ? nil : "no \(program)"
    }

    /// Where `scripts/test` builds the protocol layer's consumer package.
    public static let protocolConsumerBuild = packageRoot.appendingPathComponent(".build/protocol-consumer").path

    // MARK: - Python

    /// The virtual environment `scripts/test` makes for the fixtures.
    public static let pythonEnvironment = packageRoot.appendingPathComponent(".build/test-python").path

    /// The Python that runs the fixtures: `$WEBAUTH_TEST_PYTHON`, else the virtual environment
    /// `scripts/test` made, else `python3` on `PATH`; `nil` when there is none.
    public static let python: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["WEBAUTH_TEST_PYTHON"], !chosen.isEmpty { return chosen }
        let managed = pythonEnvironment + "/bin/python3"
        if FileManager.default.isExecutableFile(atPath: managed) { return managed }
        return TestBrowsers.executablePath(named: "python3", searchPath: environment["PATH"])
    }()

    /// The package's root directory, found from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/WebAuthTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// A fixture that holds when ``python`` runs `check` without an error.
    private static func pythonFixture(name: String, check: String) -> TestFixture {
        let installation =
            "python3 -m venv .build/test-python && .build/test-python/bin/pip install -r Tests/Fixtures/requirements.txt"
        return TestFixture(name: name, installation: installation) {
            guard let python else { return "no python3" }
            do {
                let process = try Subprocess(executable: python, arguments: ["-c", check], newProcessGroup: false)
                let status = await process.exitStatus()
                return Subprocess.exitCode(of: status) == 0 ? nil : "\(python) lacks it"
            } catch {
                return "\(python) does not run: \(error)"
            }
        }
    }

    /// Which of `programs` are not on `PATH` (any one of `alternatives` may stand in for the first).
    private static func missingPrograms(_ programs: [String], alternatives: [String] = []) -> String? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"]
        var missing = programs.filter { TestBrowsers.executablePath(named: $0, searchPath: searchPath) == nil }
        if let first = programs.first, missing.contains(first),
            alternatives.contains(where: { TestBrowsers.executablePath(named: $0, searchPath: searchPath) != nil })
        {
            missing.removeAll { $0 == first }
        }
        return missing.isEmpty ? nil : "not on PATH: " + missing.joined(separator: ", ")
    }
}

/// A test needs a fixture that is not installed, and `CI=true` says that is a failure.
public struct TestFixtureMissing: Error, CustomStringConvertible {
    /// The missing fixture.
    public let fixture: TestFixture
    /// Why it is not usable.
    public let problem: String

    /// What is missing and how to install it.
    public var description: String {
        "CI=true and \(fixture.name) is missing (\(problem)); scripts/test installs it, or: \(fixture.installation)"
    }
}
