import Foundation
import OTPCore

extension Verifier {
    /// Starts a verification and sends its first code.
    ///
    /// Judged in this order: the destination and channel, the SMS pumping guard's blocks when
    /// ``Policy/fraudGuard`` is `on` (`destinationBlocked`; see <doc:ThePumpingGuard>), the
    /// idempotency key (a replay answers the same verification with `created == false`, a
    /// different body `idempotencyKeyReused`), the rate limits per destination, per client address and in
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
        let result = await withCheckedContinuation { continuation in
            start(request, screen: screen) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// ``start(_:screen:)``, answered through `reply`: once, on the thread the store (or the
    /// sender) answers on.
    ///
    /// A start without a guard is one store step (``VerificationStore/start(_:now:reply:)``: the
    /// idempotency key, the permits and the record at once) and a send; with the memory store and a
    /// sender that delivers on the caller's thread (``ImmediateCodeSender``), `reply` runs before
    /// this returns. A start the guard judges, an SMS start the pumping guard looks at (`on` or
    /// `shadow`: its store steps come first, and the sent start is counted before `reply`), and
    /// the undoing after a failed send or store, run as a task. `reply` must not block.
    public func start(
        _ request: StartRequest, screen: StartScreen? = nil,
        reply: @escaping @Sendable (Result<StartResult, VerifierError>) -> Void
    ) {
        let now = currentTime()
        let plan: StartPlan
        let claim: IdempotencyClaim?
        do throws(VerifierError) {
            let (destination, masked) = try startDestination(request)
            claim = try idempotencyClaim(for: request, now: now)
            plan = try startPlan(request, destination: destination, masked: masked)
        } catch {
            return reply(.failure(error))
        }
        guard
            let subject = fraudSubject(
                channel: plan.destination.channel, address: plan.destination.address,
                region: plan.destination.region)
        else {
            return proceed(request, screen: screen, plan: plan, claim: claim, now: now, reply: reply)
        }
        // The pumping guard: a blocked prefix or region sends nothing; a start that sent is counted
        // (and may block its prefix) before it answers.
        let address = plan.destination.address
        let counted: @Sendable (Result<StartResult, VerifierError>) -> Void = { [self] result in
            guard case .success(let started) = result, started.created else { return reply(result) }
            Task { [self] in
                await fraudCountSend(subject, address: address, now: now)
                reply(result)
            }
        }
        Task { [self] in
            let counts: Bool
            do throws(VerifierError) {
                counts = try await fraudGate(subject, address: address, now: now)
            } catch {
                return reply(.failure(error))
            }
            proceed(
                request, screen: screen, plan: plan, claim: claim, now: now, reply: counts ? counted : reply)
        }
    }

    /// A start past its destination, key and plan: judged by the guard when there is one, else
    /// stored and sent in one store step.
    private func proceed(
        _ request: StartRequest, screen: StartScreen?, plan: StartPlan, claim: IdempotencyClaim?, now: Date,
        reply: @escaping @Sendable (Result<StartResult, VerifierError>) -> Void
    ) {
        if let screen {
            Task { [self] in
                do throws(VerifierError) {
                    reply(
                        .success(
                            try await screenedStart(
                                request, screen: screen, plan: plan, claim: claim, now: now)))
                } catch {
                    reply(.failure(error))
                }
            }
            return
        }
        let record: VerificationRecord
        let code: String
        do throws(VerifierError) {
            (record, code) = try newRecord(plan, request: request, now: now)
        } catch {
            return reply(.failure(error))
        }
        let step = StartStep(record: record, claim: claim, permits: plan.permits)
        store.start(step, now: now) { [self] answer in
            switch answer {
            case .success(.inserted):
                send(record, code: code, plan: plan, claim: claim, request: request, now: now, reply: reply)
            case .success(.denied(let wait, let key)):
                reply(.failure(.rateLimited(retryAfter: .milliseconds(wait), limit: Self.limit(ofKey: key))))
            case .success(.replay(let entry)):
                replay(entry, request: request, now: now, reply: reply)
            case .failure(let error):
                // The step took and stored nothing; a store that lost its reply after writing is undone.
                Task { [self] in
                    await Self.waitAtMost(Self.undoWait) { [self] in
                        await undoInsert(record, claim: claim, now: now)
                    }
                    reply(.failure(.storeUnavailable(error)))
                }
            }
        }
    }

    /// A start the guard judges, in its order: a live idempotency key replays, then the permits,
    /// then the guard, then the record is stored (one store step, the permits already taken).
    ///
    /// The guard is asked only once the start's own limits have passed, so starts those limits
    /// refuse cost no guard call; a refused start keeps its place in the limits and gives back the
    /// send caps, since nothing was sent.
    private func screenedStart(
        _ request: StartRequest, screen: StartScreen, plan: StartPlan, claim: IdempotencyClaim?, now: Date
    ) async throws(VerifierError) -> StartResult {
        if let claim {
            let entry = try await storeCall { () async throws(StoreError) in
                try await store.idempotencyEntry(key: claim.key, now: now)
            }
            if let entry, let replay = try await replay(entry, request: request, now: now) {
                return replay
            }
        }
        try await acquire(plan.permits, now: now)
        do {
            try await judge(
                screen, destination: plan.destination, clientAddress: request.clientAddress,
                owner: request.owner, isResend: false)
        } catch {
            await release(plan.caps, now: now)
            throw error
        }
        let (record, code) = try newRecord(plan, request: request, now: now)
        let answer: StartAnswer
        do {
            answer = try await storeCall { () async throws(StoreError) in
                try await store.start(StartStep(record: record, claim: claim, permits: []), now: now)
            }
        } catch {
            let permits = plan.permits
            await Self.waitAtMost(Self.undoWait) { [self] in
                await undoInsert(record, claim: claim, now: now)
                await release(permits, now: now)
            }
            throw error
        }
        switch answer {
        case .inserted: break
        case .denied(let wait, let key):
            // No permits were asked of this step; a store that refuses anyway is answered as it says.
            await release(plan.permits, now: now)
            throw .rateLimited(retryAfter: .milliseconds(wait), limit: Self.limit(ofKey: key))
        case .replay(let entry):
            // Another start with the same key won the race; this one sends nothing.
            await release(plan.permits, now: now)
            return try await replayOrGone(entry, request: request, now: now)
        }
        do {
            let receipt = try await deliver(
                message(for: record, code: code, request: request), isTest: plan.fixedCode != nil)
            noteBehind(attempt(record.id, channel: record.channel, step: .start, .success(receipt)))
        } catch {
            await note(attempt(record.id, channel: record.channel, step: .start, .failure(error)))
            await undoSend(record, claim: claim, caps: plan.caps, now: now)
            throw .deliveryFailed(.start, error)
        }
        return StartResult(verification: view(record, at: now, masked: plan.masked), created: true)
    }

    /// Sends a stored start's first code and answers: on this thread when the message is a test
    /// one or the sender delivers on the caller's thread, else from a task.
    ///
    /// A failed send cancels the verification, frees its idempotency key and gives the send caps
    /// back before the answer.
    private func send(
        _ record: VerificationRecord, code: String, plan: StartPlan, claim: IdempotencyClaim?,
        request: StartRequest, now: Date,
        reply: @escaping @Sendable (Result<StartResult, VerifierError>) -> Void
    ) {
        let message = message(for: record, code: code, request: request)
        let started = StartResult(verification: view(record, at: now, masked: plan.masked), created: true)
        let sent: @Sendable (DeliveryReceipt) -> Void = { [self] receipt in
            // The code is out: the start answers now, and its attempt is noted behind the answer.
            noteBehind(attempt(record.id, channel: record.channel, step: .start, .success(receipt)))
            reply(.success(started))
        }
        if plan.fixedCode != nil {
            testSink(message)
            return sent(DeliveryReceipt())
        }
        if let immediate = immediateSender, immediate.sendsImmediately(record.channel) {
            do throws(DeliveryError) {
                try immediate.sendImmediately(message)
                return sent(DeliveryReceipt())
            } catch {
                Task { [self] in
                    await note(attempt(record.id, channel: record.channel, step: .start, .failure(error)))
                    await undoSend(record, claim: claim, caps: plan.caps, now: now)
                    reply(.failure(.deliveryFailed(.start, error)))
                }
                return
            }
        }
        Task { [self] in
            do throws(DeliveryError) {
                sent(try await sender.sendWithReceipt(message))
            } catch {
                await note(attempt(record.id, channel: record.channel, step: .start, .failure(error)))
                await undoSend(record, claim: claim, caps: plan.caps, now: now)
                reply(.failure(.deliveryFailed(.start, error)))
            }
        }
    }

    /// Undoes a start whose code was never delivered: the verification is canceled, its key freed
    /// and the send caps given back.
    private func undoSend(
        _ record: VerificationRecord, claim: IdempotencyClaim?, caps: [RatePermit], now: Date
    ) async {
        _ = try? await store.cancel(id: record.id, now: now)
        if let claim { try? await store.releaseIdempotencyKey(claim.key, verificationID: record.id) }
        await release(caps, now: now)
    }

    /// The claim a start makes on its idempotency key, or `nil` without one.
    private func idempotencyClaim(
        for request: StartRequest, now: Date
    ) throws(VerifierError) -> IdempotencyClaim? {
        guard let clientKey = request.idempotencyKey, let key = request.scopedIdempotencyKey else {
            return nil
        }
        guard Self.isValidIdempotencyKey(clientKey) else { throw .invalidIdempotencyKey }
        return IdempotencyClaim(
            key: key, fingerprint: request.fingerprint, expiresAt: now.adding(policy.codeLifetime))
    }

    /// Answers a start whose key the store found live: the verification it started, or a refusal
    /// for another body.
    private func replay(
        _ entry: IdempotencyEntry, request: StartRequest, now: Date,
        reply: @escaping @Sendable (Result<StartResult, VerifierError>) -> Void
    ) {
        guard entry.fingerprint == request.fingerprint else { return reply(.failure(.idempotencyKeyReused)) }
        store.record(id: entry.verificationID) { [self] found in
            switch found {
            case .success(let record?):
                reply(.success(StartResult(verification: view(record, at: now), created: false)))
            case .success(nil): reply(.failure(.storeUnavailable(Self.goneBehindKey)))
            case .failure(let error): reply(.failure(.storeUnavailable(error)))
            }
        }
    }

    /// The failure of a live idempotency key whose verification is gone.
    private static let goneBehindKey = StoreError("the verification behind a live idempotency key is gone")

    /// Asks the start guard about a start or a resend to `destination`; returns when it allows.
    func judge(
        _ screen: StartScreen, destination: Destination, clientAddress: String, owner: String?, isResend: Bool
    ) async throws(VerifierError) {
        let national = destination.callingCode.map { code in
            String(destination.address.dropFirst(1 + code.count).prefix(3))
        }
        let start = GuardedStart(
            channel: destination.channel, callingCode: destination.callingCode,
            to: masking.mask(channel: destination.channel, address: destination.address),
            clientAddress: clientAddress, keyName: owner, proof: nil, nationalPrefix: national,
            destinationHash: hasher.opaqueKey("guard", destination.limitKey), isResend: isResend)
        switch await screen(start) {
        case .allow: return
        case .refuse(let reason): throw .startRefused(reason: reason)
        case .unavailable: throw .startGuardUnavailable
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
        throw .storeUnavailable(Self.goneBehindKey)
    }

    /// What a start takes before its code is made: the rate permits, and the send caps among them
    /// (given back when the send fails), and the fixed code of a test destination.
    private struct StartPlan {
        var destination: Destination
        /// The destination as answers show it, from the number as it was read.
        var masked: String
        var permits: [RatePermit]
        var caps: [RatePermit]
        var fixedCode: String?
        /// The messages' language: the request's, else the number's region's, else `nil` (the policy's).
        var language: TextLanguage?
    }

    /// The request's destination, judged: it parses, its channel and calling code are allowed, and a
    /// phone number passes the number plan's screens; with it, its masked form.
    private func startDestination(
        _ request: StartRequest
    ) throws(VerifierError) -> (destination: Destination, masked: String) {
        if let ref = request.ref,
            ref.isEmpty || ref.count > StartRequest.maxRefCharacters
                || ref.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw .invalidRef
        }
        if request.transaction?.problem != nil { throw .invalidTransaction }
        let (destination, number) = try parseDestination(request)
        guard policy.channels.contains(destination.channel) else {
            throw .channelNotSupported(destination.channel)
        }
        if let allowed = policy.allowedCallingCodes, let code = destination.callingCode,
            !allowed.contains(code)
        {
            throw .callingCodeNotAllowed
        }
        guard let number else {
            return (destination, masking.mask(channel: destination.channel, address: destination.address))
        }
        try screen(number, address: destination.address)
        return (destination, masking.masked(number))
    }

    /// The request's destination, a phone number read by the phone number parser (in E.164, with
    /// its region and type) or an email address; the phone number as the parser read it.
    ///
    /// A number the parser finds not valid is `invalidDestination`, unless it is a test destination
    /// (``Policy/testDestinations``): named by the operator, nothing is ever sent to one.
    private func parseDestination(
        _ request: StartRequest
    ) throws(VerifierError) -> (Destination, PhoneNumber?) {
        let text = request.to.trimmingWhitespace()
        if text.utf8.contains(UInt8(ascii: "@")) {
            return (try Destination.parse(text, channel: request.channel), nil)
        }
        guard !text.isEmpty, text.utf8.count <= Destination.maximumLength,
            let number = phoneNumbers.parse(text, region: request.country),
            var destination = try? Destination.parse(number.e164, channel: nil), destination.channel == .sms
        else { throw .invalidDestination }
        if let channel = request.channel, channel != .sms {
            throw .destinationChannelMismatch(destination: .sms)
        }
        guard number.isValid || testCode(for: destination.address) != nil else {
            throw .invalidDestination
        }
        destination.region = number.region
        destination.numberType = number.type
        return (destination, number)
    }

    /// Judges a phone number by the number plan: it must be of a region in
    /// ``Policy/allowedRegions`` and of a type in ``Policy/smsNumberTypes``.
    ///
    /// A test destination (``Policy/testDestinations``) is exempt from these screens.
    private func screen(_ number: PhoneNumber, address: String) throws(VerifierError) {
        guard testCode(for: address) == nil else { return }
        if let allowed = policy.allowedRegions {
            guard let region = number.region, allowed.contains(region) else {
                throw .destinationNotAllowed(.region)
            }
        }
        if let type = number.type, !policy.smsNumberTypes.contains(type) {
            throw .destinationNotAllowed(.numberType)
        }
    }

    /// The permits a start takes: per destination, per address (and per device when the end user's
    /// is known, and per address for publishable keys), then the send caps; none for a test
    /// destination without limits.
    private func startPlan(
        _ request: StartRequest, destination: Destination, masked: String
    ) throws(VerifierError) -> StartPlan {
        var permits = [
            RatePermit(key: try limitKey("sd", destination.limitKey), limit: policy.startsPerDestination),
            RatePermit(
                key: try limitKey("sa", ClientAddress.limitKey(request.clientAddress)),
                limit: policy.startsPerAddress),
        ]
        if let device = request.endUser?.deviceId {
            // A device keeps its limit when its user moves between addresses.
            permits.append(
                RatePermit(key: try limitKey("sv", device), limit: policy.startsPerAddress))
        }
        if request.owner != nil {
            // Publishable keys live in apps, so their starts get a stricter limit per address of their own.
            permits.append(
                RatePermit(
                    key: try limitKey("so", ClientAddress.limitKey(request.clientAddress)),
                    limit: policy.ownerStartsPerAddress))
        }
        var caps = sendCapPermits(channel: destination.channel, address: destination.address)
        let fixedCode = testCode(for: destination.address)
        if fixedCode != nil, policy.testDestinationsUnlimited {
            permits = []
            caps = []
        }
        permits += caps
        return StartPlan(
            destination: destination, masked: masked, permits: permits, caps: caps, fixedCode: fixedCode,
            language: request.locale ?? RegionLanguages.language(ofRegion: destination.region))
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
            purgeAt: purgeTime(after: expiresAt), locale: (plan.language ?? policy.defaultLocale).rawValue,
            ref: request.ref, transaction: request.transaction)
        return (record, code)
    }

    /// The first message of a new verification.
    private func message(
        for record: VerificationRecord, code: String, request: StartRequest
    ) -> OutgoingMessage {
        MessageTemplate.message(
            verificationID: record.id, channel: record.channel, to: record.destination, code: code,
            policy: policy, language: record.locale.flatMap(TextLanguage.init(rawValue:)),
            transaction: request.transaction)
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
