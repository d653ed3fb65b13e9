import Foundation
import OTPCore
import OTPServer
import Testing

/// The start the HTTP threads take without suspending (`Verifier.startImmediately`) must answer,
/// change the store and send exactly as the asynchronous start does.
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

    /// The starts of a script: destinations that parse or not, on both channels, one whose sends
    /// fail, one of a publishable key, repeated so the limits per destination and address bite.
    static let requests: [StartRequest] = {
        var requests: [StartRequest] = []
        let destinations = [
            "+15555550100", "+15555550101", "ada@example.com", "not a number", "+15555550199",
            "+15555550100", "+4930123456", "+15555550100", "ada@example.com", "+15555550101",
        ]
        for (index, to) in destinations.enumerated() {
            requests.append(
                StartRequest(
                    to: to, clientAddress: index % 3 == 0 ? "192.0.2.1" : "198.51.100.7",
                    owner: index == 4 ? "app" : nil, locale: index == 2 ? .german : nil))
        }
        return requests + requests
    }()

    static let policy = relaxedPolicy {
        $0.startsPerDestination = RateLimit(limit: 3, window: .seconds(3600))
        $0.startsPerAddress = RateLimit(limit: 9, window: .seconds(3600))
        $0.ownerStartsPerAddress = RateLimit(limit: 1, window: .seconds(3600))
        $0.allowedCallingCodes = ["1"]
        $0.sendsPerCallingCodePerHour = 12
        $0.channels = [.sms, .email]
    }

    /// Runs the script on a fresh store, immediately or not, and writes down every answer, every
    /// message and every record.
    static func transcript(
        immediate: Bool
    ) async throws -> (answers: [String], messages: [OutgoingMessage], records: [VerificationRecord]) {
        let store = MemoryStore()
        let clock = ManualClock()
        let sender = ImmediateSender(refusing: ["+15555550199"])
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: testSecret, now: { clock.date },
            random: SeededGenerator(seed: 7))
        var answers: [String] = []
        var ids: [String] = []
        for request in requests {
            clock.advance(by: .milliseconds(250))
            let result: Result<StartResult, VerifierError>
            if immediate {
                result = try #require(verifier.startImmediately(request), "\(request.to) fell back")
            } else {
                do throws(VerifierError) {
                    result = .success(try await verifier.start(request))
                } catch {
                    result = .failure(error)
                }
            }
            if case .success(let started) = result { ids.append(started.verification.id) }
            answers.append("\(result)")
        }
        var records: [VerificationRecord] = []
        for id in ids + sender.refusedIDs { records.append(try #require(try store.record(id: id))) }
        #expect(records.count == store.count, "every verification of the script is looked at")
        return (answers, sender.messages, records)
    }

    /// The kind of a start's refusal, or `nil` for a start that succeeded.
    static func kind(of result: Result<StartResult, VerifierError>) -> VerifierError.Kind? {
        guard case .failure(let error) = result else { return nil }
        return error.kind
    }

    @Test("a script of starts gives the same answers, messages and records, immediate or not")
    func sameAsAsynchronous() async throws {
        let queued = try await Self.transcript(immediate: false)
        let immediate = try await Self.transcript(immediate: true)
        #expect(immediate.answers == queued.answers)
        #expect(immediate.messages == queued.messages)
        #expect(immediate.records == queued.records)
        // The script reaches every kind of answer it is meant to.
        let all = queued.answers.joined(separator: "\n")
        for kind in ["success", "rateLimited", "deliveryFailed", "callingCodeNotAllowed", "invalid"] {
            #expect(all.contains(kind), "no \(kind) in the script's answers")
        }
        #expect(queued.records.contains { $0.state == .canceled }, "a failed send cancels its verification")
    }

    @Test("a failed send cancels the verification and gives the send cap back, not the start limits")
    func failedSend() throws {
        let store = MemoryStore()
        let sender = ImmediateSender(refusing: ["+15555550199"])
        let clock = ManualClock()
        let policy = relaxedPolicy {
            $0.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600))
            $0.globalSendsPerHour = 1
        }
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: testSecret, now: { clock.date })
        let failed = try #require(
            verifier.startImmediately(StartRequest(to: "+15555550199", clientAddress: "192.0.2.1")))
        #expect(Self.kind(of: failed) == .deliveryFailed, "\(failed)")
        // The global cap of one send was given back, so another destination is sent to.
        let next = try #require(
            verifier.startImmediately(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1")))
        #expect((try? next.get())?.created == true)
        // The failed destination's own start limit was kept.
        let again = try #require(
            verifier.startImmediately(StartRequest(to: "+15555550199", clientAddress: "192.0.2.1")))
        #expect(Self.kind(of: again) == .rateLimited, "\(again)")
        #expect(sender.callCount == 2)
        #expect(store.count == 2)
        #expect(sender.messages.map(\.to) == ["+15555550100"])
    }

    @Test(
        "an idempotency key, a store or a channel that is not immediate leaves the start to the asynchronous path"
    )
    func fallsBack() async throws {
        let clock = ManualClock()
        let onePerDestination = relaxedPolicy {
            $0.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600))
        }
        let store = MemoryStore()
        let emailLater = ImmediateSender(immediateChannels: [.sms])
        let verifier = Verifier(
            store: store, sender: emailLater, policy: onePerDestination, secret: testSecret,
            now: { clock.date })
        #expect(
            verifier.startImmediately(
                StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "k-1")) == nil)
        #expect(
            verifier.startImmediately(StartRequest(to: "ada@example.com", clientAddress: "192.0.2.1")) == nil)
        // Nothing was taken by the starts that fell back: the limit of one start per destination is whole.
        #expect(store.count == 0)
        #expect(emailLater.callCount == 0)
        let started = try await verifier.start(
            StartRequest(to: "ada@example.com", clientAddress: "192.0.2.1"))
        #expect(started.created)

        // A sender that awaits, or a store that does, leaves the start to the asynchronous path.
        let others: [(any VerificationStore, any CodeSender)] = [
            (MemoryStore(), RecordingSender()), (FaultyStore(), ImmediateSender()),
        ]
        for (store, sender) in others {
            let other = Verifier(
                store: store, sender: sender, policy: onePerDestination, secret: testSecret,
                now: { clock.date })
            #expect(
                other.startImmediately(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1")) == nil)
        }
    }

    @Test("a shut-down store answers store_unavailable, and nothing is sent")
    func shutDown() async throws {
        let store = MemoryStore()
        let sender = ImmediateSender()
        let verifier = Verifier(store: store, sender: sender, policy: relaxedPolicy(), secret: testSecret)
        await store.shutdown()
        let answer = try #require(
            verifier.startImmediately(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1")))
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
