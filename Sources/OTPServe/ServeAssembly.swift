import Foundation
import OTPCore
import OTPDelivery
import OTPHTTP
import OTPServer

/// Turns ``ServeSettings`` into the values a server runs on (a store, senders by channel, the
/// HMAC key) and starts it: the one place `otp serve`'s text-level choices become objects.
public enum ServeAssembly {
    /// Builds the parts and starts the server; the store is shut down again if anything fails.
    public static func start(_ settings: ServeSettings) async throws(ServerStartError) -> RunningServer {
        let senders = try senders(for: settings)
        let secret = try secret(for: settings)
        let store = try settings.store.open()
        return try await OTPServerApp.start(settings.server, store: store, senders: senders, secret: secret)
    }

    /// The sender of each channel; later senders win a channel.
    public static func senders(
        for settings: ServeSettings
    ) throws(ServerStartError) -> [Channel: any CodeSender] {
        var routes: [Channel: any CodeSender] = [:]
        for choice in settings.senders {
            let (sender, channels) = try make(choice, settings: settings)
            for channel in channels { routes[channel] = sender }
        }
        guard !routes.isEmpty else { throw ServerStartError("at least one sender is needed") }
        return routes
    }

    private static func make(
        _ choice: SenderSpec, settings: ServeSettings
    ) throws(ServerStartError) -> (any CodeSender, [Channel]) {
        let environment = settings.environment
        let policy = settings.server.policy
        do throws(DeliveryError) {
            switch choice {
            case .console:
                return (ConsoleSender(), [.sms, .email])
            case .outbox(let path):
                return (OutboxSender(path: path), [.sms, .email])
            case .smtp(let url):
                let smtp = try SMTPConfiguration(
                    url: url, environment: environment, domain: policy.domain, fromName: policy.appName)
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
    public static func secret(for settings: ServeSettings) throws(ServerStartError) -> [UInt8] {
        var path = settings.secretFile
        if path == nil {
            switch settings.store {
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
