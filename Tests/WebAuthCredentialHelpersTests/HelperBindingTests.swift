// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import WebAuthCredentialHelpers

@Suite("Where a helper's token may go")
struct HelperBindingTests {
    private func binding(_ profile: String = "work", _ profileFor: [String] = []) throws -> GitHostBinding {
        GitHostBinding(
            profile: profile, profileFor: try profileFor.map { try #require(GitHostBinding.ProfileFor(argument: $0)) })
    }

    @Test func aProfileAnswersOnlyTheHostsRecordedForIt() throws {
        let recorded: (String) -> [String] = { $0 == "work" ? ["git.example.com", "git.example.com:8443"] : [] }
        let plain = try binding()
        #expect(plain.decision(forHost: "git.example.com", recordedHosts: recorded) == .answer(profile: "work"))
        #expect(plain.decision(forHost: "GIT.Example.com:8443", recordedHosts: recorded) == .answer(profile: "work"))
        #expect(plain.decision(forHost: "git.example.com:443", recordedHosts: recorded) == .refuse(profile: "work"))
        #expect(plain.decision(forHost: "evil.example", recordedHosts: recorded) == .refuse(profile: "work"))
        #expect(plain.decision(forHost: "example.com", recordedHosts: recorded) == .refuse(profile: "work"))
        #expect(plain.decision(forHost: nil, recordedHosts: recorded) == .refuse(profile: "work"))
        #expect(plain.decision(forHost: "", recordedHosts: recorded) == .refuse(profile: "work"))
        // Nothing recorded (a profile set up before hosts were): nothing answered.
        #expect(plain.decision(forHost: "git.example.com", recordedHosts: { _ in [] }) == .refuse(profile: "work"))
    }

    @Test func profileForNamesHostsAndTheirProfiles() throws {
        let named = try binding("work", ["One.example", "two.example:8443=second"])
        let none: (String) -> [String] = { _ in [] }
        #expect(named.decision(forHost: "one.example", recordedHosts: none) == .answer(profile: "work"))
        #expect(named.decision(forHost: "TWO.example:8443", recordedHosts: none) == .answer(profile: "second"))
        #expect(named.decision(forHost: "two.example", recordedHosts: none) == .refuse(profile: "work"))
        #expect(
            named.decision(forHost: "three.example", recordedHosts: { _ in ["three.example"] })
                == .answer(profile: "work"))
        // A host recorded for another profile is not this one's.
        #expect(
            named.decision(forHost: "three.example", recordedHosts: { $0 == "second" ? ["three.example"] : [] })
                == .refuse(profile: "work"))
        for bad in ["", "a/b", "a b", "host:0", "host:99999", "=work", "h=", "user@host", "[::1]:8080"] {
            #expect(GitHostBinding.ProfileFor(argument: bad) == nil, "\(bad)")
        }
    }

    @Test func theRefusalSaysHowToAllowTheHost() {
        #expect(
            GitHostBinding.refusalMessage(host: "Evil.example", profile: "work")
                == "git gets no credential from webauth for Evil.example: profile \"work\" is not set up for it; "
                + "to allow it, run `webauth git-credential setup evil.example --profile work` "
                + "or add --profile-for evil.example to the helper line")
        #expect(GitHostBinding.refusalMessage(host: "h.example", profile: "default").contains("setup h.example` or"))
        #expect(!GitHostBinding.refusalMessage(host: "a b", profile: "work").contains("setup"))
        #expect(GitHostBinding.refusalMessage(host: nil, profile: "work").contains("git named no host"))
    }

    @Test func clusterServersCompareAsURLs() {
        let allowed = ["https://k8s.example.com:6443", "https://proxy.example/k8s/clusters/c1/"]
        for server in [
            "https://k8s.example.com:6443", "HTTPS://K8S.EXAMPLE.COM:6443/",
            "https://proxy.example:443/k8s/clusters/c1",
        ] {
            #expect(ClusterServerBinding.decision(server: server, allowed: allowed) == .allowed, "\(server)")
        }
        for server in [
            "https://k8s.example.com", "http://k8s.example.com:6443", "https://k8s.example.com:6443/other",
            "https://proxy.example/k8s/clusters/c2", "https://proxy.example/K8S/clusters/c1",
            "https://user@k8s.example.com:6443", "https://k8s.example.com:6443?x=1", "k8s.example.com:6443", "",
        ] {
            #expect(ClusterServerBinding.decision(server: server, allowed: allowed) != .allowed, "\(server)")
        }
        #expect(ClusterServerBinding.decision(server: nil, allowed: allowed) == .noClusterInfo)
        #expect(ClusterServerBinding.decision(server: nil, allowed: []) == .allowed)
        #expect(ClusterServerBinding.decision(server: "https://anything.example", allowed: []) == .allowed)
    }

    @Test func theExecInfoNamesTheClustersServer() throws {
        let info = #"""
            {"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true,
             "cluster":{"server":"https://k8s.example.com:6443","certificate-authority-data":"LS0t",
             "insecure-skip-tls-verify":false,"config":{"arbitrary":[1,{"x":null}]}}}}
            """#
        let request = try ExecCredentialRequest(execInfo: info)
        #expect(request.clusterServer == "https://k8s.example.com:6443")
        #expect(request.interactive)
        let without = try ExecCredentialRequest(
            execInfo: #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{}}"#)
        #expect(without.clusterServer == nil)
    }
}
