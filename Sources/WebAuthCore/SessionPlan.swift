// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one session will get its callback, decided before anything is opened. Pure.
package struct SessionPlan: Sendable {
    /// The receiver to listen with, if one is needed and available.
    package var receiverIndex: Int?
    /// Things the person should know: preferences the browser cannot honour.
    package var notices: [String]

    /// Decides the plan for a session with `needs` (the ones its browser was chosen for) or
    /// says precisely why the session cannot run. What the browser lacks is
    /// ``BrowserNeeds/lacking(in:)``'s answer, worked out once.
    package static func make(
        needs: BrowserNeeds,
        browserName: String,
        browserCapabilities: BrowserCapabilities,
        receiversAccepting: [Bool],
        additionalHeaderFields: [String: String]
    ) -> Result<SessionPlan, WebAuthenticationSessionError> {
        if let invalid = HeaderFieldPolicy.firstViolation(in: additionalHeaderFields) {
            return .failure(invalid)
        }
        let callback = needs.callback
        let lacking = needs.lacking(in: browserCapabilities)
        let missing = needs.requiredCapabilities.intersection(lacking)
        if !missing.isEmpty {
            return .failure(
                .browserCannotHonor(
                    "\(browserName) cannot provide \(missing) that this session requires; "
                        + "use a browser the session controls (such as Chromium or Firefox)"))
        }
        var notices: [String] = []
        if needs.prefersEphemeralSession && lacking.contains(.ephemeralSessions) {
            notices.append("\(browserName) cannot open an ephemeral session; the browser's own profile is used")
        }
        if needs.hasAdditionalHeaderFields && lacking.contains(.additionalHeaderFields) {
            notices.append("\(browserName) cannot send additional header fields; they are not sent")
        }

        let receiverIndex = receiversAccepting.firstIndex(of: true)
        let browserDelivers =
            browserCapabilities.contains(.callbackInterception) || browserCapabilities.contains(.pastedCallback)
        if callback.isLoopback {
            guard let receiverIndex else {
                return .failure(.noCallbackReceiver("no loopback listener is available for \(callback)"))
            }
            return .success(SessionPlan(receiverIndex: receiverIndex, notices: notices))
        }
        guard receiverIndex != nil || browserDelivers else {
            let fix =
                callback.isCustomScheme
                ? "register the scheme with the desktop (`webauth scheme register \(callback.scheme)` or "
                    + "DesktopSchemeRegistry) or use a browser the session controls"
                : "use a browser the session controls (such as Chromium or Firefox)"
            return .failure(.noCallbackReceiver("\(browserName) cannot hand \(callback) callbacks back: \(fix)"))
        }
        return .success(SessionPlan(receiverIndex: receiverIndex, notices: notices))
    }
}
