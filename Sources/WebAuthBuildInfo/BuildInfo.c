// SPDX-License-Identifier: Apache-2.0
#include "WebAuthBuildInfo.h"

#include <stddef.h>

const char *webauth_build_commit(void) {
#ifdef WEBAUTH_BUILD_COMMIT
    return WEBAUTH_BUILD_COMMIT;
#else
    return NULL;
#endif
}
