import Foundation
import WebAuthCore

/// Choosing a browser for a session.
public enum Browsers {
    /// The browser a session uses when none is chosen:
    ///
    /// 1. `$BROWSER`, when set (the person chose it, with or without a display);
    /// 2. with a display: `xdg-open` on Linux, `open` on macOS, when it exists;
    /// 3. otherwise ``TerminalPresenter``: print the URL and accept the pasted redirect.
    ///
    /// - Parameter environment: The environment variables to decide by.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> any Browser {
        let system = SystemBrowser.desktopDefault(environment: environment)
        if let variable = environment["BROWSER"], !variable.isEmpty, system.availableCommand != nil {
            return system
        }
        if DisplayEnvironment(environment: environment).hasDisplay, system.availableCommand != nil {
            return system
        }
        return TerminalPresenter()
    }
}
