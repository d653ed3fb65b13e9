import CCurl
import Foundation
import OTPServer

/// One signed JSON POST to an operator's endpoint: how the delivery webhook, the start guard and
/// the event webhook all call out.
///
/// The `X-OTP-Signature` header is ``WebhookSender/signature(body:secret:timestamp:)`` of the body
/// at `at`, so one receiver-side check (``WebhookSender/verify(header:body:secret:now:tolerance:)``)
/// serves every kind of request.
enum SignedPost {
    /// Posts `body` and returns the endpoint's status and the start of its body; throws when the
    /// endpoint could not be reached in `timeout` (`what` names the request in the error).
    static func send(
        _ body: [UInt8], to url: String, secret: [UInt8], at date: Date, timeout: Duration, what: String
    ) async throws(DeliveryError) -> CurlResponse {
        let signature = try WebhookSender.signature(
            body: body, secret: secret, timestamp: Int64(date.timeIntervalSince1970.rounded(.down)))
        let text = String(decoding: body, as: UTF8.self)
        return try await CurlTransfer.run(what) { (handle: inout CurlHandle) throws(DeliveryError) in
            try handle.set(CURLOPT_URL, url)
            try handle.set(CURLOPT_TIMEOUT_MS, timeout.wholeMilliseconds)
            try handle.set(CURLOPT_POSTFIELDSIZE, body.count)
            try handle.set(CURLOPT_COPYPOSTFIELDS, text)
            try handle.set(
                CURLOPT_HTTPHEADER,
                list: ["Content-Type: application/json", "X-OTP-Signature: \(signature)", "Expect:"])
        }
    }
}
