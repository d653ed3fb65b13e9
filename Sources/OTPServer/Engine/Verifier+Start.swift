import Foundation
import OTPCore

extension Verifier {
    /// Starts a verification and sends its first code.
    ///
    /// Judged in this order: the destination and channel, the idempotency key (a replay
    /// answers the same verification with `created == false`, a different body
    /// `idempotencyKeyReused`), the rate limits per destination, per client address and in
    /// all (`rateLimited`), then `screen` (the start guard) when given (`startRefused`,
    /// `startGuardUnavailable`), then the code is made, stored and sent. A delivery failure
    /// cancels the verification, frees the idempotency key and throws `deliveryFailed`.
    ///
    /// The guard is asked only once the start's own limits have passed, so starts those limits
    /// refuse cost no guard call; a refused start keeps its place in the limits and gives back
    /// the send caps, since nothing was sent.
    public func start(
        _ request: StartRequest, screen: StartScreen? = nil
    ) async throws(VerifierError) -> StartResult {
        let now = currentTime()
        let destination = try startDestination(request)
        var claim: IdempotencyClaim?
        if let clientKey = request.idempotencyKey, let key = request.scopedIdempotencyKey {
            guard Self.isValidIdempotencyKey(clientKey) else { throw .invalidIdempotencyKey }
            let entry = try await storeCall { () async throws(StoreError) in
                try await store.idempotencyEntry(key: key, now: now)
            }
            if let entry, let replay = try await replay(entry, request: request, now: now) {
                return replay
            }
            claim = IdempotencyClaim(
                key: key, fingerprint: request.fingerprint, expiresAt: now.adding(policy.codeLifetime))
        }
        let plan = try startPlan(request, destination: destination)
        let record: VerificationRecord
        let code: String
        if let atomic = atomicStartStore, screen == nil {
            (record, code) = try newRecord(plan, request: request, now: now)
            if let replay = try await insertAtomically(
                record, claim: claim, plan: plan, into: atomic, request: request, now: now)
            {
                return replay
            }
        } else {
            try await acquire(plan.permits, now: now)
            if let screen {
                do {
                    try await judge(
                        screen, destination: plan.destination, clientAddress: request.clientAddress,
                        owner: request.owner, isResend: false)
                } catch {
                    await release(plan.caps, now: now)
                    throw error
                }
            }
            (record, code) = try newRecord(plan, request: request, now: now)
            let inserted: InsertOutcome
            do {
                inserted = try await storeCall { () async throws(StoreError) in
                    try await store.insert(record, claim: claim, now: now)
                }
            } catch {
                let (permits, claimed) = (plan.permits, claim)
                await Self.waitAtMost(Self.undoWait) { [self] in
                    await undoInsert(record, claim: claimed, now: now)
                    await release(permits, now: now)
                }
                throw error
            }
            if case .replay(let entry) = inserted {
                // Another start with the same key won the race; this one sends nothing.
                await release(plan.permits, now: now)
                return try await replayOrGone(entry, request: request, now: now)
            }
        }

        do {
            try await deliver(
                message(for: record, code: code, request: request), isTest: plan.fixedCode != nil)
        } catch {
            _ = try? await store.cancel(id: record.id, now: now)
            if let claim { try? await store.releaseIdempotencyKey(claim.key, verificationID: record.id) }
            await release(plan.caps, now: now)
            throw .deliveryFailed(.start, error)
        }
        return StartResult(verification: view(record, at: now), created: true)
    }

    /// ``start(_:)`` on the caller's thread, when the store is an ``ImmediateStartStore`` and the
    /// sender of the request's channel an ``ImmediateCodeSender``; `nil`, with nothing done, when
    /// the start needs the asynchronous path (another store or sender, or an idempotency key, whose
    /// replays and races take several store calls).
    ///
    /// The answer, every change to the store and the message sent are those of ``start(_:)``:
    /// the same judgements in the same order, and the same undoing when the store or the sender
    /// fails. The caller's thread may block for the store's steps and the send: call it from a
    /// thread that may.
    public func startImmediately(_ request: StartRequest) -> Result<StartResult, VerifierError>? {
        guard request.idempotencyKey == nil, let store = immediateStartStore,
            let sender = immediateSender
        else { return nil }
        let now = currentTime()
        do throws(VerifierError) {
            let destination = try startDestination(request)
            let plan = try startPlan(request, destination: destination)
            guard plan.fixedCode != nil || sender.sendsImmediately(destination.channel) else { return nil }
            if !plan.permits.isEmpty {
                let decision = try storeCallNow { () throws(StoreError) in
                    try store.acquireImmediately(plan.permits, now: now)
                }
                if case .denied(let wait, let key) = decision {
                    throw .rateLimited(retryAfter: .milliseconds(wait), limit: Self.limit(ofKey: key))
                }
            }
            let (record, code) = try newRecord(plan, request: request, now: now)
            do throws(VerifierError) {
                _ = try storeCallNow { () throws(StoreError) in
                    try store.insertImmediately(record, claim: nil, now: now)
                }
            } catch {
                _ = try? store.cancelImmediately(id: record.id, now: now)
                if !plan.permits.isEmpty { try? store.releaseImmediately(plan.permits, now: now) }
                throw error
            }
            do throws(DeliveryError) {
                let message = message(for: record, code: code, request: request)
                if plan.fixedCode != nil {
                    testSink(message)
                } else {
                    try sender.sendImmediately(message)
                }
            } catch {
                _ = try? store.cancelImmediately(id: record.id, now: now)
                if !plan.caps.isEmpty { try? store.releaseImmediately(plan.caps, now: now) }
                throw .deliveryFailed(.start, error)
            }
            return .success(StartResult(verification: view(record, at: now), created: true))
        } catch {
            return .failure(error)
        }
    }

    /// Asks the start guard about a start or a resend to `destination`; returns when it allows.
    func judge(
        _ screen: StartScreen, destination: Destination, clientAddress: String, owner: String?, isResend: Bool
    ) async throws(VerifierError) {
        let national = destination.callingCode.map { code in
            String(destination.address.dropFirst(1 + code.count).prefix(3))
        }
        let start = GuardedStart(
            channel: destination.channel, callingCode: destination.callingCode, to: destination.masked,
            clientAddress: clientAddress, keyName: owner, proof: nil, nationalPrefix: national,
            destinationHash: hasher.opaqueKey("guard", destination.limitKey), isResend: isResend)
        switch await screen(start) {
        case .allow: return
        case .refuse(let reason): throw .startRefused(reason: reason)
        case .unavailable: throw .startGuardUnavailable
        }
    }

    /// Takes a start's permits and stores its record in the store's one step; the answer to a live
    /// idempotency key, or `nil` once stored.
    private func insertAtomically(
        _ record: VerificationRecord, claim: IdempotencyClaim?, plan: StartPlan,
        into store: any AtomicStartStore,
        request: StartRequest, now: Date
    ) async throws(VerifierError) -> StartResult? {
        let outcome: StartInsertOutcome
        do {
            outcome = try await storeCall { () async throws(StoreError) in
                try await store.insert(record, claim: claim, taking: plan.permits, now: now)
            }
        } catch {
            // The step took and stored nothing; a store that lost its reply after writing is undone.
            await Self.waitAtMost(Self.undoWait) { [self] in await undoInsert(record, claim: claim, now: now)
            }
            throw error
        }
        switch outcome {
        case .inserted: return nil
        case .denied(let wait, let key):
            throw .rateLimited(retryAfter: .milliseconds(wait), limit: Self.limit(ofKey: key))
        case .replay(let entry): return try await replayOrGone(entry, request: request, now: now)
        }
    }

    /// How long a failed start waits for its undoing before it answers: a store whose reply was lost
    /// undoes at once, so a retry finds the key free; a store that is blocked finishes the undoing on
    /// its own after the answer, which keeps one deadline per request rather than one per call.
    static let undoWait: Duration = .milliseconds(250)

    /// Runs `work`, waiting for it at most `limit`; past that it goes on by itself.
    static func waitAtMost(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async {
        let finished = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                let first = finished.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            Task {
                await work()
                resumeOnce()
            }
            Task {
                try? await Task.sleep(for: limit)
                resumeOnce()
            }
        }
    }

    /// Undoes what a failed insert may have left: the reply may have been lost after the store
    /// wrote, and the key must not stay held by a verification whose code was never sent.
    private func undoInsert(_ record: VerificationRecord, claim: IdempotencyClaim?, now: Date) async {
        _ = try? await store.cancel(id: record.id, now: now)
        if let claim { try? await store.releaseIdempotencyKey(claim.key, verificationID: record.id) }
    }

    /// The answer to a start that lost the race for its idempotency key: the verification that won.
    private func replayOrGone(
        _ entry: IdempotencyEntry, request: StartRequest, now: Date
    ) async throws(VerifierError) -> StartResult {
        if let replay = try await replay(entry, request: request, now: now) { return replay }
        throw .storeUnavailable(StoreError("the verification behind a live idempotency key is gone"))
    }

    /// What a start takes before its code is made: the rate permits, and the send caps among them
    /// (given back when the send fails), and the fixed code of a test destination.
    private struct StartPlan {
        var destination: Destination
        var permits: [RatePermit]
        var caps: [RatePermit]
        var fixedCode: String?
    }

    /// The request's destination, judged: it parses, and its channel and calling code are allowed.
    private func startDestination(_ request: StartRequest) throws(VerifierError) -> Destination {
        if let ref = request.ref,
            ref.isEmpty || ref.count > StartRequest.maxRefCharacters
                || ref.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw .invalidRef
        }
        if request.transaction?.problem != nil { throw .invalidTransaction }
        let destination = try Destination.parse(request.to, channel: request.channel)
        guard policy.channels.contains(destination.channel) else {
            throw .channelNotSupported(destination.channel)
        }
        if let allowed = policy.allowedCallingCodes, let code = destination.callingCode,
            !allowed.contains(code)
        {
            throw .callingCodeNotAllowed
        }
        return destination
    }

    /// The permits a start takes: per destination, per address (and per address for publishable
    /// keys), then the send caps; none for a test destination without limits.
    private func startPlan(
        _ request: StartRequest, destination: Destination
    ) throws(VerifierError) -> StartPlan {
        var permits = [
            RatePermit(key: try limitKey("sd", destination.limitKey), limit: policy.startsPerDestination),
            RatePermit(
                key: try limitKey("sa", ClientAddress.limitKey(request.clientAddress)),
                limit: policy.startsPerAddress),
        ]
        if request.owner != nil {
            // Publishable keys live in apps, so their starts get a stricter limit per address of their own.
            permits.append(
                RatePermit(
                    key: try limitKey("so", ClientAddress.limitKey(request.clientAddress)),
                    limit: policy.ownerStartsPerAddress))
        }
        var caps = sendCapPermits(channel: destination.channel, address: destination.address)
        let fixedCode = policy.testCode(for: destination.address)
        if fixedCode != nil, policy.testDestinationsUnlimited {
            permits = []
            caps = []
        }
        permits += caps
        return StartPlan(destination: destination, permits: permits, caps: caps, fixedCode: fixedCode)
    }

    /// A new pending verification for a planned start, and its code.
    private func newRecord(
        _ plan: StartPlan, request: StartRequest, now: Date
    ) throws(VerifierError) -> (VerificationRecord, String) {
        let id = newID(at: now, owner: request.owner)
        let code = plan.fixedCode ?? newCode()
        let expiresAt = now.adding(policy.codeLifetime)
        let record = VerificationRecord(
            id: id, channel: plan.destination.channel, destination: plan.destination.address,
            codeLength: policy.codeFormat.length,
            codeHash: try hash(id: id, code: code, transaction: request.transaction), state: .pending,
            attemptsLeft: policy.maxAttempts, sendsUsed: 1, createdAt: now, expiresAt: expiresAt,
            resendAvailableAt: policy.maxSends > 1 ? now.adding(policy.cooldown(afterSend: 1)) : nil,
            purgeAt: purgeTime(after: expiresAt), locale: (request.locale ?? policy.defaultLocale).rawValue,
            ref: request.ref, transaction: request.transaction)
        return (record, code)
    }

    /// The first message of a new verification.
    private func message(
        for record: VerificationRecord, code: String, request: StartRequest
    ) -> OutgoingMessage {
        MessageTemplate.message(
            verificationID: record.id, channel: record.channel, to: record.destination, code: code,
            policy: policy, language: request.locale, transaction: request.transaction)
    }

    /// The answer to a start whose idempotency key is live: the same verification, or a refusal for another body.
    ///
    /// `nil` when the verification behind the key is gone, so the start goes ahead.
    private func replay(
        _ entry: IdempotencyEntry, request: StartRequest, now: Date
    ) async throws(VerifierError)
        -> StartResult?
    {
        guard entry.fingerprint == request.fingerprint else { throw .idempotencyKeyReused }
        let record = try await storeCall { () async throws(StoreError) in
            try await store.record(id: entry.verificationID)
        }
        guard let record else { return nil }
        return StartResult(verification: view(record, at: now), created: false)
    }

    /// Whether a key is 1–255 printable ASCII characters.
    static func isValidIdempotencyKey(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
