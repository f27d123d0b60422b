// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Terminals: whether a descriptor is one, and the process's controlling terminal.
package enum Terminal {
    /// Whether `descriptor` is a terminal (`isatty`).
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The path of the terminal `descriptor` is open on (`ttyname`, such as `/dev/pts/3`);
    /// `nil` when it is no terminal.
    package static func name(_ descriptor: Int32) -> String? {
        guard isatty(descriptor) == 1, let name = ttyname(descriptor) else { return nil }
        return String(cString: name)
    }

    /// The controlling terminal opened for reading and writing (`/dev/tty`, close-on-exec, not
    /// made controlling again); `nil` when the process has none (run by a daemon, in CI, under
    /// `setsid`) or it cannot be opened.
    package static func openControlling() -> Int32? {
        guard let descriptor = try? Descriptor.open("/dev/tty", .readWrite, .noControllingTerminal) else {
            return nil
        }
        guard isTerminal(descriptor) else {
            Descriptor.close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Runs `body` with the terminal `descriptor`'s echo off, and puts the echo back however it
    /// ends — also when `SIGINT`, `SIGTERM` or `SIGHUP` ends the process meanwhile: a handler
    /// restores the settings, then the process dies of the signal as it would have. When
    /// `descriptor` is no terminal, `body` just runs.
    package static func withoutEcho<Result>(_ descriptor: Int32, _ body: () -> Result) -> Result {
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return body() }
        echoRestoration = (descriptor, saved)
        let previousHandlers = [SIGINT, SIGTERM, SIGHUP].map { ($0, signal($0, restoreEchoAndDie)) }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(descriptor, TCSANOW, &quiet)
        defer {
            tcsetattr(descriptor, TCSANOW, &saved)
            for (number, handler) in previousHandlers { signal(number, handler) }
        }
        return body()
    }
}

/// The terminal settings to put back if a signal ends the process while echo is off.
///
/// Safe though global and mutable: written only by ``Terminal/withoutEcho(_:_:)`` before it
/// installs ``restoreEchoAndDie(_:)``, and read only by that handler.
nonisolated(unsafe) private var echoRestoration: (descriptor: Int32, settings: termios)?

/// A signal handler: puts the terminal's echo back, then dies of the signal as it would have.
/// Only async-signal-safe calls (`tcsetattr`, `signal`, `raise`).
private func restoreEchoAndDie(_ number: Int32) {
    if var restoration = echoRestoration {
        tcsetattr(restoration.descriptor, TCSANOW, &restoration.settings)
    }
    signal(number, SIG_DFL)
    raise(number)
}
