import CCurl
import Foundation
import OTPEngine

/// An operator's endpoint that receives signed JSON POSTs: how the delivery webhook, the start
/// guard and the event webhook all call out.
///
/// The URL must be https, or http to loopback, and the secret not empty; both are checked once,
/// here. The `X-OTP-Signature` header is ``WebhookSender/signature(body:secret:purpose:timestamp:)``
/// of the body for the endpoint's purpose, so one receiver-side check
/// (``WebhookSender/verify(header:body:secret:purpose:now:tolerance:)``) serves every kind of request,
/// and none is accepted as another kind. Each purpose has its own pool of transfers, so a slow
/// start guard or event endpoint never holds back a code's delivery.
struct SignedEndpoint: Sendable {
    let url: String
    private let secret: [UInt8]
    private let timeout: Duration
    private let what: String
    private let purpose: WebhookSender.SignaturePurpose
    /// The clock that stamps each signature (and the bodies that carry a time).
    let now: @Sendable () -> Date

    /// Checks the URL and the secret; `kind` names the endpoint in errors, such as "a start guard".
    init(
        url: String, secret: [UInt8], timeout: Duration, now: @escaping @Sendable () -> Date, kind: String,
        what: String, purpose: WebhookSender.SignaturePurpose
    ) throws(DeliveryError) {
        self.purpose = purpose
        self.url = try ProviderURL.secure(url, what: "\(kind) URL")
        guard !secret.isEmpty else { throw DeliveryError("\(kind) needs a signing secret") }
        self.secret = secret
        self.timeout = timeout
        self.now = now
        self.what = what
    }

    /// Posts `body`, signed at `date`, and returns the endpoint's status and the start of its body;
    /// throws when the endpoint could not be reached within the timeout.
    func post(_ body: [UInt8], signedAt date: Date) async throws(DeliveryError) -> CurlResponse {
        let signature = try WebhookSender.signature(
            body: body, secret: secret, purpose: purpose,
            timestamp: Int64(date.timeIntervalSince1970.rounded(.down)))
        let text = String(decoding: body, as: UTF8.self)
        let url = self.url
        let timeout = self.timeout
        let pool: CurlTransfer.Pool =
            switch purpose {
            case .delivery: .delivery
            case .guard: .startGuard
            case .event: .events
            }
        return try await CurlTransfer.run(what, pool: pool) {
            (handle: inout CurlHandle) throws(DeliveryError) in
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
