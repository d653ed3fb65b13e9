import Foundation
import OTPCore
import OTPEngine

/// Posts lifecycle events to the operator's endpoint, signed like the delivery webhook with the
/// purpose `event`.
///
/// The body is `{"id", "type", "verificationId", "channel", "to", "at"}`: `type` is the event's
/// kind (`pending`, `approved`, `canceled`, `expired`, `max_attempts_reached`), `to` the masked
/// destination; never the code or the full destination. `id` is stable across retries, so the
/// receiver deduplicates by it. Any 2xx answer is a delivery; anything else, or no answer within
/// the timeout, throws, and the deliverer tries again later.
public struct EventWebhook: Sendable {
    /// The endpoint.
    public var url: String { endpoint.url }
    private let endpoint: SignedEndpoint

    /// Creates the webhook; `secret` signs every body.
    ///
    /// The URL must be https, or http to loopback.
    public init(
        url: String, secret: [UInt8], timeout: Duration = .seconds(5),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(DeliveryError) {
        endpoint = try SignedEndpoint(
            url: url, secret: secret, timeout: timeout, now: now, kind: "an event webhook",
            what: "event webhook", purpose: .event)
    }

    /// The JSON object posted for an event.
    struct Payload: Encodable {
        var id: String
        var type: String
        var verificationId: String
        var channel: Channel
        var to: String
        var at: Date
    }

    /// The body posted for `event`.
    public static func body(of event: LifecycleEvent) throws(DeliveryError) -> [UInt8] {
        let payload = Payload(
            id: event.id, type: event.kind.rawValue, verificationId: event.verificationID,
            channel: event.channel,
            to: event.to, at: event.at)
        do {
            return Array(try WireCoding.encoder().encode(payload))
        } catch {
            throw DeliveryError("the event could not be encoded")
        }
    }

    /// Posts one event; throws unless the endpoint answered 2xx.
    public func deliver(_ event: LifecycleEvent) async throws(DeliveryError) {
        let response = try await endpoint.post(try Self.body(of: event), signedAt: endpoint.now())
        guard (200..<300).contains(response.code) else {
            throw DeliveryError(
                "event webhook: the endpoint answered \(response.code)", status: response.code)
        }
    }
}
