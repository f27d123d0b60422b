// SPDX-License-Identifier: Apache-2.0
#ifndef WEBAUTH_SYSTEM_CALLS_H
#define WEBAUTH_SYSTEM_CALLS_H

// The GNU and Linux calls Swift's Glibc module does not export (they need _GNU_SOURCE, or are
// variadic), called directly rather than looked up with dlsym: a statically linked program
// (release builds of `webauth`) has no dynamic symbol table, so a lookup would find nothing.
// Each returns -1 with errno ENOSYS where the system does not have the call.

/// `memfd_create(name, MFD_CLOEXEC)`: a close-on-exec anonymous memory file, or -1 and errno.
int webauth_memfd_create_cloexec(const char *_Nonnull name);

/// `pipe2(ends, O_CLOEXEC)`: 0, or -1 and errno.
int webauth_pipe_cloexec(int *_Nonnull ends);

/// `accept4(listening, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)`: a close-on-exec,
/// non-blocking connection, or -1 and errno.
int webauth_accept_cloexec_nonblocking(int listening);

/// `prctl(PR_SET_DUMPABLE, dumpable)`: 0, or -1 and errno.
int webauth_set_dumpable(int dumpable);

/// `prctl(PR_GET_DUMPABLE)`: 0 or 1, or -1 and errno.
int webauth_get_dumpable(void);

#endif
