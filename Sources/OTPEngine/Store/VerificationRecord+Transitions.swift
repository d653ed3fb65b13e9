import Foundation

/// The rules of every atomic step, as pure value transitions.
///
/// The memory and SQLite stores run them inside their atomic step; the Redis store runs the
/// same rules in Lua. The shared conformance suite holds all three to them.
extension VerificationRecord {
    /// Marks the verification approved when it is still pending.
    public mutating func approve() -> TransitionOutcome {
        guard state == .pending else { return .notPending(self) }
        state = .approved
        resendLease = nil
        return .done(self)
    }

    /// Marks the verification canceled when it is still pending (locked and expired included).
    public mutating func cancel() -> TransitionOutcome {
        guard state == .pending else { return .notPending(self) }
        state = .canceled
        resendLease = nil
        return .done(self)
    }

    /// Claims the next send when the state, the send count, the cooldown and other resends allow it.
    public mutating func beginResend(lease: ResendLease, maxSends: Int, now: Date) -> BeginResendOutcome {
        guard state == .pending else { return .notPending(self) }
        guard sendsUsed < maxSends else { return .maxSendsReached(self) }
        if let available = resendAvailableAt, now < available { return .tooSoon(self, until: available) }
        if let held = resendLease, now < held.until { return .tooSoon(self, until: held.until) }
        resendLease = lease
        return .begun(self)
    }

    /// Puts a resend's new code in place when the lease is still held.
    public mutating func finishResend(token: String, update: CodeUpdate) -> TransitionOutcome {
        guard state == .pending else { return .notPending(self) }
        guard resendLease?.token == token else { return .leaseLost(self) }
        codeHash = update.codeHash
        attemptsLeft = update.attemptsLeft
        sendsUsed = update.sendsUsed
        expiresAt = update.expiresAt
        resendAvailableAt = update.resendAvailableAt
        purgeAt = update.purgeAt
        resendLease = nil
        return .done(self)
    }

    /// Gives up a resend's lease; the previous code stays as it was.
    public mutating func abandonResend(token: String) {
        if resendLease?.token == token {
            resendLease = nil
        }
    }
}
