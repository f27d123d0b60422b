// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// This package's version.
///
/// ```swift
/// print("webauth \(WebAuthVersion.current)")
/// ```
///
/// `webauth --version` prints it. The number follows Semantic Versioning and changes with each
/// release.
public enum WebAuthVersion {
    /// The version, such as `0.1.0`.
    public static let current = "0.1.0"
}
