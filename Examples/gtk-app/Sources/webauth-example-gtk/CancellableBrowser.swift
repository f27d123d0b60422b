// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Synchronization
import WebAuth

/// The person's browser, with the app's "Cancel" button as its close button.
///
/// The desktop's browser opens the page and leaves: the session cannot see the person close
/// it, as it sees a browser it controls close. So the app offers "Cancel" while a sign-in
/// waits, and it ends the session as closing the browser does — the person cancelled, and the
/// view model's handler receives `canceledLogin`, as on Apple platforms when the person
/// dismisses the sign-in sheet.
final class CancellableBrowser: Browser {
    private let wrapped: any Browser
    private let current = Mutex<AsyncStream<BrowserEvent>.Continuation?>(nil)

    /// Presents in `browser`.
    init(_ browser: any Browser) {
        self.wrapped = browser
    }

    var name: String { wrapped.name }
    var capabilities: BrowserCapabilities { wrapped.capabilities }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        let opened = try await wrapped.present(request)
        let (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        current.withLock { $0 = continuation }
        let forwarding = Task {
            for await event in opened.events { continuation.yield(event) }
        }
        return Presentation(events: events, opened: opened, forwarding: forwarding) { [weak self] in
            self?.current.withLock { $0 = nil }
        }
    }

    /// Ends the open page's session as closed by the person; `false` when no page is open.
    func closeByPerson() -> Bool {
        guard let continuation = current.withLock({ $0.take() }) else { return false }
        continuation.yield(.closedByUser)
        return true
    }

    private struct Presentation: BrowserPresentation {
        let events: AsyncStream<BrowserEvent>
        let opened: any BrowserPresentation
        let forwarding: Task<Void, Never>
        let ended: @Sendable () -> Void

        func dismiss() async {
            ended()
            forwarding.cancel()
            await opened.dismiss()
        }
    }
}
