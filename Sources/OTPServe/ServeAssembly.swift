import Foundation
import OTPCore
import OTPDelivery
import OTPEngine
import OTPHTTP
import OTPPhoneNumbers
import OTPTokens

/// Turns ``ServeSettings`` into the values a server runs on (a store, senders by channel, the
/// HMAC key) and starts it: the one place `otp serve`'s text-level choices become objects.
public enum ServeAssembly {
    /// The server's phone number parser, which the console sender masks with too.
    static let phoneNumbers = LibPhoneNumberParser()

    /// Builds the parts and starts the server; the store is shut down again if anything fails.
    public static func start(_ settings: ServeSettings) async throws(ServerStartError) -> RunningServer {
        let senders = try senders(for: settings)
        let secret = try secret(for: settings)
        var server = settings.server
        // Every phone number the server sees is read by libphonenumber: validity, region and type.
        server.phoneNumbers = phoneNumbers
        if settings.hosted != nil || !server.publishableKeys.isEmpty {
            let publicURL = settings.hosted?.publicURL
            server.approvalTokens = SignedApprovalTokens(
                signer: ApprovalTokenSigner(keys: try signingKeys(for: settings)),
                issuer: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
                    ?? Self.defaultIssuer)
        }
        if let guardSpec = settings.startGuard {
            guard let secret = settings.environment["OTP_START_GUARD_SECRET"], !secret.isEmpty else {
                throw ServerStartError("the start guard needs OTP_START_GUARD_SECRET to sign its requests")
            }
            do throws(DeliveryError) {
                server.startGuard = StartGuardSettings(
                    guardian: try WebhookStartGuard(url: guardSpec.url, secret: Array(secret.utf8)),
                    failOpen: guardSpec.failOpen, appliesToSecretKeys: guardSpec.appliesToSecretKeys)
            } catch {
                throw ServerStartError(error.reason)
            }
        }
        if let hosted = settings.hosted, let issuer = server.approvalTokens {
            server.hosted = HostedPages(
                publicURL: hosted.publicURL, returnOrigins: hosted.returnOrigins, issuer: issuer)
            // Codes of hosted verifications are bound to the page's origin (`@host #code`), so WebOTP
            // offers them there; an explicit --domain stays.
            if server.policy.domain == nil, let host = URL(string: hosted.publicURL)?.host {
                server.policy.domain = host
            }
        }
        if let url = settings.eventsURL {
            guard let secret = settings.environment["OTP_EVENTS_SECRET"], !secret.isEmpty else {
                throw ServerStartError("the event webhook needs OTP_EVENTS_SECRET to sign its requests")
            }
            do throws(DeliveryError) {
                let webhook = try EventWebhook(
                    url: url, secret: Array(secret.utf8), timeout: settings.eventDelivery.timeout,
                    now: server.now)
                let log = server.requestLog
                server.events = EventsConfiguration(settings: settings.eventDelivery) { event in
                    let fields = [
                        ("event", event.kind.rawValue), ("eventId", event.id),
                        ("verification", event.verificationID),
                    ]
                    do throws(DeliveryError) {
                        try await webhook.deliver(event)
                        log.log(.debug, "an event was delivered", fields: fields)
                        return true
                    } catch {
                        log.log(
                            .warning, "an event delivery attempt failed (tried again until its give-up age)",
                            fields: fields + (error.status.map { [("status", String($0))] } ?? [])
                                + [("error", error.reason)])
                        return false
                    }
                }
            } catch {
                throw ServerStartError(error.reason)
            }
        }
        // Events mask a number in libphonenumber's grouping, as the API's answers do.
        let store = try await settings.store.open(
            recordsEvents: server.events != nil,
            eventMasking: DestinationMasking(phoneNumbers: server.phoneNumbers),
            pendingMigrations: settings.migrate ? .apply : .refuse,
            waitReplicas: settings.redisWaitReplicas, report: settings.storeReport)
        do throws(ServerStartError) {
            try await StoreSpec.checkFactorPersistence(
                of: store, allowVolatile: settings.allowVolatileFactors,
                warn: settings.storeReport ?? { _ in })
        } catch {
            await store.shutdown()
            throw error
        }
        return try await OTPServerApp.start(server, store: store, senders: senders, secret: secret)
    }

    /// The sender of each channel; a channel two senders claim is refused (``SenderSpec/routes(_:)``).
    public static func senders(
        for settings: ServeSettings
    ) throws(ServerStartError) -> [Channel: any CodeSender] {
        var routes: [Channel: any CodeSender] = [:]
        var made: [SenderSpec: any CodeSender] = [:]
        for (channel, choice) in try SenderSpec.routes(settings.senders).sorted(by: {
            $0.key.rawValue < $1.key.rawValue
        }) {
            // A sender serving both channels is made once.
            let sender: any CodeSender
            if let existing = made[choice] {
                sender = existing
            } else {
                sender = try make(choice, settings: settings)
                made[choice] = sender
            }
            routes[channel] = sender
        }
        guard !routes.isEmpty else { throw ServerStartError("at least one sender is needed") }
        return routes
    }

    private static func make(
        _ choice: SenderSpec, settings: ServeSettings
    ) throws(ServerStartError) -> any CodeSender {
        let environment = settings.environment
        let policy = settings.server.policy
        do throws(DeliveryError) {
            switch choice.base {
            case .console:
                return ConsoleSender(masking: DestinationMasking(phoneNumbers: phoneNumbers))
            case .outbox(let path):
                return OutboxSender(path: path)
            case .smtp(let url):
                let smtp = try SMTPConfiguration(
                    url: url, environment: environment, domain: policy.domain ?? settings.hostedDomain,
                    fromName: policy.appName, from: settings.mailFrom)
                return SMTPSender(configuration: smtp)
            case .webhook(let url):
                guard let secret = environment["OTP_WEBHOOK_SECRET"], !secret.isEmpty else {
                    throw DeliveryError("the webhook sender needs OTP_WEBHOOK_SECRET to sign its requests")
                }
                return try WebhookSender(url: url, secret: Array(secret.utf8))
            case .twilio:
                return TwilioSender(configuration: try TwilioConfiguration(environment: environment))
            case .only:
                // `base` never is one.
                throw DeliveryError("a sender for one channel names the sender itself")
            }
        } catch {
            throw ServerStartError(error.reason)
        }
    }

    /// The keys that sign approval tokens: from the given files (created when absent), else one file
    /// beside a SQLite store, else (memory store) a key in memory.
    public static func signingKeys(
        for settings: ServeSettings
    ) throws(ServerStartError) -> [Ed25519SigningKey] {
        var paths = settings.signingKeyFiles + (settings.hosted?.signingKeyFiles ?? [])
        if paths.isEmpty {
            switch settings.store {
            case .memory:
                var generator = SystemRandomNumberGenerator()
                let seed = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                do throws(TokenKeyError) {
                    return [try Ed25519SigningKey(seed: seed)]
                } catch {
                    throw ServerStartError("cannot make a signing key: \(error)")
                }
            case .sqlite(let database):
                paths = [database + ".signing-key"]
            case .redis, .redisSentinel, .postgres:
                throw ServerStartError(
                    "a \(settings.store.sharedName) store is shared: give every server the same "
                        + "--signing-key-file for approval tokens")
            }
        }
        var keys: [Ed25519SigningKey] = []
        for path in paths {
            do {
                let seed = try SecretKey.loadOrCreate(path: path)
                guard seed.count == 32 else {
                    throw ServerStartError(
                        "the signing key file \(path) must hold 32 bytes, not \(seed.count)")
                }
                keys.append(try Ed25519SigningKey(seed: seed))
            } catch let error as ServerStartError {
                throw error
            } catch {
                throw ServerStartError("cannot use the signing key file \(path): \(error)")
            }
        }
        return keys
    }

    /// The approval tokens' `iss` when the server has no `--public-url`.
    public static let defaultIssuer = "otpkit"

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
            case .redis, .redisSentinel, .postgres:
                throw ServerStartError(
                    "a \(settings.store.sharedName) store is shared: give every server the same --secret-file "
                        + "(OTP_SECRET_FILE)")
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

/// Approval tokens signed with OTPTokens' Ed25519 signer: the claims of a hosted page's approval.
struct SignedApprovalTokens: ApprovalTokenIssuing {
    let signer: ApprovalTokenSigner
    /// The tokens' `iss`: the server's public URL.
    let issuer: String

    func approvalToken(
        for subject: ApprovedSubject, audience: String, nonce: String?, issuedAt: Date, lifetime: Duration
    ) -> String {
        signer.token(
            for: claims(
                for: subject, audience: audience, nonce: nonce, issuedAt: issuedAt, lifetime: lifetime))
    }

    /// The claims of an approval: the verified destination in OpenID Connect's names, `test` for a
    /// test destination, and the start's ref and transaction and the hosted flow's nonce.
    func claims(
        for subject: ApprovedSubject, audience: String, nonce: String?, issuedAt: Date, lifetime: Duration
    ) -> ApprovalClaims {
        let issued = Int(issuedAt.timeIntervalSince1970)
        var generator = SystemRandomNumberGenerator()
        let jti = Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return ApprovalClaims(
            iss: issuer, sub: subject.id, aud: audience, iat: issued,
            exp: issued + Int(lifetime.components.seconds), jti: jti, channel: subject.channel.rawValue,
            phoneNumber: subject.channel == .sms ? subject.destination : nil,
            email: subject.channel == .email ? subject.destination : nil, test: subject.isTest,
            ref: subject.ref, nonce: nonce, txn: subject.transaction.flatMap(TransactionClaim.init))
    }

    var keySetJSON: [UInt8] { signer.keySet.json() }
}
