// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// Which `iss` values a provider's tokens and responses may carry: its issuer exactly, or — for a
/// multi-tenant provider such as Microsoft's `common`, `organizations` and `consumers` — the
/// issuer template its discovery document names, with the token's own tenant in place of
/// `{tenantid}`.
///
/// The template is accepted only as discovery names it: fetched from an issuer URL such as
/// `https://login.microsoftonline.com/common/v2.0`, the document's `issuer` is that same URL
/// with one path segment replaced by `{tenantid}` and nothing else different. The rule is not
/// tied to a host: any provider of that shape gets it.
enum IssuerRule: Sendable, Hashable {
    /// `iss` must equal the issuer identifier.
    case exact(String)
    /// `iss` must be the template with the token's `tid` in place of `{tenantid}`, and the tenant
    /// must be allowed.
    case tenant(TenantIssuerTemplate, allowed: Set<String>?)

    /// The rule for a discovery document naming `documentIssuer` when fetched for `configured`;
    /// `nil` when the document names another issuer.
    static func discovered(documentIssuer: String, configured: URL, allowedTenants: Set<String>?) -> IssuerRule? {
        if documentIssuer == configured.absoluteString {
            return .exact(documentIssuer)
        }
        guard let template = TenantIssuerTemplate(documentIssuer: documentIssuer, configured: configured) else {
            return nil
        }
        return .tenant(template, allowed: allowedTenants)
    }

    /// The rule for metadata already accepted by discovery (or configured by hand, where it is
    /// always exact).
    static func accepted(issuer: String, allowedTenants: Set<String>?) -> IssuerRule {
        TenantIssuerTemplate(accepted: issuer).map { .tenant($0, allowed: allowedTenants) } ?? .exact(issuer)
    }

    /// How the rule is named in messages.
    var description: String {
        switch self {
        case .exact(let issuer): "'\(issuer)'"
        case .tenant(let template, _): "'\(template.text)' with the token's tenant"
        }
    }

    /// Whether `issuer`, from an authorization response (RFC 9207), can be this provider's: the
    /// issuer, or the template with an allowed tenant in place of `{tenantid}`.
    func admits(responseIssuer issuer: String) -> Bool {
        switch self {
        case .exact(let expected):
            return issuer == expected
        case .tenant(let template, let allowed):
            guard let tenant = template.tenant(in: issuer) else { return false }
            return allowed?.contains(tenant) ?? true
        }
    }
}

/// An issuer with `{tenantid}` as one whole path segment, such as
/// `https://login.microsoftonline.com/{tenantid}/v2.0`.
struct TenantIssuerTemplate: Sendable, Hashable {
    /// The template as the provider wrote it.
    let text: String
    /// What comes before and after `{tenantid}`.
    private let prefix: String
    private let suffix: String

    static let placeholder = "{tenantid}"

    /// The template in a discovery document fetched for `configured`: the same scheme, host and
    /// port, the same number of path segments, and exactly one segment different — `{tenantid}`
    /// in the document. Anything else is not a template of this issuer.
    init?(documentIssuer: String, configured: URL) {
        guard documentIssuer.components(separatedBy: Self.placeholder).count == 2,
            let placeholderAt = documentIssuer.range(of: Self.placeholder)
        else { return nil }
        let configuredText = configured.absoluteString
        let prefix = String(documentIssuer[..<placeholderAt.lowerBound])
        let suffix = String(documentIssuer[placeholderAt.upperBound...])
        // One whole segment: a '/' before it, and '/' or the end after it.
        guard prefix.hasSuffix("/"), suffix.isEmpty || suffix.hasPrefix("/"),
            configuredText.hasPrefix(prefix), configuredText.hasSuffix(suffix),
            configuredText.count > prefix.count + suffix.count
        else { return nil }
        let segment = configuredText.dropFirst(prefix.count).dropLast(suffix.count)
        guard Self.isTenantSegment(segment),
            // The part before the segment must hold the scheme and host: `https://host/`.
            let url = URL(string: prefix), url.host != nil
        else { return nil }
        self.text = documentIssuer
        self.prefix = prefix
        self.suffix = suffix
    }

    /// The template of metadata discovery has already accepted.
    init?(accepted issuer: String) {
        guard issuer.components(separatedBy: Self.placeholder).count == 2,
            let placeholderAt = issuer.range(of: Self.placeholder)
        else { return nil }
        self.text = issuer
        self.prefix = String(issuer[..<placeholderAt.lowerBound])
        self.suffix = String(issuer[placeholderAt.upperBound...])
    }

    /// The issuer of `tenant`, or `nil` when `tenant` cannot be a path segment.
    func issuer(forTenant tenant: String) -> String? {
        Self.isTenantSegment(Substring(tenant)) ? prefix + tenant + suffix : nil
    }

    /// The tenant an issuer of this template names, or `nil` when it is not one.
    func tenant(in issuer: String) -> String? {
        guard issuer.hasPrefix(prefix), issuer.hasSuffix(suffix), issuer.count > prefix.count + suffix.count else {
            return nil
        }
        let segment = issuer.dropFirst(prefix.count).dropLast(suffix.count)
        return Self.isTenantSegment(segment) ? String(segment) : nil
    }

    /// A tenant identifier as a path segment may hold it: ASCII letters, digits, `-`, `.` and
    /// `_`, at most 128 of them, and not `.` or `..`. Microsoft's are GUIDs or domain names.
    static func isTenantSegment(_ segment: Substring) -> Bool {
        !segment.isEmpty && segment.count <= 128 && segment != "." && segment != ".."
            && segment.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "." || scalar == "_")
            }
    }
}
