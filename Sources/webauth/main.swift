// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// webauth: a cached token straight from the file store, else the full program (webauth-full).
import WebAuthFastPath

FastPathProgram.run()
