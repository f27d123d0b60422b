// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCLI

// `webauth demo` runs here: `webauth-full` hands the demo to this program, the only one that
// links the embedded provider.
await DemoProgram.runFromCommandLine(providerType: EmbeddedDemoProvider.self)
