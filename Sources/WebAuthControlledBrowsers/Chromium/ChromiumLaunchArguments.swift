import Foundation

/// The command line a controlled Chromium starts with. Pure.
enum ChromiumLaunchArguments {
    /// The first page: blank, so that interception is in place before anything is loaded.
    static let initialPage = "about:blank"

    /// The flags, in order: ours, then the caller's `extra` ones, then ``initialPage``.
    ///
    /// - `--remote-debugging-pipe`: DevTools on descriptors 3 and 4, no TCP port.
    /// - `--user-data-dir`: the session's own profile (ephemeral or shared).
    /// - `--no-first-run`, `--no-default-browser-check`: no welcome pages or prompts.
    /// - `--headless=new` when headless.
    /// - `--no-sandbox` only when running as root: Chromium's sandbox cannot run for the root user
    ///   and the browser refuses to start without this flag. Anyone else keeps the sandbox.
    ///
    /// Nothing here blocks or redirects network traffic; that is the caller's choice, in `extra`.
    static func make(profile: URL, headless: Bool, runningAsRoot: Bool, extra: [String]) -> [String] {
        var arguments = [
            "--remote-debugging-pipe",
            "--user-data-dir=\(profile.path)",
            "--no-first-run",
            "--no-default-browser-check",
        ]
        if headless { arguments.append("--headless=new") }
        if runningAsRoot { arguments.append("--no-sandbox") }
        arguments += extra
        arguments.append(initialPage)
        return arguments
    }
}
