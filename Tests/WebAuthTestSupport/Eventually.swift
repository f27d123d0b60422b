// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Whether `condition` holds within `limit`, checked every 20 ms: for waiting on an event a test
/// can observe but not await (a file appearing, a process ending, a request arriving).
///
/// ```swift
/// #expect(await eventually { !FileManager.default.fileExists(atPath: profile) })
/// ```
public func eventually(within limit: Duration = .seconds(60), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        // Real time is the point: the interval between two looks at something not awaitable.
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
