import Foundation
import FuzzHarness
import WebAuthCore
import WebAuthDesktop

#if canImport(Glibc)
    import Glibc
#endif

/// What `webauth-scheme-handler` (or anyone who can reach the socket) sends to a session
/// waiting for a custom scheme: a line read from the socket, then checked as a URL for the
/// callback.
///
/// Input: the bytes the peer sends before closing. Checks: an accepted URL is absolute, has no
/// control characters or spaces, and is within the size limit.
@main
enum FuzzSchemeSocket {
    static let callback = Callback.customScheme("com.example.app")

    static func main() {
        FuzzHarness.run { bytes in
            var descriptors: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else {
                fatalError("no socket pair")
            }
            defer { close(descriptors[0]) }
            // The whole input fits the socket's buffer: fuzz inputs are far smaller than it.
            let written = bytes.withUnsafeBytes { send(descriptors[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(descriptors[1])
            guard written == bytes.count else { return }

            let line: [UInt8]
            switch UnixSocket.readLine(
                descriptors[0], limit: CallbackSocketProtocol.maximumURLLength, deadline: .now + .seconds(1))
            {
            case .line(let received), .endOfInput(let received): line = received
            case .tooLong, .timedOut, .failed: return
            }
            guard case .success(let url) = CallbackSocketProtocol.parseURL(line) else { return }
            FuzzHarness.require(url.scheme?.isEmpty == false, "an accepted URL without a scheme")
            FuzzHarness.require(
                line.count <= CallbackSocketProtocol.maximumURLLength && !line.contains { $0 <= 0x20 || $0 == 0x7F },
                "an accepted URL with spaces, control characters or too long")
            _ = callback.matchesURL(url)
        }
    }
}
