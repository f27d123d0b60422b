// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes

extension HTTPField.Name {
    /// `DPoP` (RFC 9449 §4.1): the proof a request carries.
    static let dpop = HTTPField.Name("DPoP")!
    /// `DPoP-Nonce` (RFC 9449 §8): the nonce the provider asks the next proof to carry.
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
    /// `Pragma` (RFC 9111 §5.4), which RFC 6749 §5.1 still asks token responses to carry.
    static let pragma = HTTPField.Name("Pragma")!
    /// `Referrer-Policy`.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    /// `X-Frame-Options` (RFC 7034).
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
