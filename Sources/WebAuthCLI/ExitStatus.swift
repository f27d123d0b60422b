import ArgumentParser
import WebAuth

/// The exit statuses of `webauth`, one per kind of ending, stable across releases.
public enum ExitStatus {
    /// The callback arrived.
    public static let success: Int32 = 0
    /// A failure with no status of its own.
    public static let failure: Int32 = 1
    /// The person cancelled in the browser (closed the window).
    public static let cancelledByUser: Int32 = 2
    /// No callback arrived within `--timeout`.
    public static let timedOut: Int32 = 3
    /// No browser can be used, or none can do what was asked.
    public static let noBrowser: Int32 = 4
    /// The browser failed to start.
    public static let browserLaunchFailed: Int32 = 5
    /// The callback listener failed, such as a busy `--loopback-port`.
    public static let listenerFailed: Int32 = 6
    /// The authorization URL, the callback, or a pasted URL was not acceptable.
    public static let invalidInput: Int32 = 7
    /// The command line could not be parsed (from swift-argument-parser).
    public static let usage: Int32 = 64
    /// Interrupted with Ctrl-C (SIGINT).
    public static let interrupted: Int32 = 130
    /// Terminated with SIGTERM.
    public static let terminated: Int32 = 143

    /// The status for a session error.
    public static func status(for error: WebAuthenticationSessionError) -> Int32 {
        switch error.code {
        case .canceledLogin where error.cancellationReason == .user: cancelledByUser
        case .canceledLogin: interrupted
        case .timedOut: timedOut
        case .noBrowserAvailable, .browserCannotHonorRequest, .presentationContextInvalid,
            .presentationContextNotProvided:
            noBrowser
        case .browserLaunchFailed: browserLaunchFailed
        case .callbackListenerFailed: listenerFailed
        case .invalidAuthorizationURL, .invalidCallback, .callbackMismatch, .noCallbackReceiver, .invalidHeaderField:
            invalidInput
        default: failure
        }
    }

    /// The table shown in `--help`.
    static let helpText = """
        Exit status:
          0    the callback arrived (its URL is on standard output)
          1    another failure
          2    the sign-in was cancelled in the browser
          3    timed out waiting for the callback
          4    no usable browser (or none can do what was asked)
          5    the browser failed to start
          6    the callback listener failed (for example the port is busy)
          7    the URL, callback or pasted URL was not acceptable
          64   usage error
          130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
        """
}
