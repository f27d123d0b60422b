// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The socket directory, the desktop environment and the forwarder live in the small target the
// scheme handler links; this module's users see them as its own.
@_exported import WebAuthDesktopSocket
// The line server on a Unix socket (shared with the token agent), likewise.
