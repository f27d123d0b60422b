// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "WebAuthSystemCalls.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#endif

int webauth_memfd_create_cloexec(const char *name) {
#ifdef __linux__
    return memfd_create(name, MFD_CLOEXEC);
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

int webauth_pipe_cloexec(int *ends) {
#ifdef __linux__
    return pipe2(ends, O_CLOEXEC);
#else
    (void)ends;
    errno = ENOSYS;
    return -1;
#endif
}

int webauth_accept_cloexec_nonblocking(int listening) {
#ifdef __linux__
    return accept4(listening, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
#else
    (void)listening;
    errno = ENOSYS;
    return -1;
#endif
}

int webauth_set_dumpable(int dumpable) {
#ifdef __linux__
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
#else
    (void)dumpable;
    errno = ENOSYS;
    return -1;
#endif
}

int webauth_get_dumpable(void) {
#ifdef __linux__
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
#else
    errno = ENOSYS;
    return -1;
#endif
}
