// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import WebAuthControlledBrowsers

/// Telling apart what Firefox sends over WebDriver BiDi, without a browser.
@Suite("BiDi messages")
struct BiDiMessageTests {
    @Test func anAnswerWithAnIDIsASuccessWithItsResult() {
        #expect(
            BiDiMessage.parse(#"{"type":"success","id":3,"result":{"sessionId":"s"}}"#)
                == .success(id: 3, result: ["sessionId": "s"]))
        #expect(BiDiMessage.parse(#"{"id":4}"#) == .success(id: 4, result: .null))
    }

    @Test func anErrorWithAnIDIsThatCommandsFailure() {
        #expect(
            BiDiMessage.parse(#"{"type":"error","id":2,"error":"unknown command","message":"no such thing"}"#)
                == .failure(id: 2, code: "unknown command", message: "no such thing"))
        #expect(
            BiDiMessage.parse(#"{"type":"error","id":2}"#) == .failure(id: 2, code: "unknown error", message: ""))
    }

    @Test func anEventCarriesItsMethodAndParameters() {
        #expect(
            BiDiMessage.parse(#"{"type":"event","method":"browsingContext.load","params":{"url":"about:blank"}}"#)
                == .event(method: "browsingContext.load", params: ["url": "about:blank"]))
    }

    @Test func anErrorWithoutIDIsKeptWhole() {
        #expect(
            BiDiMessage.parse(#"{"type":"error","message":"bad"}"#)
                == .unattributedError(["type": "error", "message": "bad"]))
    }

    @Test(arguments: [
        "not json", "", #"{"type":"event"}"#, #"{"id":1.5}"#, #"{"id":"1"}"#, "[1,2]", #"{"type":"success"}"#,
    ])
    func anythingElseIsNothing(text: String) {
        #expect(BiDiMessage.parse(text) == nil)
    }
}
