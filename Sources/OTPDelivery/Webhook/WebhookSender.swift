import Foundation
import OTPCore
import OTPEngine

/// Hands each message to an HTTP endpoint of your own: one signed JSON POST, no retries.
///
/// The body is `{"verificationId", "channel", "to", "subject", "text", "html", "sentAt"}` and the
/// `X-OTP-Signature` header is `t=<unix seconds>,p=delivery,v1=<hex HMAC-SHA256 of
/// "<t>.delivery.<body>">` under the shared secret (the secret's UTF-8 bytes are the HMAC key), so
/// the receiver can tell the request came from this server, is fresh, and is a delivery. A receiver
/// checks it with ``verify(header:body:secret:purpose:now:tolerance:)``, which refuses a signature
/// more than five minutes from its own clock (a captured request cannot be replayed later) and one
/// made for another purpose (a start guard's or an event's request cannot be replayed as a
/// delivery, even under the same secret).
public struct WebhookSender: CodeSender {
    /// The endpoint's URL.
    public var url: String { endpoint.url }
    private let endpoint: SignedEndpoint

    /// Creates a sender; `secret` signs every body; `now` stamps `sentAt`.
    public init(
        url: String, secret: [UInt8], timeout: Duration = .seconds(5),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(DeliveryError) {
        endpoint = try SignedEndpoint(
            url: url, secret: secret, timeout: timeout, now: now, kind: "a webhook", what: "webhook delivery",
            purpose: .delivery)
    }

    /// The JSON object posted for a message.
    struct Payload: Encodable {
        var verificationId: String
        var channel: Channel
        var to: String
        var subject: String
        var text: String
        var html: String?
        var sentAt: Date
    }

    /// What a signature was made for; it is signed with the body, so a request cannot be replayed
    /// to an endpoint of another kind that shares the secret.
    public enum SignaturePurpose: String, Sendable, CaseIterable {
        /// A code handed to the delivery webhook.
        case delivery
        /// A start put to the start guard.
        case `guard`
        /// A lifecycle event posted to the event webhook.
        case event
    }

    /// How far a signature's time may be from the receiver's clock: five minutes.
    public static let replayWindow: Duration = .seconds(300)

    /// The `X-OTP-Signature` value for a body sent at `timestamp` (Unix seconds) for `purpose`:
    /// `t=<timestamp>,p=<purpose>,v1=<hex HMAC-SHA256 of "<timestamp>.<purpose>.<body>">`.
    public static func signature(
        body: [UInt8], secret: [UInt8], purpose: SignaturePurpose, timestamp: Int64
    ) throws(DeliveryError) -> String {
        guard
            let mac = HMACSHA256.authenticationCode(
                key: secret, message: Array("\(timestamp).\(purpose.rawValue).".utf8) + body)
        else {
            throw DeliveryError("the webhook body could not be signed")
        }
        return "t=\(timestamp),p=\(purpose.rawValue),v1=" + Hex.encode(mac)
    }

    /// Whether an `X-OTP-Signature` header signs `body` under `secret` at a time within `tolerance`
    /// of `now`; the comparison takes the same time whatever the header holds.
    public static func verify(
        header: String, body: [UInt8], secret: [UInt8], purpose: SignaturePurpose, now: Date,
        tolerance: Duration = replayWindow
    ) -> Bool {
        var timestamp: Int64?
        var presented: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { timestamp = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { presented = String(part.dropFirst(3)) }
        }
        guard let timestamp, let presented, isFresh(timestamp, now: now, tolerance: tolerance),
            let expected = try? signature(body: body, secret: secret, purpose: purpose, timestamp: timestamp)
        else { return false }
        return HMACSHA256.constantTimeEqual(
            Array(expected.utf8), Array("t=\(timestamp),p=\(purpose.rawValue),v1=\(presented)".utf8))
    }

    /// Whether a signature's time is within `tolerance` of `now`, for any `timestamp` at all: the
    /// difference is taken without overflow, so `t=-9223372036854775808` is simply stale.
    static func isFresh(_ timestamp: Int64, now: Date, tolerance: Duration) -> Bool {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 9e18 else { return false }
        let (difference, overflow) = Int64(seconds).subtractingReportingOverflow(timestamp)
        guard !overflow else { return false }
        return difference.magnitude <= UInt64(max(0, tolerance.components.seconds))
    }

    /// Posts one message, or throws when the endpoint answered other than 2xx or could not be reached.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        _ = try await sendWithReceipt(message)
    }

    /// Posts one message as ``send(_:)`` does and answers the `messageId` string of the endpoint's
    /// JSON answer, when it has one.
    public func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
        let sentAt = endpoint.now()
        let payload = Payload(
            verificationId: message.verificationID, channel: message.channel, to: message.to,
            subject: message.subject, text: message.text, html: message.html, sentAt: sentAt)
        let body: [UInt8]
        do {
            body = Array(try WireCoding.encoder().encode(payload))
        } catch {
            throw DeliveryError("the webhook body could not be encoded")
        }
        let response = try await endpoint.post(body, signedAt: sentAt)
        guard (200..<300).contains(response.code) else {
            throw DeliveryError(
                "webhook delivery: the endpoint answered \(response.code)", status: response.code)
        }
        return DeliveryReceipt(messageID: ProviderReceipt.messageID(in: response.body, field: "messageId"))
    }
}
