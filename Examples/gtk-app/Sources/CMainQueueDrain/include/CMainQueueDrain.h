// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#ifndef WEBAUTH_EXAMPLE_MAIN_QUEUE_DRAIN_H
#define WEBAUTH_EXAMPLE_MAIN_QUEUE_DRAIN_H

/// Adds a GLib source to the default main context that drains the main dispatch queue whenever
/// libdispatch wakes it, and drains what is already queued. Call on the main thread, once.
/// Returns the source's ID.
unsigned int webauth_example_main_queue_drain_install(void);

#endif
