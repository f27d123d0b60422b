// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (XDG directories) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthTestSupport

    /// `webauth browser` and `webauth scheme` print names and paths that come from desktop entries
    /// (the person's, or the system's data directories) and from the command line: whatever they
    /// hold, nothing they print can steer the terminal.
    @Suite("webauth browser and scheme print outside text cleaned")
    struct CommandOutputCleaningTests {
        /// A title change, a color and a C1 control sequence introducer, and a bidi override.
        static let hostile = "Evil\u{1B}]0;owned\u{07}\u{1B}[31m\u{9B}2J\u{202E}"
        /// What `hostile` shows as.
        static let cleaned = "Evil?]0;owned??[31m?2J?"

        /// Whether `text` holds nothing a terminal acts on: no C0 control but the newline, no DEL,
        /// no C1 control, no bidi override.
        static func isInert(_ text: String) -> Bool {
            !text.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
            }
        }

        @Test func aBrowserEntrysNameAndProgramArePrintedCleaned() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let webauth = RegisteredDesktop.webauthPath
            // An entry written by hand (or found in a system data directory).
            let applications = desktop.dataHome + "/applications"
            try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=\(Self.hostile)
                Exec=/opt/\(Self.hostile)/browser
                X-WebAuth-AuthenticationBrowser=\(Self.hostile)

                [X-ASWebAuthenticationSessionWebBrowserSupportCapabilities]
                IsSupported=true

                """
            try entry.write(
                toFile: applications + "/webauth-authentication-browser.desktop", atomically: true, encoding: .utf8)

            let status = try await desktop.run(webauth, ["browser", "status"])
            #expect(status.status == 1, "the program does not exist: \(status.standardError)")
            #expect(Self.isInert(status.standardOutput + status.standardError), "\(status.standardOutput)")
            #expect(status.standardOutput.hasPrefix("\(Self.cleaned): registered but not usable\n"))
            #expect(status.standardOutput.contains("  program: /opt/\(Self.cleaned)/browser (missing"))

            // As JSON the values stay exact, escaped: nothing raw reaches the terminal either.
            let json = try await desktop.run(webauth, ["browser", "status", "--json"])
            #expect(Self.isInert(json.standardOutput + json.standardError), "\(json.standardOutput)")
            let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
            #expect(object?["name"] as? String == Self.hostile)

            // A name given on the command line that the registry takes (C1 controls and bidi
            // overrides are not C0) is printed cleaned as well.
            let registered = try await desktop.run(
                webauth, ["browser", "register", "/bin/true", "--name", "Evil\u{9B}2J\u{202E}"])
            #expect(registered.status == 0, "\(registered.standardError)")
            #expect(Self.isInert(registered.standardOutput + registered.standardError))
            #expect(registered.standardOutput.hasPrefix("Evil?2J?: registered\n"), "\(registered.standardOutput)")
        }

        @Test func aSchemeErrorQuotingWhatWasGivenIsPrintedCleaned() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let webauth = RegisteredDesktop.webauthPath
            // An error that quotes what was given.
            let refused = try await desktop.run(
                webauth, ["scheme", "register", "com.example.app", "--app", Self.hostile])
            #expect(refused.status == 7)
            #expect(Self.isInert(refused.standardOutput + refused.standardError), "\(refused.standardError)")
            #expect(refused.standardError.contains("not '\(Self.cleaned)'"), "\(refused.standardError)")
        }

        @Test(TestFixture.desktopTools.required)
        func aSchemeEntrysApplicationAndHandlerArePrintedCleaned() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let webauth = RegisteredDesktop.webauthPath
            // An entry written by hand, its application and handler hostile.
            let applications = desktop.dataHome + "/applications"
            try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=webauth callback
                Exec=/opt/\(Self.hostile)/handler %u
                MimeType=x-scheme-handler/com.example.app;
                NoDisplay=true
                X-WebAuth-Scheme=com.example.app
                X-WebAuth-Application=\(Self.hostile)

                """
            try entry.write(
                toFile: applications + "/webauth-scheme-com.example.app.desktop", atomically: true, encoding: .utf8)
            let status = try await desktop.run(webauth, ["scheme", "status", "com.example.app"])
            #expect(Self.isInert(status.standardOutput + status.standardError), "\(status.standardOutput)")
            #expect(status.standardOutput.contains("  application: \(Self.cleaned)"), "\(status.standardOutput)")
            #expect(status.standardOutput.contains("  handler: /opt/\(Self.cleaned)/handler"))
        }
    }
#endif
