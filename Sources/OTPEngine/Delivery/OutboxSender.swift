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

    /// Creates a sender that appends to the file at `path`.
    public init(path: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.now = now
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
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw DeliveryError("could not open the outbox file (errno \(errno))") }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw DeliveryError("could not write the outbox file (errno \(errno))")
        }
    }

    /// Reads every entry of an outbox file, oldest first.
    public static func entries(path: String) throws -> [Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoder = WireCoding.decoder()
        return try data.split(separator: 0x0A).map { try decoder.decode(Entry.self, from: Data($0)) }
    }
}
