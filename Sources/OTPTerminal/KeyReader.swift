import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads key events from standard input on a thread of its own.
public enum KeyReader {
    /// The key events of standard input, until it ends.
    public static func events() -> AsyncStream<KeyEvent> {
        AsyncStream { continuation in
            let thread = Thread {
                var parser = KeyParser()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 {
                        continuation.yield(.endOfInput)
                        continuation.finish()
                        return
                    }
                    var events = parser.feed(Array(buffer[..<count]))
                    if count == 1, buffer[0] == 0x1B { events += parser.flush() }
                    for event in events { continuation.yield(event) }
                }
            }
            thread.start()
        }
    }
}
