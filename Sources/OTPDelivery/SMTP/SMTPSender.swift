import CCurl
import Foundation
import OTPCore
import OTPEngine

/// Sends email codes through an SMTP server with libcurl: plain, STARTTLS or TLS.
public struct SMTPSender: CodeSender {
    /// The server, account and sender address.
    public let configuration: SMTPConfiguration
    private let now: @Sendable () -> Date

    /// Creates a sender; `now` stamps the `Date` header.
    public init(configuration: SMTPConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
    }

    /// Delivers one email, or throws when the server refused it or could not be reached.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        guard message.channel == .email else {
            throw DeliveryError("the SMTP sender delivers email only")
        }
        let domain = configuration.from.split(separator: "@").last.map(String.init) ?? "localhost"
        let stamp = Int(now().timeIntervalSince1970 * 1000)
        let mail = try MailComposer.compose(
            from: configuration.from, fromName: configuration.fromName, to: message.to,
            subject: message.subject, text: message.text, html: message.html, date: now(),
            messageID: "\(message.verificationID).\(stamp)@\(domain)")
        let configuration = self.configuration
        let recipient = "<\(message.to)>"
        _ = try await CurlTransfer.run("SMTP delivery") { (handle: inout CurlHandle) throws(DeliveryError) in
            try handle.set(CURLOPT_URL, configuration.curlURL)
            if configuration.security == .startTLS {
                try handle.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue))
            }
            if let caFile = configuration.caFile {
                try handle.set(CURLOPT_CAINFO, caFile)
            }
            if let username = configuration.username {
                try handle.set(CURLOPT_USERNAME, username)
                try handle.set(CURLOPT_PASSWORD, configuration.password ?? "")
            }
            try handle.set(CURLOPT_TIMEOUT_MS, configuration.timeout.wholeMilliseconds)
            try handle.set(CURLOPT_MAIL_FROM, "<\(configuration.from)>")
            try handle.set(CURLOPT_MAIL_RCPT, list: [recipient])
            try handle.upload(mail)
        }
    }
}
