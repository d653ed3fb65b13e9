import Foundation
import OTPCore

extension Verifier {
    /// Sends a new code: the old one stops working, attempts reset, the next cooldown starts.
    ///
    /// Allowed from pending, locked and expired. Judged in this order: the verification
    /// exists (`notFound`), it is not approved or canceled (`notPending`), a send is left
    /// (`maxSendsReached`, `retryAfter` the time until the current code expires), the
    /// cooldown has run (`resendTooSoon`), the pumping guard's blocks (`destinationBlocked`), the
    /// global send cap (`rateLimited`). The send is
    /// claimed in the store first, so parallel resends send one message; a delivery
    /// failure (`deliveryFailed`) leaves the previous code valid and uses up no send. With
    /// `screen`, the start guard is asked after those judgements and before the send is claimed
    /// (`startRefused`, `startGuardUnavailable`).
    public func resend(
        id: String, clientAddress: String, screen: StartScreen? = nil
    ) async throws(VerifierError) -> Verification {
        let now = currentTime()
        let record = try await load(id)
        let lease = ResendLease(
            token: random.withGenerator { VerificationID.make(using: &$0) },
            until: now.adding(Self.resendLeaseDuration))
        // Judge on the record just read first, so a refused resend takes no permit; the store judges again atomically.
        var probe = record
        try throwResendRefusal(probe.beginResend(lease: lease, maxSends: policy.maxSends, now: now), now: now)

        // A resend sends a paid message too: refused while the pumping guard blocks its prefix or region.
        if let subject = fraudSubject(channel: record.channel, address: record.destination) {
            _ = try await fraudGate(subject, address: record.destination, now: now)
        }
        let fixedCode = testCode(for: record.destination)
        let global =
            fixedCode != nil && policy.testDestinationsUnlimited
            ? [] : sendCapPermits(channel: record.channel, address: record.destination)
        try await acquire(global, now: now)
        if let screen {
            do {
                let destination = try Destination.parse(record.destination, channel: record.channel)
                try await judge(
                    screen, destination: destination, clientAddress: clientAddress,
                    owner: nil, isResend: true)
            } catch {
                await release(global, now: now)
                throw error
            }
        }
        let claimed = try await storeCall { () async throws(StoreError) in
            try await store.beginResend(id: id, lease: lease, maxSends: policy.maxSends, now: now)
        }
        guard case .begun(let begun) = claimed else {
            await release(global, now: now)
            try throwResendRefusal(claimed, now: now)
            throw .internalFailure
        }

        let code = fixedCode ?? newCode()
        let codeHash: [UInt8]
        let receipt: DeliveryReceipt
        do {
            codeHash = try hash(id: id, code: code, transaction: record.transaction)
            let message = MessageTemplate.message(
                verificationID: id, channel: begun.channel, to: begun.destination, code: code, policy: policy,
                language: record.locale.flatMap(TextLanguage.init(rawValue:)), transaction: record.transaction
            )
            receipt = try await deliver(message, isTest: fixedCode != nil)
        } catch {
            let failure = error as? DeliveryError
            if let failure {
                await note(attempt(id, channel: begun.channel, step: .resend, .failure(failure)))
            }
            try? await store.abandonResend(id: id, token: lease.token)
            await release(global, now: now)
            throw .deliveryFailed(.resend, failure)
        }
        await note(attempt(id, channel: begun.channel, step: .resend, .success(receipt)))

        let sentAt = max(now, currentTime())
        let sendsUsed = begun.sendsUsed + 1
        let expiresAt = sentAt.adding(policy.codeLifetime)
        let update = CodeUpdate(
            codeHash: codeHash, attemptsLeft: policy.maxAttempts, sendsUsed: sendsUsed, expiresAt: expiresAt,
            resendAvailableAt: sendsUsed < policy.maxSends
                ? sentAt.adding(policy.cooldown(afterSend: sendsUsed)) : nil,
            purgeAt: purgeTime(after: expiresAt))
        let finished = try await storeCall { () async throws(StoreError) in
            try await store.finishResend(id: id, token: lease.token, update: update, now: sentAt)
        }
        switch finished {
        case .done(let record): return view(record, at: sentAt)
        case .notFound: throw .notFound
        case .notPending: throw .notPending
        case .leaseLost(let record):
            // The delivery outlived its lease and another resend took over; that one's code counts.
            let wait = record.resendAvailableAt.map {
                StoreTime.milliseconds($0) - StoreTime.milliseconds(sentAt)
            }
            throw .resendTooSoon(retryAfter: .milliseconds(wait ?? 1000))
        }
    }

    /// Throws the answer for a resend the rules refuse; returns for `.begun`.
    private func throwResendRefusal(_ outcome: BeginResendOutcome, now: Date) throws(VerifierError) {
        switch outcome {
        case .begun: return
        case .notFound: throw .notFound
        case .notPending: throw .notPending
        case .maxSendsReached(let record):
            throw .maxSendsReached(
                retryAfter: .milliseconds(
                    StoreTime.milliseconds(record.expiresAt) - StoreTime.milliseconds(now)))
        case .tooSoon(_, let until):
            throw .resendTooSoon(
                retryAfter: .milliseconds(StoreTime.milliseconds(until) - StoreTime.milliseconds(now)))
        }
    }
}
