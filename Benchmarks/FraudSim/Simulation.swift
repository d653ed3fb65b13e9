import Foundation
import OTPCore
import OTPEngine

/// What one run counted.
struct Outcome {
    var attackStarts = 0
    var attackSent = 0
    /// Attack starts refused (`on`) or that would have been (`shadow`).
    var attackStopped = 0
    /// Attack starts to a key that already had its minimum of attack sends counted, and those
    /// stopped: per prefix and `minSends` for the prefix attack, per region and 10 × `minSends` for
    /// the spread (the key the rule can judge it under, see ``Simulation/judgedKey(_:)``).
    var attackAfterFirst = 0
    var attackAfterFirstStopped = 0
    var legitStarts = 0
    /// Legitimate starts refused (`on`) or that would have been (`shadow`).
    var legitRefused = 0
    /// Legitimate starts refused, by the level of the block that refused them.
    var legitRefusedByLevel: [String: Int] = [:]
    /// Attack SMS sent before the run's first block, and after it.
    var attackSentBeforeBlock = 0
    var attackSentAfterBlock = 0
    var approvals = 0
    var otherErrors = 0
    /// Every block decision: level, prefix or region, repeat, seconds into the run.
    var blocks: [String] = []
    var legitPrefixesBlocked: Set<String> = []
    var seconds = 0.0
}

/// One run: a plan through a verifier on a store, in one guard mode.
struct Simulation {
    let plan: [PlannedStart]
    let store: any VerificationStore
    let mode: FraudGuardPolicy.Mode
    let scenario: Scenario
    let attack: AttackShape

    /// The key the attack is judged under, and its minimum sends: each attacked prefix and
    /// `minSends` for the prefix attack; the region and 10 × `minSends` for the spread, whose
    /// ranges each get about one send an hour, so that no prefix of it ever reaches `minSends`.
    func judgedKey(_ number: String) -> (key: String, minimum: Int) {
        switch attack {
        case .prefixes: (FraudSubject.prefix(of: number), scenario.minSends)
        case .spread: (FraudSubject.callingCodeRegion(of: number), scenario.minSends * 10)
        }
    }

    func run() async throws -> Outcome {
        let day0 = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Locked(day0)
        let sender = CodeCatcher()
        let decisions = Locked<[FraudDecision]>([])
        var policy = Policy.default
        let generous = RateLimit(limit: 100_000, window: .seconds(3600))
        policy.startsPerDestination = generous
        policy.startsPerAddress = generous
        policy.checksPerAddress = generous
        policy.failedChecksPerDestination = generous
        policy.globalSendsPerHour = nil
        policy.sendsPerCallingCodePerHour = nil
        policy.fraudGuard = FraudGuardPolicy(
            mode: mode, window: scenario.window, minSends: scenario.minSends, blockDuration: scenario.block)
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: Array(repeating: 7, count: 32),
            now: { clock.withLock { $0 } },
            fraudDecisions: { decision in decisions.withLock { $0.append(decision) } })
        let legitPrefixes = Set(plan.filter { !$0.isAttack }.map { FraudSubject.prefix(of: $0.to) })
        var outcome = Outcome()
        var approvals: [(at: Int, id: String, client: String)] = []
        var attackCounted: [String: Int] = [:]
        var nextPurge = 600
        let started = ContinuousClock.now
        var index = 0
        while index < plan.count || !approvals.isEmpty {
            let takeApproval =
                !approvals.isEmpty && (index == plan.count || approvals[0].at <= plan[index].at)
            let at = takeApproval ? approvals[0].at : plan[index].at
            clock.withLock { $0 = day0.addingTimeInterval(TimeInterval(at)) }
            if at >= nextPurge {
                _ = try await verifier.purgeExpired()
                nextPurge += 600
            }
            if takeApproval {
                let approval = approvals.removeFirst()
                guard let code = sender.code(for: approval.id) else {
                    outcome.otherErrors += 1
                    continue
                }
                do {
                    _ = try await verifier.check(id: approval.id, code: code, clientAddress: approval.client)
                    outcome.approvals += 1
                } catch {
                    outcome.otherErrors += 1
                }
                continue
            }
            let start = plan[index]
            index += 1
            let refusalsBefore = decisions.withLock { $0.filter { $0.action == .refuse }.count }
            let blockedBefore = decisions.withLock { $0.contains { $0.action == .block } }
            var sentID: String?
            var refused = false
            do {
                let result = try await verifier.start(
                    StartRequest(to: start.to, channel: .sms, clientAddress: start.client))
                sentID = result.verification.id
            } catch  where error.kind == .destinationBlocked {
                refused = true
            } catch {
                outcome.otherErrors += 1
            }
            let refusals = decisions.withLock { $0.filter { $0.action == .refuse } }
            let wouldRefuse = refused || refusals.count > refusalsBefore
            let judged = judgedKey(start.to)
            if start.isAttack {
                outcome.attackStarts += 1
                if sentID != nil { outcome.attackSent += 1 }
                if sentID != nil, !wouldRefuse {
                    if blockedBefore {
                        outcome.attackSentAfterBlock += 1
                    } else {
                        outcome.attackSentBeforeBlock += 1
                    }
                }
                if wouldRefuse { outcome.attackStopped += 1 }
                if attackCounted[judged.key, default: 0] >= judged.minimum {
                    outcome.attackAfterFirst += 1
                    if wouldRefuse { outcome.attackAfterFirstStopped += 1 }
                }
                if sentID != nil, !wouldRefuse { attackCounted[judged.key, default: 0] += 1 }
            } else {
                outcome.legitStarts += 1
                if wouldRefuse {
                    outcome.legitRefused += 1
                    outcome.legitRefusedByLevel[refusals.last?.level.rawValue ?? "prefix", default: 0] += 1
                }
                if let id = sentID, let after = start.approveAfter {
                    let entry = (at: start.at + after, id: id, client: start.client)
                    let place = approvals.firstIndex { $0.at > entry.at } ?? approvals.count
                    approvals.insert(entry, at: place)
                }
            }
        }
        outcome.seconds = Self.seconds(ContinuousClock.now - started)
        for decision in decisions.withLock({ $0 }) where decision.action == .block {
            let target = decision.level == .region ? decision.subject.region : decision.subject.prefix
            let at = Int(decision.at.timeIntervalSince(day0))
            outcome.blocks.append("\(decision.level.rawValue) \(target) #\(decision.block.repeats) at \(at)s")
            if decision.level == .prefix, legitPrefixes.contains(target) {
                outcome.legitPrefixesBlocked.insert(target)
            }
        }
        return outcome
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A sender that keeps each verification's code, so a converting user can type it.
final class CodeCatcher: ImmediateCodeSender {
    private let codes = Locked<[String: String]>([:])

    func sendsImmediately(_ channel: Channel) -> Bool { true }

    func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
        let digits = message.text.split { !$0.isNumber }.first { $0.count >= 4 }.map(String.init)
        codes.withLock { $0[message.verificationID] = digits }
    }

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        try sendImmediately(message)
    }

    func code(for id: String) -> String? {
        codes.withLock { $0.removeValue(forKey: id) }
    }
}
