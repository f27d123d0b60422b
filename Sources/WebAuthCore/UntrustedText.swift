// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Text that did not come from this program — a provider's `error` code or `error_description`,
/// a granted scope, an ID token's subject, a name from UserInfo, a device verification page —
/// and the one way it is made safe to show.
///
/// A terminal obeys what it is sent: `ESC ] 0 ; … BEL` retitles the window, `ESC [ 2 J` clears
/// it, `ESC ] 52 ; c ; …` writes the clipboard. Bidi overrides (U+202E) make text read
/// backwards, zero-width characters hide, line separators forge new lines. ``displayed(replacingWith:limit:)``
/// replaces every such character — control characters (C0, DEL and C1: escape sequences
/// included), format characters (bidi controls, zero-width spaces, the BOM; not the joiners
/// U+200C and U+200D that names and emoji need), line and paragraph separators — with `?`, and bounds the length. Stored values stay as they came (they
/// are protocol values); only what is shown goes through here.
///
/// ```swift
/// let scope = UntrustedText("openid\u{1B}]52;c;aGk=\u{07}")
/// print(scope)  // openid?]52;c;aGk=?
/// ```
public struct UntrustedText: Sendable, Hashable, CustomStringConvertible {
    /// The text as it came, byte for byte. Never print it.
    public let raw: String

    /// Wraps `raw`, text that came from outside this program.
    public init(_ raw: String) { self.raw = raw }

    /// The text with every control, format, line-separator and paragraph-separator character
    /// replaced with `replacement`, cut at `limit` characters with an ellipsis.
    public func displayed(replacingWith replacement: Unicode.Scalar = "?", limit: Int = .max) -> String {
        var cleaned = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            cleaned.append(Self.isShowable(scalar) ? scalar : replacement)
        }
        let text = String(cleaned)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// ``displayed(replacingWith:limit:)`` with no length limit.
    public var description: String { displayed() }

    /// Whether `scalar` can be shown as it is: it neither steers a terminal or a text layout
    /// nor hides itself.
    public static func isShowable(_ scalar: Unicode.Scalar) -> Bool {
        // The zero-width non-joiner and joiner shape Persian and Indic names and emoji
        // sequences; they neither steer a terminal nor reorder text.
        if scalar == "\u{200C}" || scalar == "\u{200D}" { return true }
        return switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: false
        default: true
        }
    }
}
