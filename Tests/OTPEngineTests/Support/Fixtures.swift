import Foundation
import OTPCore
import OTPEngine
import Testing

/// The HMAC key every test verifier uses.
let testSecret: [UInt8] = Array(0..<32)

/// A policy whose rate limits never get in the way, for tests about something else.
func relaxedPolicy(_ change: (inout Policy) -> Void = { _ in }) -> Policy {
    var policy = Policy.default
    let plenty = RateLimit(limit: 1_000_000, window: .seconds(3600))
    policy.startsPerDestination = plenty
    policy.startsPerAddress = plenty
    policy.checksPerAddress = plenty
    policy.failedChecksPerDestination = plenty
    change(&policy)
    return policy
}

/// A generator that returns scripted words, then repeats the last.
struct ScriptedGenerator: RandomNumberGenerator, Sendable {
    var words: [UInt64]
    private var index = 0

    init(_ words: [UInt64]) {
        self.words = words
    }

    mutating func next() -> UInt64 {
        defer { index = min(index + 1, words.count - 1) }
        return words[index]
    }
}

/// A sender that keeps every message, and fails while told to.
actor RecordingSender: CodeSender {
    /// Messages delivered.
    private(set) var messages: [OutgoingMessage] = []
    /// Messages refused while failing.
    private(set) var refused: [OutgoingMessage] = []
    var failing = false

    func send(_ message: OutgoingMessage) throws(DeliveryError) {
        if failing {
            refused.append(message)
            throw DeliveryError("provider refused (test)")
        }
        messages.append(message)
    }

    func setFailing(_ value: Bool) {
        failing = value
    }

    /// The code in the last message for a verification.
    func lastCode(for id: String) -> String? {
        messages.last(where: { $0.verificationID == id }).flatMap { Self.code(in: $0.text) }
    }

    /// The code in a message's text: the word after "code is".
    static func code(in text: String) -> String? {
        guard let range = text.range(of: "code is ") else { return nil }
        return String(text[range.upperBound...].prefix(while: { $0.isNumber || $0.isUppercase }))
    }
}

/// A verifier on a manual clock with a recording sender.
struct Harness {
    let clock: ManualClock
    let sender: RecordingSender
    let verifier: Verifier
    let store: any VerificationStore

    init(
        store: any VerificationStore = MemoryStore(), policy: Policy = relaxedPolicy(),
        clock: ManualClock = ManualClock(),
        sender: RecordingSender = RecordingSender(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.clock = clock
        self.sender = sender
        self.store = store
        self.verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: testSecret, now: { clock.date },
            random: random)
    }

    /// Another verifier on the same clock and sender but its own store connection.
    func sibling(store: any VerificationStore, policy: Policy) -> Verifier {
        Verifier(
            store: store, sender: sender, policy: policy, secret: testSecret, now: { [clock] in clock.date })
    }

    /// Starts a verification to a phone number and returns it with its code.
    func started(
        to: String = "+15555550100", address: String = "192.0.2.1"
    ) async throws -> (Verification, String) {
        let result = try await verifier.start(StartRequest(to: to, clientAddress: address))
        let code = try #require(await sender.lastCode(for: result.verification.id))
        return (result.verification, code)
    }

    /// A code of the right length that is not `code`.
    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }
}

/// The error a call threw, or `nil` when it succeeded.
func verifierError<T>(_ body: () async throws(VerifierError) -> T) async -> VerifierError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

extension VerifierError {
    /// The wait in whole seconds, rounded up, as a client is told it.
    var retrySeconds: Int? {
        retryAfter.map { Int((StoreTime.milliseconds($0) + 999) / 1000) }
    }
}
