import Foundation
import OTPCore

extension Verifier {
    /// Starts a verification and sends its first code.
    ///
    /// Judged in this order: the destination and channel, the idempotency key (a replay
    /// answers the same verification with `created == false`, a different body
    /// `idempotencyKeyReused`), the rate limits per destination, per client address and in
    /// all (`rateLimited`), then the code is made, stored and sent. A delivery failure
    /// cancels the verification, frees the idempotency key and throws `deliveryFailed`.
    public func start(_ request: StartRequest) async throws(VerifierError) -> StartResult {
        let now = currentTime()
        let destination = try Destination.parse(request.to, channel: request.channel)
        guard policy.channels.contains(destination.channel) else {
            throw .channelNotSupported(destination.channel)
        }
        if let allowed = policy.allowedCallingCodes, let code = destination.callingCode,
            !allowed.contains(code)
        {
            throw .callingCodeNotAllowed
        }
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
        try await acquire(permits, now: now)

        let id = newID(owner: request.owner)
        let code = fixedCode ?? newCode()
        let expiresAt = now.adding(policy.codeLifetime)
        let record = VerificationRecord(
            id: id, channel: destination.channel, destination: destination.address,
            codeLength: policy.codeFormat.length, codeHash: try hash(id: id, code: code), state: .pending,
            attemptsLeft: policy.maxAttempts, sendsUsed: 1, createdAt: now, expiresAt: expiresAt,
            resendAvailableAt: policy.maxSends > 1 ? now.adding(policy.cooldown(afterSend: 1)) : nil,
            purgeAt: purgeTime(after: expiresAt), locale: (request.locale ?? policy.defaultLocale).rawValue)
        let inserted: InsertOutcome
        do {
            inserted = try await storeCall { () async throws(StoreError) in
                try await store.insert(record, claim: claim, now: now)
            }
        } catch {
            // The reply may have been lost after the store wrote: undo what may be there, so the key
            // is not held by a verification whose code was never sent.
            _ = try? await store.cancel(id: id, now: now)
            if let claim { try? await store.releaseIdempotencyKey(claim.key, verificationID: id) }
            await release(permits, now: now)
            throw error
        }
        if case .replay(let entry) = inserted {
            // Another start with the same key won the race; this one sends nothing.
            await release(permits, now: now)
            if let replay = try await replay(entry, request: request, now: now) { return replay }
            throw .storeUnavailable(StoreError("the verification behind a live idempotency key is gone"))
        }

        let message = MessageTemplate.message(
            verificationID: id, channel: destination.channel, to: destination.address, code: code,
            policy: policy, language: request.locale)
        do {
            try await sender.send(message)
        } catch {
            _ = try? await store.cancel(id: id, now: now)
            if let claim { try? await store.releaseIdempotencyKey(claim.key, verificationID: id) }
            await release(caps, now: now)
            throw .deliveryFailed(.start, error)
        }
        return StartResult(verification: view(record, at: now), created: true)
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
