import Foundation
import OTPCore
import OTPDelivery
import OTPServer

/// Why a server could not be put together or started; `otp serve` prints it and exits.
public struct ServerStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}

/// Builds the engine's parts from a configuration.
enum ServerAssembly {
    /// The senders by channel; later senders win a channel.
    static func router(
        for senders: [ServerConfiguration.Sender], configuration: ServerConfiguration
    )
        throws(ServerStartError) -> ChannelRouter
    {
        var routes: [Channel: any CodeSender] = [:]
        for choice in senders {
            let (sender, channels) = try make(choice, configuration: configuration)
            for channel in channels { routes[channel] = sender }
        }
        guard !routes.isEmpty else { throw ServerStartError("at least one sender is needed") }
        return ChannelRouter(routes: routes)
    }

    private static func make(
        _ choice: ServerConfiguration.Sender, configuration: ServerConfiguration
    )
        throws(ServerStartError) -> (any CodeSender, [Channel])
    {
        let environment = configuration.environment
        do throws(DeliveryError) {
            switch choice {
            case .console:
                return (ConsoleSender(), [.sms, .email])
            case .outbox(let path):
                return (OutboxSender(path: path), [.sms, .email])
            case .smtp(let url):
                let smtp = try SMTPConfiguration(
                    url: url, environment: environment, domain: configuration.policy.domain,
                    fromName: configuration.policy.appName)
                return (SMTPSender(configuration: smtp), [.email])
            case .webhook(let url):
                guard let secret = environment["OTP_WEBHOOK_SECRET"], !secret.isEmpty else {
                    throw DeliveryError("the webhook sender needs OTP_WEBHOOK_SECRET to sign its requests")
                }
                return (try WebhookSender(url: url, secret: Array(secret.utf8)), [.sms, .email])
            case .twilio:
                return (
                    TwilioSender(configuration: try TwilioConfiguration(environment: environment)), [.sms]
                )
            }
        } catch {
            throw ServerStartError(error.reason)
        }
    }

    /// The HMAC key: from the secret file (created when absent), next to a SQLite store, or fresh.
    static func secret(for configuration: ServerConfiguration) throws(ServerStartError) -> [UInt8] {
        var path = configuration.secretFile
        if path == nil {
            switch configuration.store {
            case .memory:
                var generator = SystemRandomNumberGenerator()
                return (0..<SecretKey.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
            case .sqlite(let database):
                path = database + ".secret"
            case .redis:
                throw ServerStartError(
                    "a Redis store is shared: give every server the same --secret-file (OTP_SECRET_FILE)")
            }
        }
        guard let path else { throw ServerStartError("no secret file") }
        do {
            return try SecretKey.loadOrCreate(path: path)
        } catch {
            throw ServerStartError("cannot use the secret file \(path): \(error)")
        }
    }
}
