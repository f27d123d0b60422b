// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    /// A property wrapper that reads a value from ``EnvironmentValues`` — the part of SwiftUI's
    /// `Environment` that web authentication needs, so that the line SwiftUI code uses compiles
    /// and works on Linux in an ordinary struct or class:
    ///
    /// ```swift
    /// @Environment(\.webAuthenticationSession) private var webAuthenticationSession
    /// ```
    ///
    /// There is no view hierarchy on Linux to pass values down, so the value is read from a fresh
    /// ``EnvironmentValues`` each time; values cannot be overridden with `.environment(_:_:)`. To
    /// choose the browser the session uses, bind ``ASWebAuthenticationSession/environment``
    /// around the call.
    @propertyWrapper
    public struct Environment<Value> {
        /// Which value to read.
        private let keyPath: KeyPath<EnvironmentValues, Value>

        /// Reads the value at `keyPath`, such as `\.webAuthenticationSession`.
        public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {
            self.keyPath = keyPath
        }

        /// The value, read when accessed.
        public var wrappedValue: Value {
            EnvironmentValues()[keyPath: keyPath]
        }
    }
#endif
