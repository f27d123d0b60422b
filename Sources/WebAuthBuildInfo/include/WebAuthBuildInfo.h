// SPDX-License-Identifier: Apache-2.0
#ifndef WEBAUTH_BUILD_INFO_H
#define WEBAUTH_BUILD_INFO_H

/// The commit the programs were built from, such as `288b0bf1c2d3` (with `-dirty` when the work
/// tree had changes), or `NULL` when the build did not name one.
///
/// `scripts/install` and `scripts/package` name it through `WEBAUTH_BUILD_COMMIT`, which
/// Package.swift turns into a definition for this target alone; a plain `swift build` names none.
/// Nothing runs git when the program runs.
const char *_Nullable webauth_build_commit(void);

#endif
