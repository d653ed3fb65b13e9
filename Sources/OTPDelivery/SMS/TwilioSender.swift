import CCurl
import Foundation
import OTPCore
import OTPEngine

/// Sends SMS codes through a Twilio-compatible Messages API: a form POST with basic auth.
public struct TwilioSender: CodeSender {
    /// The account, sender and base URL.
    public let configuration: TwilioConfiguration

    /// Creates a sender.
    public init(configuration: TwilioConfiguration) {
        self.configuration = configuration
    }

    /// Delivers one SMS, or throws when the provider refused it or could not be reached.
    ///
    /// One request, no retries: a failure is reported at once and the caller decides.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        _ = try await sendWithReceipt(message)
    }

    /// Delivers one SMS as ``send(_:)`` does and answers the message's SID from the provider's answer.
    public func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
        guard message.channel == .sms else {
            throw DeliveryError("the twilio sender delivers SMS only")
        }
        var fields = [("To", message.to), ("Body", message.text)]
        if let service = configuration.messagingServiceSID {
            fields.append(("MessagingServiceSid", service))
        } else if let from = configuration.from {
            fields.append(("From", from))
        }
        let body = FormEncoding.body(fields)
        let configuration = self.configuration
        let response = try await CurlTransfer.run("SMS delivery") {
            (handle: inout CurlHandle) throws(DeliveryError) in
            try handle.set(CURLOPT_URL, configuration.messagesURL)
            try handle.set(CURLOPT_HTTPAUTH, 1)  // CURLAUTH_BASIC
            try handle.set(CURLOPT_USERNAME, configuration.accountSID)
            try handle.set(CURLOPT_PASSWORD, configuration.authToken)
            try handle.set(CURLOPT_TIMEOUT_MS, configuration.timeout.wholeMilliseconds)
            try handle.set(CURLOPT_POSTFIELDSIZE, body.utf8.count)
            try handle.set(CURLOPT_COPYPOSTFIELDS, body)
            try handle.set(CURLOPT_HTTPHEADER, list: ["Accept: application/json", "Expect:"])
        }
        guard (200..<300).contains(response.code) else {
            let code = Self.errorCode(in: response.body)
            throw DeliveryError(
                "SMS delivery: the provider answered \(response.code)"
                    + (code.map { " (error \($0))" } ?? ""),
                status: response.code, providerCode: code)
        }
        return DeliveryReceipt(messageID: ProviderReceipt.messageID(in: response.body, field: "sid"))
    }

    /// The provider's numeric error code in an error answer (`{"code": 21211, …}`), or `nil`.
    ///
    /// Only the number is kept: the answer's `message` can quote the destination.
    static func errorCode(in body: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let code = object["code"] as? Int
        else { return nil }
        return String(code)
    }
}
