// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import WebAuthCore

extension HTTPField.Name {
    /// `DPoP` (RFC 9449 §4.1): the proof a request carries.
    static let dpop = HTTPField.Name("DPoP")!
    /// `DPoP-Nonce` (RFC 9449 §8): the nonce a server asks the next proof to carry.
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
