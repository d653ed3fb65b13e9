import Foundation
import OTPCore
import OTPEngine

/// The operator's start guard over HTTP: each start is POSTed as JSON, signed like the delivery
/// webhook with the purpose `guard` (`X-OTP-Signature: t=…,p=guard,v1=…`), and the endpoint answers `{"allow": true}` to send or
/// `{"allow": false, "reason": "…"}` to refuse.
///
/// No answer within the timeout, a status other than 200, or a body that is not one of those two
/// is ``StartGuardVerdict/unavailable(_:)``.
public struct WebhookStartGuard: StartGuard {
    /// The endpoint.
    public var url: String { endpoint.url }
    private let endpoint: SignedEndpoint

    /// Creates a guard; `secret` signs every body.
    ///
    /// The URL must be https, or http to loopback.
    public init(
        url: String, secret: [UInt8], timeout: Duration = .seconds(2),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(DeliveryError) {
        endpoint = try SignedEndpoint(
            url: url, secret: secret, timeout: timeout, now: now, kind: "a start guard", what: "start guard",
            purpose: .guard)
    }

    private struct Answer: Decodable {
        var allow: Bool
        var reason: String?
    }

    /// Posts the start and reads the endpoint's verdict.
    public func judge(_ start: GuardedStart) async -> StartGuardVerdict {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let body = try? Array(encoder.encode(start)) else {
            return .unavailable("the start could not be encoded")
        }
        do throws(DeliveryError) {
            let response = try await endpoint.post(body, signedAt: endpoint.now())
            guard response.code == 200,
                let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body.utf8))
            else { return .unavailable("the start guard answered \(response.code) without a verdict") }
            return answer.allow ? .allow : .refuse(reason: answer.reason ?? "")
        } catch {
            return .unavailable(error.reason)
        }
    }
}
