import Foundation
import OTPCore
import OTPEngine
import Testing

/// Starts on a store and sender that both answer inline: the reply comes on the caller's thread, and a
/// failed send is undone as on every other path.
@Suite struct ImmediateStartTests {
    /// A sender that delivers on the caller's thread, records what it sent, and refuses the
    /// destinations it is told to, or every channel it is not told is immediate.
    final class ImmediateSender: ImmediateCodeSender, @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [OutgoingMessage] = []
        private var refusedList: [String] = []
        private var calls = 0
        let refusing: Set<String>
        let immediateChannels: Set<Channel>

        init(refusing: Set<String> = [], immediateChannels: Set<Channel> = [.sms, .email]) {
            self.refusing = refusing
            self.immediateChannels = immediateChannels
        }

        var messages: [OutgoingMessage] { lock.withLock { sent } }
        var callCount: Int { lock.withLock { calls } }
        /// The verifications whose messages were refused.
        var refusedIDs: [String] { lock.withLock { refusedList } }

        func sendsImmediately(_ channel: Channel) -> Bool { immediateChannels.contains(channel) }

        func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
            let refused = lock.withLock { () -> Bool in
                calls += 1
                guard !refusing.contains(message.to) else {
                    refusedList.append(message.verificationID)
                    return true
                }
                sent.append(message)
                return false
            }
            if refused { throw DeliveryError("provider refused (test)") }
        }

        func send(_ message: OutgoingMessage) async throws(DeliveryError) {
            try sendImmediately(message)
        }
    }

    /// Starts `request` through the callback and answers what was replied before the call returned,
    /// or `nil` when the reply had not come yet.
    static func inline(_ verifier: Verifier, _ request: StartRequest) -> Result<StartResult, VerifierError>? {
        let answer = TestLocked<Result<StartResult, VerifierError>?>(nil)
        verifier.start(request) { result in answer.withLock { $0 = result } }
        return answer.withLock { $0 }
    }

    /// The kind of a start's refusal, or `nil` for a start that succeeded.
    static func kind(of result: Result<StartResult, VerifierError>) -> VerifierError.Kind? {
        guard case .failure(let error) = result else { return nil }
        return error.kind
    }

    /// Starts `request` and answers what it ended with, waiting for it.
    static func result(
        _ verifier: Verifier, _ request: StartRequest
    ) async -> Result<StartResult, VerifierError> {
        do throws(VerifierError) {
            return .success(try await verifier.start(request))
        } catch {
            return .failure(error)
        }
    }

    @Test("on the memory store with a sender that sends immediately, a start answers before it returns")
    func answersInline() async throws {
        let store = MemoryStore()
        let sender = ImmediateSender()
        let verifier = Verifier(store: store, sender: sender, policy: relaxedPolicy(), secret: testSecret)
        let started = try #require(
            Self.inline(verifier, StartRequest(to: "+15555550100", clientAddress: "192.0.2.1")))
        let result = try started.get()
        #expect(result.created)
        #expect(sender.messages.map(\.verificationID) == [result.verification.id])
        #expect(try await store.record(id: result.verification.id)?.state == .pending)
    }

    @Test("a failed send cancels the verification and gives the send cap back, not the start limits")
    func failedSend() async throws {
        let store = MemoryStore()
        let sender = ImmediateSender(refusing: ["+15555550199"])
        let clock = ManualClock()
        let policy = relaxedPolicy {
            $0.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600))
            $0.globalSendsPerHour = 1
        }
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: testSecret, now: { clock.date })
        let failed = await Self.result(verifier, StartRequest(to: "+15555550199", clientAddress: "192.0.2.1"))
        #expect(Self.kind(of: failed) == .deliveryFailed, "\(failed)")
        // The global cap of one send was given back, so another destination is sent to.
        let next = await Self.result(verifier, StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect((try? next.get())?.created == true)
        // The failed destination's own start limit was kept.
        let again = await Self.result(verifier, StartRequest(to: "+15555550199", clientAddress: "192.0.2.1"))
        #expect(Self.kind(of: again) == .rateLimited, "\(again)")
        #expect(sender.callCount == 2)
        #expect(store.count == 2)
        #expect(sender.messages.map(\.to) == ["+15555550100"])
    }

    @Test("a shut-down store answers store_unavailable, and nothing is sent")
    func shutDown() async throws {
        let store = MemoryStore()
        let sender = ImmediateSender()
        let verifier = Verifier(store: store, sender: sender, policy: relaxedPolicy(), secret: testSecret)
        await store.shutdown()
        let answer = await Self.result(verifier, StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect(Self.kind(of: answer) == .storeUnavailable, "\(answer)")
        #expect(sender.callCount == 0)
    }

    @Test("a channel router sends on the caller's thread only through an immediate route")
    func router() throws {
        let immediate = ImmediateSender()
        let router = ChannelRouter(routes: [.sms: immediate, .email: RecordingSender()])
        #expect(router.sendsImmediately(.sms))
        #expect(!router.sendsImmediately(.email))
        let message = OutgoingMessage(
            verificationID: "v", channel: .email, to: "ada@example.com", subject: "s", text: "t", html: nil)
        #expect(throws: DeliveryError.self) { try router.sendImmediately(message) }
        var sms = message
        sms.channel = .sms
        sms.to = "+15555550100"
        try router.sendImmediately(sms)
        #expect(immediate.messages == [sms])
        #expect(!ChannelRouter(routes: [:]).sendsImmediately(.sms))
    }
}
