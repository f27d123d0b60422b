// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The package's tests use the shipped testing product as well as the helpers here.
@_exported import WebAuthTesting
