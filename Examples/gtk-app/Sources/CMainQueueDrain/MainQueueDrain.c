// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#include "CMainQueueDrain.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib.h>

// libdispatch's run-loop integration, as Foundation's RunLoop uses it (swift-corelibs-libdispatch,
// exported, declared in its private headers only). On Linux the handle is an eventfd that
// libdispatch writes to whenever it queues work on the main queue; the callback runs that work.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static gboolean drain_main_queue(gint descriptor, GIOCondition condition, gpointer data) {
    (void)condition;
    (void)data;
    // Reset the eventfd's counter first, so that work queued while draining wakes the loop again.
    uint64_t count;
    ssize_t result;
    do {
        result = read(descriptor, &count, sizeof count);
    } while (result < 0 && errno == EINTR);
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

unsigned int webauth_example_main_queue_drain_install(void) {
    int descriptor = _dispatch_get_main_queue_handle_4CF();
    int flags = fcntl(descriptor, F_GETFL);
    if (flags >= 0) {
        fcntl(descriptor, F_SETFL, flags | O_NONBLOCK);
    }
    unsigned int source = g_unix_fd_add(descriptor, G_IO_IN, drain_main_queue, NULL);
    // Work queued before the handle existed woke nothing: run it now.
    _dispatch_main_queue_callback_4CF(NULL);
    return source;
}
