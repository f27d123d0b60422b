// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (xdg-utils, XDG directories, SO_PEERCRED) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthCore
    import WebAuthTestSupport

    @testable import WebAuthDesktop
    import WebAuthDesktopSocket

    extension DesktopIntegrationTests {
        @Suite("Scheme names, desktop entries and mimeapps.list")
        struct SchemeEntryTests {
            @Test func schemeNamesAreCheckedAndNonReverseDNSNamesWarned() throws {
                let reverse = try DesktopSchemeRegistry.checkScheme("com.Example.App")
                #expect(reverse.name == "com.example.app")
                #expect(reverse.warnings.isEmpty)

                let short = try DesktopSchemeRegistry.checkScheme("myapp")
                #expect(short.name == "myapp")
                #expect(short.warnings.count == 1)
                #expect(short.warnings.first?.contains("reverse-DNS") == true)
                #expect(short.warnings.first?.contains("com.example.myapp") == true)

                let digits = try DesktopSchemeRegistry.checkScheme("com.example.app2")
                #expect(digits.warnings.count == 1)
                #expect(digits.warnings.first?.contains("xdg-utils before 1.2") == true)

                for invalid in ["", "1app", "my app", "my_app", "https", "HTTP", "javascript", "a:b", "é.example"] {
                    #expect(throws: DesktopSchemeError.self, "\(invalid)") {
                        try DesktopSchemeRegistry.checkScheme(invalid)
                    }
                }
                let error = try #require(throws: DesktopSchemeError.self) {
                    try DesktopSchemeRegistry.checkScheme("my app")
                }
                #expect(error.code == .invalidScheme)
                #expect(error.message.contains("RFC 3986"))
            }

            @Test func theDesktopEntryCarriesTheHandlerAndReadsBack() throws {
                let entry = SchemeHandlerEntry(
                    scheme: "com.example.app", handlerPath: "/opt/x/webauth-scheme-handler", application: "tool")
                let lines = entry.text.split(separator: "\n").map(String.init)
                #expect(lines.first == "[Desktop Entry]")
                #expect(lines.contains("Exec=/opt/x/webauth-scheme-handler %u"))
                #expect(lines.contains("MimeType=x-scheme-handler/com.example.app;"))
                #expect(lines.contains("NoDisplay=true"))
                #expect(lines.contains("X-WebAuth-Application=tool"))
                #expect(SchemeHandlerEntry(parsing: entry.text) == entry)
                #expect(
                    SchemeHandlerEntry.desktopFileID(forScheme: "Com.Example.App")
                        == "webauth-scheme-com.example.app.desktop")

                let foreign =
                    "[Desktop Entry]\nType=Application\nExec=/usr/bin/other %u\nMimeType=x-scheme-handler/com.example.app;\n"
                #expect(SchemeHandlerEntry(parsing: foreign) == nil)
                let markerInAnotherGroup = foreign + "[Desktop Action x]\nX-WebAuth-Scheme=com.example.app\n"
                #expect(SchemeHandlerEntry(parsing: markerInAnotherGroup) == nil)
            }

            @Test func handlerPathsADesktopEntryCannotCarryAreRefused() throws {
                for path in [
                    "relative/handler", "/tmp/with space/handler", "/tmp/quote\"d", "/tmp/100%", "/tmp/$HOME/x",
                ] {
                    #expect(throws: DesktopSchemeError.self, "\(path)") {
                        try SchemeHandlerEntry.validateHandlerPath(path)
                    }
                }
                try SchemeHandlerEntry.validateHandlerPath(
                    "/work/main/.build/x86_64-unknown-linux-gnu/debug/webauth-scheme-handler")
            }

            @Test func removingAnAssociationLeavesEverythingElse() throws {
                let list = """
                    [Default Applications]
                    text/html=firefox.desktop
                    x-scheme-handler/com.example.app=webauth-scheme-com.example.app.desktop
                    x-scheme-handler/com.example.two=other.desktop;webauth-scheme-com.example.two.desktop;

                    [Added Associations]
                    x-scheme-handler/com.example.app=webauth-scheme-com.example.app.desktop;other.desktop;
                    """
                let removed = try #require(
                    MimeAppsList.removingAssociations(
                        of: "webauth-scheme-com.example.app.desktop", with: "x-scheme-handler/com.example.app", in: list
                    ))
                #expect(
                    removed == """
                        [Default Applications]
                        text/html=firefox.desktop
                        x-scheme-handler/com.example.two=other.desktop;webauth-scheme-com.example.two.desktop;

                        [Added Associations]
                        x-scheme-handler/com.example.app=other.desktop;
                        """)
                #expect(
                    MimeAppsList.removingAssociations(
                        of: "webauth-scheme-com.example.x.desktop", with: "x-scheme-handler/com.example.x", in: list)
                        == nil
                )
            }

            @Test func longSchemesGetAShortHashedSocketName() {
                let directory = CallbackSocketDirectory(
                    environment: DesktopEnvironment(variables: ["XDG_RUNTIME_DIR": "/run/user/1000"]))
                #expect(directory.path == "/run/user/1000/webauth")
                #expect(
                    directory.socketPath(forScheme: "com.Example.App") == "/run/user/1000/webauth/com.example.app.sock")
                let long = "com." + String(repeating: "a", count: 120)
                let path = directory.socketPath(forScheme: long)
                #expect(path.utf8.count <= DesktopSocketCalls.maximumPathLength)
                #expect(path == directory.socketPath(forScheme: long.uppercased()))
                #expect(path != directory.socketPath(forScheme: long + "b"))
                #expect(
                    CallbackSocketDirectory(environment: DesktopEnvironment(variables: [:])).path.hasSuffix(
                        "/webauth-\(getuid())"))
            }

            @Test func aMissingOrUnsafeSocketDirectoryIsAWebAuthError() throws {
                let runtime = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "webauth-runtime-\(UUID().uuidString)"
                ).path
                try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
                defer { try? FileManager.default.removeItem(atPath: runtime) }
                chmod(runtime, 0o700)
                let directory = CallbackSocketDirectory(
                    environment: DesktopEnvironment(variables: ["XDG_RUNTIME_DIR": runtime]))
                let missing = #expect(throws: CallbackSocketDirectory.Problem.self) { try directory.check() }
                #expect(missing?.code == .missing)
                #expect(missing?.isMissing == true)
                #expect(missing?.description == "missing: \(runtime)/webauth does not exist")

                try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: false)
                chmod(directory.path, 0o755)
                let unsafe = #expect(throws: CallbackSocketDirectory.Problem.self) { try directory.check() }
                #expect(unsafe?.code == .unsafe)
                #expect(unsafe?.isMissing == false)
                #expect(unsafe?.message.hasPrefix("\(directory.path) has mode 755 but must be 0700") == true)
                let reported: any WebAuthError = try #require(unsafe)
                #expect(reported.description.hasPrefix("unsafe: "))
            }

            @Test func xdgDirectoriesFollowTheBaseDirectorySpecification() {
                let desktop = DesktopEnvironment(variables: [
                    "HOME": "/home/ada", "XDG_DATA_HOME": "relative/ignored", "XDG_CONFIG_HOME": "/cfg/",
                    "XDG_DATA_DIRS": "/a:relative:/b",
                ])
                #expect(desktop.dataHome == "/home/ada/.local/share")
                #expect(desktop.applicationsDirectory == "/home/ada/.local/share/applications")
                #expect(desktop.configHome == "/cfg")
                #expect(desktop.dataDirectories == ["/a", "/b"])
                #expect(desktop.runtimeDirectory == nil)
                #expect(
                    DesktopEnvironment(variables: ["HOME": "/h"]).dataDirectories == ["/usr/local/share", "/usr/share"])
            }
        }
    }

    extension DesktopIntegrationTests {
        @Suite("Registering schemes with the desktop (real xdg-mime)", TestFixture.desktopTools.required)
        struct SchemeRegistryTests {
            @Test func registeringMakesTheHandlerTheDefaultAndUnregisteringUndoesIt() async throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let registry = setup.registry
                let scheme = "com.example.registered"

                #expect(!registry.isRegistered(scheme: scheme))
                #expect(try !registry.status(scheme: scheme).isRegistered)

                let registration = try registry.register(
                    scheme: scheme, handlerPath: TemporaryDesktop.schemeHandlerPath, application: "tool")
                #expect(registration.warnings.isEmpty)
                #expect(registration.status.isRegistered)
                #expect(
                    registration.status.entryPath == setup.desktop.dataHome
                        + "/applications/webauth-scheme-\(scheme).desktop")
                let text = try String(contentsOfFile: registry.entryPath(forScheme: scheme), encoding: .utf8)
                #expect(text.contains("Exec=\(TemporaryDesktop.schemeHandlerPath) %u"))

                // Ask the real xdg-mime, independently of the registry.
                let query = try await setup.desktop.run(
                    RegisteredDesktop.executable("xdg-mime"), ["query", "default", "x-scheme-handler/\(scheme)"])
                #expect(
                    query.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                        == "webauth-scheme-\(scheme).desktop")
                #expect(registry.isRegistered(scheme: scheme))
                #expect(registry.registeredSchemes(forApplication: "tool") == [scheme])
                #expect(try registry.registeredScheme(forApplication: "tool") == scheme)
                #expect(registry.registeredSchemes(forApplication: "other").isEmpty)

                #expect(try registry.unregister(scheme: scheme))
                #expect(!FileManager.default.fileExists(atPath: registry.entryPath(forScheme: scheme)))
                let after = try await setup.desktop.run(
                    RegisteredDesktop.executable("xdg-mime"), ["query", "default", "x-scheme-handler/\(scheme)"])
                #expect(after.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
                let status = try registry.status(scheme: scheme)
                #expect(!status.isRegistered)
                #expect(status.defaultHandler == nil)
                #expect(try !registry.unregister(scheme: scheme))
            }

            @Test func anEntryWebAuthDidNotWriteIsLeftAlone() throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let scheme = "com.example.foreign"
                let path = setup.registry.entryPath(forScheme: scheme)
                try FileManager.default.createDirectory(
                    atPath: setup.environment.applicationsDirectory, withIntermediateDirectories: true)
                let foreign = "[Desktop Entry]\nType=Application\nExec=/usr/bin/other %u\n"
                try Data(foreign.utf8).write(to: URL(fileURLWithPath: path))

                let registering = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.register(scheme: scheme, handlerPath: TemporaryDesktop.schemeHandlerPath)
                }
                #expect(registering.code == .foreignEntry)
                let unregistering = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.unregister(scheme: scheme)
                }
                #expect(unregistering.code == .foreignEntry)
                #expect(try String(contentsOfFile: path, encoding: .utf8) == foreign)
                #expect(!setup.registry.isRegistered(scheme: scheme))
            }

            @Test func aMissingOrUnusableHandlerIsRefused() throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let missing = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.register(scheme: "com.example.x", handlerPath: setup.desktop.root.path + "/nope")
                }
                #expect(missing.code == .invalidHandler)
                let spaced = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.register(scheme: "com.example.x", handlerPath: "/tmp/a b/handler")
                }
                #expect(spaced.code == .invalidHandler)
                let application = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.register(
                        scheme: "com.example.x", handlerPath: TemporaryDesktop.schemeHandlerPath, application: "my app")
                }
                #expect(application.code == .invalidApplication)
                #expect(!FileManager.default.fileExists(atPath: setup.registry.entryPath(forScheme: "com.example.x")))
            }

            @Test func theSchemeThisAppRegisteredIsFoundOnlyWhenThereIsExactlyOne() throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let none = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.registeredScheme(forApplication: "tool")
                }
                #expect(none.code == .noRegisteredScheme)
                #expect(none.message.contains("webauth scheme register SCHEME --app tool"))

                try setup.registry.register(
                    scheme: "com.example.one", handlerPath: TemporaryDesktop.schemeHandlerPath, application: "tool")
                try setup.registry.register(
                    scheme: "com.example.else", handlerPath: TemporaryDesktop.schemeHandlerPath, application: "other")
                #expect(try setup.registry.registeredScheme(forApplication: "tool") == "com.example.one")

                try setup.registry.register(
                    scheme: "com.example.two", handlerPath: TemporaryDesktop.schemeHandlerPath, application: "tool")
                let several = try #require(throws: DesktopSchemeError.self) {
                    try setup.registry.registeredScheme(forApplication: "tool")
                }
                #expect(several.message.contains("com.example.one, com.example.two"))
            }

            @Test func canReceiveOnlyCustomSchemesRegisteredToTheHandler() throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.receivable"])
                defer { setup.remove() }
                let receiver = setup.receiver()
                #expect(receiver.canReceive(.customScheme("com.example.receivable")))
                #expect(receiver.canReceive(.customScheme("COM.EXAMPLE.RECEIVABLE")))
                #expect(!receiver.canReceive(.customScheme("com.example.unregistered")))
                #expect(!receiver.canReceive(.https(host: "example.com", path: "/cb")))
                #expect(!receiver.canReceive(.loopback()))
            }
        }
    }
#endif
