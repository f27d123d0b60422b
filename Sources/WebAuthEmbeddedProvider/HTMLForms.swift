// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The forms on an HTML page, and its alert messages: just what a scripted user agent needs
/// to fill in a login or consent form. A small, forgiving tag scanner (not tied to layout,
/// whitespace, attribute order or quoting), not a full HTML parser.
struct HTMLPage: Sendable, Hashable {
    /// A form: where and how it is submitted, and its controls.
    struct Form: Sendable, Hashable {
        /// The `action` attribute as written (entities decoded); `nil` when absent.
        var action: String?
        /// The method, upper-cased: `GET` (the default) or `POST`.
        var method: String
        /// The `<input>`, `<select>` and `<textarea>` controls that have a name (check boxes and
        /// radio buttons only when checked).
        var fields: [Field]
        /// The submit buttons (`<button>` and `<input type=submit>`).
        var buttons: [Button]

        /// The first field with `name`.
        func field(named name: String) -> Field? { fields.first { $0.name == name } }
        /// Whether the form has a password field.
        var hasPassword: Bool { fields.contains { $0.type == "password" } }
    }

    /// A named control.
    struct Field: Sendable, Hashable {
        var name: String
        /// The `type`, lower-cased (`text` when absent).
        var type: String
        var value: String
    }

    /// A submit button.
    struct Button: Sendable, Hashable {
        var name: String?
        var value: String
        /// The text on the button.
        var label: String
    }

    var forms: [Form] = []
    /// The text of elements with `role="alert"`, in order, whitespace collapsed.
    var alerts: [String] = []
    /// The `<title>`, whitespace collapsed.
    var title: String?

    /// Parses `html`.
    init(html: String) {
        var scanner = TagScanner(html)
        var currentForm: Form?
        var openButton: (tag: TagScanner.Tag, text: String)?
        var alert: (name: String, text: String, depth: Int)?
        var titleText: String?

        while let token = scanner.next() {
            switch token {
            case .text(let text):
                if alert != nil { alert?.text += text }
                if openButton != nil { openButton?.text += text }
                if titleText != nil { titleText? += text }
            case .start(let tag):
                if alert != nil, tag.name == alert?.name { alert?.depth += 1 }
                if alert == nil, tag.attributes["role"]?.lowercased() == "alert", !tag.isVoid {
                    alert = (tag.name, "", 0)
                }
                switch tag.name {
                case "title": titleText = ""
                case "form":
                    if let form = currentForm { forms.append(form) }
                    currentForm = Form(
                        action: tag.attributes["action"], method: (tag.attributes["method"] ?? "get").uppercased(),
                        fields: [], buttons: [])
                case "input":
                    let type = (tag.attributes["type"] ?? "text").lowercased()
                    if type == "submit" {
                        currentForm?.buttons.append(
                            Button(
                                name: tag.attributes["name"], value: tag.attributes["value"] ?? "",
                                label: tag.attributes["value"] ?? ""))
                    } else if let name = tag.attributes["name"], !["button", "reset", "image", "file"].contains(type),
                        !["checkbox", "radio"].contains(type) || tag.attributes["checked"] != nil
                    {
                        currentForm?.fields.append(Field(name: name, type: type, value: tag.attributes["value"] ?? ""))
                    }
                case "textarea", "select":
                    if let name = tag.attributes["name"] {
                        currentForm?.fields.append(Field(name: name, type: tag.name, value: ""))
                    }
                case "button":
                    openButton = (tag, "")
                default:
                    break
                }
            case .end(let name):
                if let open = alert, name == open.name {
                    if open.depth == 0 {
                        alerts.append(open.text.collapsingWhitespace)
                        alert = nil
                    } else {
                        alert?.depth -= 1
                    }
                }
                switch name {
                case "title":
                    title = titleText?.collapsingWhitespace
                    titleText = nil
                case "form":
                    if let form = currentForm { forms.append(form) }
                    currentForm = nil
                case "button":
                    if let (tag, text) = openButton {
                        let type = (tag.attributes["type"] ?? "submit").lowercased()
                        if type == "submit" {
                            currentForm?.buttons.append(
                                Button(
                                    name: tag.attributes["name"], value: tag.attributes["value"] ?? "",
                                    label: text.collapsingWhitespace))
                        }
                    }
                    openButton = nil
                default:
                    break
                }
            }
        }
        if let form = currentForm { forms.append(form) }
    }
}

/// Splits HTML into start tags (with decoded attributes), end tags and decoded text. Skips
/// comments, doctypes and the content of `<script>` and `<style>`.
struct TagScanner {
    struct Tag: Sendable, Hashable {
        /// Lower-cased.
        var name: String
        /// Names lower-cased; values with character references decoded. The first of a
        /// repeated attribute wins.
        var attributes: [String: String]
        /// Written `<… />`, or a void element such as `input`.
        var isVoid: Bool
    }

    enum Token: Sendable, Hashable {
        case start(Tag)
        case end(String)
        case text(String)
    }

    private let characters: [Character]
    private var index = 0

    init(_ html: String) {
        characters = Array(html)
    }

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]

    mutating func next() -> Token? {
        guard index < characters.count else { return nil }
        if characters[index] != "<" {
            let start = index
            while index < characters.count, characters[index] != "<" { index += 1 }
            return .text(HTMLEntities.decode(String(characters[start..<index])))
        }
        if hasPrefix("<!--") {
            index = find("-->").map { $0 + 3 } ?? characters.count
            return next()
        }
        if hasPrefix("<!") || hasPrefix("<?") {
            index = find(">").map { $0 + 1 } ?? characters.count
            return next()
        }
        if hasPrefix("</") {
            index += 2
            let name = readName()
            index = find(">").map { $0 + 1 } ?? characters.count
            return name.isEmpty ? next() : .end(name)
        }
        index += 1
        let name = readName()
        guard !name.isEmpty else { return .text("<") }
        var attributes: [String: String] = [:]
        var selfClosing = false
        while index < characters.count {
            skipWhitespace()
            guard index < characters.count else { break }
            if characters[index] == ">" {
                index += 1
                break
            }
            if characters[index] == "/" {
                selfClosing = true
                index += 1
                continue
            }
            let attribute = readAttributeName()
            guard !attribute.isEmpty else {
                index += 1
                continue
            }
            skipWhitespace()
            var value = ""
            if index < characters.count, characters[index] == "=" {
                index += 1
                skipWhitespace()
                value = HTMLEntities.decode(readAttributeValue())
            }
            if attributes[attribute] == nil { attributes[attribute] = value }
        }
        if name == "script" || name == "style" {
            // Raw text: skip to the matching end tag.
            let end = find("</\(name)") ?? characters.count
            index = end
        }
        return .start(Tag(name: name, attributes: attributes, isVoid: selfClosing || Self.voidElements.contains(name)))
    }

    private func hasPrefix(_ prefix: String) -> Bool {
        let prefixCharacters = Array(prefix)
        guard index + prefixCharacters.count <= characters.count else { return false }
        for (offset, character) in prefixCharacters.enumerated()
        where characters[index + offset].lowercased() != character.lowercased() {
            return false
        }
        return true
    }

    /// The index where `text` next starts (case-insensitive), from the current index.
    private func find(_ text: String) -> Int? {
        let needle = Array(text.lowercased())
        var position = index
        while position + needle.count <= characters.count {
            var matches = true
            for (offset, character) in needle.enumerated()
            where characters[position + offset].lowercased() != String(character) {
                matches = false
                break
            }
            if matches { return position }
            position += 1
        }
        return nil
    }

    private mutating func readName() -> String {
        let start = index
        while index < characters.count,
            characters[index].isLetter || characters[index].isNumber
                || characters[index] == "-"
        {
            index += 1
        }
        return String(characters[start..<index]).lowercased()
    }

    private mutating func readAttributeName() -> String {
        let start = index
        while index < characters.count, !characters[index].isWhitespace,
            !["=", ">", "/", "\"", "'"].contains(characters[index])
        {
            index += 1
        }
        return String(characters[start..<index]).lowercased()
    }

    private mutating func readAttributeValue() -> String {
        guard index < characters.count else { return "" }
        let quote = characters[index]
        if quote == "\"" || quote == "'" {
            index += 1
            let start = index
            while index < characters.count, characters[index] != quote { index += 1 }
            let value = String(characters[start..<min(index, characters.count)])
            index = min(index + 1, characters.count)
            return value
        }
        let start = index
        while index < characters.count, !characters[index].isWhitespace, characters[index] != ">" { index += 1 }
        return String(characters[start..<index])
    }

    private mutating func skipWhitespace() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }
}

/// HTML character references: the common named ones and numeric ones.
enum HTMLEntities {
    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmpersand...]
                continue
            }
            let name = String(rest[afterAmpersand..<semicolon])
            if let decoded = decodeReference(name) {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[afterAmpersand...]
            }
        }
        return result + rest
    }

    private static func decodeReference(_ name: String) -> String? {
        if let value = named[name] { return value }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let number: UInt32? =
            digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return number.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}

extension String {
    /// Runs of whitespace as one space, trimmed.
    var collapsingWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
