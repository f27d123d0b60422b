// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// One import signs a person in: the sessions, browsers and receivers (WebAuth) and the OAuth
// client (WebAuthOAuth) come with this layer, which only adds what joins them.
@_exported import WebAuth
@_exported import WebAuthOAuth
