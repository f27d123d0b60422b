import Foundation

/// `application/x-www-form-urlencoded`, as token requests use it.
package enum FormCoding {
    /// Encodes the pairs in order, percent-encoding everything but RFC 3986 unreserved characters.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0.queryEncoded)=\($0.1.queryEncoded)" }.joined(separator: "&")
    }

    /// Decodes `a=b&c=d` (`+` is a space), keeping order and duplicates.
    package static func decode(_ string: String) -> [(name: String, value: String)] {
        string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// `uri` with the percent-encoded `parameters` added to its query (after `?`, or after `&`
    /// when it already has one), in front of any fragment.
    package static func appendingQuery(_ parameters: [(String, String)], to uri: String) -> String {
        let encoded = encode(parameters)
        var base = uri
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + encoded + fragment
    }
}
