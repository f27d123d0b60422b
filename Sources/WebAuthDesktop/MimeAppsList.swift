// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Edits `mimeapps.list` text (the XDG MIME Applications Associations specification): the file
/// `xdg-mime default` writes. Pure: text in, text out.
enum MimeAppsList {
    /// The groups that associate a MIME type with applications.
    private static let associationGroups: Set<String> = ["[Default Applications]", "[Added Associations]"]

    /// `text` without `desktopFileID` in the `mimeType` lines of its association groups (a line
    /// left with no application is dropped); `nil` when there is nothing to remove.
    static func removingAssociations(of desktopFileID: String, with mimeType: String, in text: String) -> String? {
        var changed = false
        var group = ""
        var output: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") {
                group = trimmed
                output.append(line)
                continue
            }
            guard associationGroups.contains(group), let equals = trimmed.firstIndex(of: "="),
                trimmed[..<equals].trimmingCharacters(in: .whitespaces) == mimeType
            else {
                output.append(line)
                continue
            }
            let applications = trimmed[trimmed.index(after: equals)...].split(separator: ";").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            let remaining = applications.filter { $0 != desktopFileID }
            guard remaining.count != applications.count else {
                output.append(line)
                continue
            }
            changed = true
            if !remaining.isEmpty {
                output.append(Substring("\(mimeType)=" + remaining.joined(separator: ";") + ";"))
            }
        }
        return changed ? output.joined(separator: "\n") : nil
    }
}
