// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCLI

await WebAuthCommand.runFromCommandLine()
