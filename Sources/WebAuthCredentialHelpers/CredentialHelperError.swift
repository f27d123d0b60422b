// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a credential helper could not read what another program sent it, or could not answer.
///
/// Switch on ``code``. ``description`` is safe to print: it names the problem and, at most, an
/// attribute's key or a line number, never a value (values can be passwords or tokens).
///
/// It has the shape of every webauth error — a stable ``code`` and a ``message`` — but does not
/// conform to `WebAuthError`: this module is what `webauth` reads git's and client-go's input
/// with before it loads anything else, so it depends on no other module, the core included.
public struct CredentialHelperError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a number that stays stable across releases.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The number.
        public let rawValue: Int
        /// Creates a code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A line of git's input is not `key=value`, or holds a NUL byte or a carriage return.
        public static let malformedInput = Code(rawValue: 1)
        /// The input is longer than a helper reads (a line over 64 KiB, or too many lines).
        public static let inputTooLong = Code(rawValue: 2)
        /// A value to be written contains a byte the protocol cannot carry (a newline, a carriage
        /// return or a NUL): writing it would let the value inject attributes of its own.
        public static let unencodableValue = Code(rawValue: 3)
        /// `KUBERNETES_EXEC_INFO` is not the JSON of an `ExecCredential`.
        public static let malformedExecInfo = Code(rawValue: 4)
        /// `KUBERNETES_EXEC_INFO` asks for an `apiVersion` this helper does not speak.
        public static let unsupportedAPIVersion = Code(rawValue: 5)

        /// The code's name, such as `malformedInput`.
        public var description: String {
            switch self {
            case .malformedInput: "malformedInput"
            case .inputTooLong: "inputTooLong"
            case .unencodableValue: "unencodableValue"
            case .malformedExecInfo: "malformedExecInfo"
            case .unsupportedAPIVersion: "unsupportedAPIVersion"
            default: "code \(rawValue)"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// One sentence a person can act on; never contains a value that was read or written.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// ``message``.
    public var description: String { message }
}
