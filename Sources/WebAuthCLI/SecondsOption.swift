import ArgumentParser

/// Durations given on the command line as a number of seconds (`--timeout 90`, `--min-validity
/// 0.5`): checked once, turned into a `Duration` once.
enum SecondsOption {
    /// The longest duration accepted: a year, far beyond any sign-in or token lifetime, and far
    /// below what a `Duration` can hold.
    static let maximum: Double = 365 * 24 * 3600

    /// Throws a usage error naming `option` unless `value` is a number of seconds in range:
    /// positive (or zero, when `allowsZero`) and at most ``maximum``.
    static func validate(_ value: Double, option: String, allowsZero: Bool = false) throws {
        let inRange = value.isFinite && value <= maximum && (allowsZero ? value >= 0 : value > 0)
        guard inRange else {
            let lower = allowsZero ? "zero or a positive number" : "a positive number"
            throw ValidationError("\(option) must be \(lower) of seconds, at most \(Int(maximum)) (a year).")
        }
    }

    /// `value` seconds, to the millisecond. Call after ``validate(_:option:allowsZero:)``.
    static func duration(_ value: Double) -> Duration {
        .milliseconds(Int64((value * 1000).rounded()))
    }
}
