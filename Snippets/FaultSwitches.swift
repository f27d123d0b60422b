// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthEmbeddedProvider

func misbehave(_ provider: EmbeddedProvider) {
    provider.setFault(.delay(.seconds(30)), for: .token)  // your timeout fires
    provider.setFault(.error("temporarily_unavailable", status: 503).times(1), for: .token)
    provider.setFault(.garbageBody, for: .userInfo)  // not JSON
    provider.setFault(.closedMidResponse, for: .token)  // the answer breaks off
    provider.overrideIDTokenClaims(.init(audience: ["someone-else"]))  // a wrong aud
    provider.removeAllFaults()
    provider.overrideIDTokenClaims(nil)
}

// A person who signs in, then says no on the consent page:
let agent = ScriptedUserAgent(username: "demo", password: "demo-password", consent: .deny)
