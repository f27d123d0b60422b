// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The embedded provider and its scripted user agent are a product of their own (the `webauth`
// demo runs them); this product adds the test browsers and the authorization page server on top.
@_exported import WebAuthEmbeddedProvider
