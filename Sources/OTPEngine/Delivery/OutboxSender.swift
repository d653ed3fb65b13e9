import Foundation
import OTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends each message to a file as one JSON object per line: the stand-in for a phone in tests and demos.
///
/// Each line is `{"verificationId", "channel", "to", "body", "sentAt"}` with the full
/// destination. The file is created with mode 0600, since it holds codes; each line is
/// written with one `write` to a file opened for appending, so lines never interleave.
///
/// The file is opened at the first line and kept open while the path names it: a file deleted,
/// or renamed away and replaced (a log rotation), is let go at the next line, which goes to the
/// file at the path, created if need be.
public struct OutboxSender: ImmediateCodeSender {
    /// One line of the outbox.
    public struct Entry: Codable, Sendable, Equatable {
        /// The verification the code belongs to.
        public var verificationId: String
        /// `sms` or `email`.
        public var channel: Channel
        /// The full destination.
        public var to: String
        /// The plain-text body.
        public var body: String
        /// When the message was written.
        public var sentAt: Date

        /// Creates an entry.
        public init(verificationId: String, channel: Channel, to: String, body: String, sentAt: Date) {
            self.verificationId = verificationId
            self.channel = channel
            self.to = to
            self.body = body
            self.sentAt = sentAt
        }

        /// The entry as `WireCoding.encoder()` writes it (sorted keys), built straight to bytes.
        public var json: [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(160 + body.utf8.count)
            out.append(contentsOf: #"{"body":"#.utf8)
            WireJSON.string(body, into: &out)
            out.append(contentsOf: #","channel":"#.utf8)
            WireJSON.string(channel.rawValue, into: &out)
            out.append(contentsOf: #","sentAt":""#.utf8)
            WireJSON.timestamp(sentAt, into: &out)
            out.append(contentsOf: #"","to":"#.utf8)
            WireJSON.string(to, into: &out)
            out.append(contentsOf: #","verificationId":"#.utf8)
            WireJSON.string(verificationId, into: &out)
            out.append(UInt8(ascii: "}"))
            return out
        }
    }

    /// The outbox file.
    public let path: String
    private let now: @Sendable () -> Date
    private let file: AppendedFile

    /// Creates a sender that appends to the file at `path`.
    public init(path: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.now = now
        file = AppendedFile(path: path)
    }

    /// Appends the message as one line.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        try sendImmediately(message)
    }

    /// Every channel goes out on the caller's thread: the outbox is a local file.
    public func sendsImmediately(_ channel: Channel) -> Bool { true }

    /// Appends the message as one line, on the caller's thread.
    public func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
        let entry = Entry(
            verificationId: message.verificationID, channel: message.channel, to: message.to,
            body: message.text,
            sentAt: now())
        var line = entry.json
        line.append(0x0A)
        try file.append(line)
    }

    /// Reads every entry of an outbox file, oldest first.
    public static func entries(path: String) throws -> [Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoder = WireCoding.decoder()
        return try data.split(separator: 0x0A).map { try decoder.decode(Entry.self, from: Data($0)) }
    }
}

/// The outbox's file, opened once and shared by every copy of its sender.
private final class AppendedFile: Sendable {
    let path: String
    // The open descriptor and the file it is (device and inode), or -1 before the first line and
    // after a failed open. Held while a line is written, so a reopen never closes a descriptor
    // another thread is writing to.
    private let descriptor = Locked(Held())

    private struct Held {
        var descriptor: Int32 = -1
        var device: UInt64 = 0
        var inode: UInt64 = 0

        init() {}

        init(descriptor: Int32, status: stat) {
            self.descriptor = descriptor
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }

        /// Whether `status` is of the held file.
        func names(_ status: stat) -> Bool {
            UInt64(truncatingIfNeeded: status.st_dev) == device
                && UInt64(truncatingIfNeeded: status.st_ino) == inode
        }
    }

    init(path: String) {
        self.path = path
    }

    deinit {
        descriptor.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// Writes `line` with one `write`, opening the file first if it is not open or the path no
    /// longer names the open one.
    func append(_ line: [UInt8]) throws(DeliveryError) {
        try descriptor.withLock { (held: inout Held) throws(DeliveryError) in
            var status = stat()
            if held.descriptor >= 0 {
                // Deleted, or renamed away: lines written to it would not be where they are looked
                // for. A path that cannot be looked at for another reason keeps the open file.
                let found = stat(path, &status) == 0
                let gone = found ? !held.names(status) : errno == ENOENT
                if gone {
                    close(held.descriptor)
                    held.descriptor = -1
                }
            }
            if held.descriptor < 0 {
                let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
                guard opened >= 0 else {
                    throw DeliveryError("could not open the outbox file (\(Self.reason(errno)))")
                }
                guard fstat(opened, &status) == 0 else {
                    let reason = Self.reason(errno)
                    close(opened)
                    throw DeliveryError("could not read the outbox file's status (\(reason))")
                }
                held = Held(descriptor: opened, status: status)
            }
            let descriptor = held.descriptor
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == line.count else {
                let reason = written < 0 ? Self.reason(errno) : "\(written) of \(line.count) bytes written"
                throw DeliveryError("could not write the outbox file (\(reason))")
            }
        }
    }

    private static func reason(_ code: Int32) -> String {
        "errno \(code): \(String(cString: strerror(code)))"
    }
}
