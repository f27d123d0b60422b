// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

@_exported import WebAuthControlledBrowsers
@_exported import WebAuthCore
@_exported import WebAuthDesktop
@_exported import WebAuthDesktopSocket
@_exported import WebAuthLoopback
@_exported import WebAuthSystemBrowser
