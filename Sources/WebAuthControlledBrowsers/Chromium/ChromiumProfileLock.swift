import Foundation
import WebAuthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps two sign-ins off one shared Chromium profile.
///
/// Chromium allows one browser per profile: a second one started on it hands its URL to the first
/// and exits, which would leave a session waiting on a browser it does not control. So a shared
/// profile is taken with an advisory lock (`flock` on `webauth-session.lock`, held until the
/// session ends and released by the kernel if the process dies), and a Chromium already running
/// on it — Chromium's own `SingletonLock` naming a live process — is refused too.
final class ChromiumProfileLock: Sendable {
    /// The lock file's name inside the profile.
    static let fileName = "webauth-session.lock"

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes `profile`, or explains why it is in use.
    static func acquire(profile: URL) throws(WebAuthenticationSessionError) -> ChromiumProfileLock {
        let path = profile.appendingPathComponent(fileName).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .browserLaunchFailed("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw inUse(by: "another sign-in")
        }
        if let owner = runningBrowser(profile: profile) {
            flock(descriptor, LOCK_UN)
            close(descriptor)
            throw inUse(by: owner)
        }
        return ChromiumProfileLock(descriptor: descriptor)
    }

    /// Lets the next session have the profile.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func inUse(by owner: String) -> WebAuthenticationSessionError {
        .browserLaunchFailed(
            "the shared browser profile is in use by \(owner); finish or cancel that sign-in first, "
                + "or use an ephemeral session")
    }

    /// A description of the Chromium that holds `profile` (its `SingletonLock` names a live
    /// process of this host, or another host), or `nil` when none does.
    static func runningBrowser(profile: URL) -> String? {
        let link = profile.appendingPathComponent("SingletonLock").path
        var buffer = [CChar](repeating: 0, count: 512)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Chromium writes `<hostname>-<pid>`; the host name may itself contain `-`.
        guard let dash = target.lastIndex(of: "-"), let pid = pid_t(target[target.index(after: dash)...]), pid > 0
        else { return nil }
        let host = String(target[..<dash])
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let ownHost = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard host == ownHost else { return "a Chromium on host \(host)" }
        guard kill(pid, 0) == 0 || errno == EPERM else { return nil }  // stale: Chromium takes it over
        return "another Chromium (process \(pid))"
    }
}
