import Foundation
import OTPCore
import OTPEngine

// Authenticator factors: one hash each, judged by one script.

extension RedisStore {
    /// Stores a new factor.
    public func insertFactor(_ factor: TOTPFactor) async throws(StoreError) {
        let key = factorKey(factor.id)
        let fields: [(String, [UInt8])] = [
            ("id", Array(factor.id.utf8)), ("acc", Array(factor.account.utf8)),
            ("iss", Array(factor.issuer.utf8)),
            ("sec", factor.sealedSecret), ("st", Array(factor.status.rawValue.utf8)),
            ("ls", factor.lastUsedStep.map { Array(String($0).utf8) } ?? []),
            ("f", Array(String(factor.failures).utf8)),
            ("rc", TOTPFactor.concatenated(factor.recoveryHashes)),
            ("cat", Self.time(factor.createdAt)),
            ("lku", factor.lockedUntil.map(Self.time) ?? []), ("lks", Array(String(factor.locks).utf8)),
            ("urc", TOTPFactor.concatenated(factor.usedRecoveryHashes)),
        ]
        let arguments = fields.flatMap { [Array($0.0.utf8), $0.1] }
        let reply = try await evaluate(RedisScripts.insertFactor, keys: [key], arguments: arguments)
        if case .error = reply { throw Self.failure(reply) }
    }

    /// The factor with an identifier.
    public func factor(id: String) async throws(StoreError) -> TOTPFactor? {
        let key = factorKey(id)
        let reply = try await run { connection throws(StoreError) in try connection.command("HGETALL", key) }
        guard case .array(let flat) = reply else { throw Self.failure(reply) }
        guard !flat.isEmpty else { return nil }
        return try Self.factor(from: Self.pairs(flat))
    }

    /// Judges a code in one script.
    public func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement {
        let reply = try await evaluate(
            RedisScripts.judgeFactor, keys: [factorKey(id)],
            arguments: [
                matchedStep.map { Array(String($0).utf8) } ?? [], Array(String(maxFailures).utf8),
                Self.time(now),
                Self.lockSchedule,
            ])
        let (outcome, extra, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let factor = try Self.factor(from: fields)
        switch outcome {
        case "locked": return .locked(factor)
        case "incorrect": return .incorrect(factor)
        case "alreadyUsed": return .alreadyUsed(factor)
        case "accepted": return .accepted(factor, confirmed: extra == [0x31])
        default: throw StoreError("redis: unexpected judgement")
        }
    }

    /// Uses a recovery code in one script.
    public func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPRecovery {
        let reply = try await evaluate(
            RedisScripts.recoverFactor, keys: [factorKey(id)],
            arguments: [hash, Array(String(maxFailures).utf8), Self.time(now), Self.lockSchedule])
        let (outcome, _, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let factor = try Self.factor(from: fields)
        switch outcome {
        case "notActive": return .notActive(factor)
        case "alreadyUsed": return .alreadyUsed(factor)
        case "used": return .used(factor)
        case "unknown": return .unknown(factor)
        case "lockedUnknown": return .lockedUnknown(factor)
        default: throw StoreError("redis: unexpected recovery")
        }
    }

    /// The lock durations in milliseconds, comma separated, the n-th for the n-th lock in a row
    /// (``TOTPFactor/lockDuration(forLock:)``), so the scripts follow the one rule.
    static let lockSchedule = Array(
        (1...(TOTPFactor.maxLockDoublings + 1)).map {
            String(StoreTime.milliseconds(TOTPFactor.lockDuration(forLock: $0)))
        }
        .joined(separator: ",").utf8)

    /// Replaces the recovery codes in one script.
    public func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor? {
        let reply = try await evaluate(
            RedisScripts.replaceRecoveryCodes, keys: [factorKey(id)],
            arguments: [TOTPFactor.concatenated(hashes)])
        let (outcome, _, fields) = try Self.parse(reply)
        return outcome == "notFound" ? nil : try Self.factor(from: fields)
    }

    /// Deletes a factor.
    public func deleteFactor(id: String) async throws(StoreError) -> Bool {
        let key = factorKey(id)
        let reply = try await run { connection throws(StoreError) in try connection.command("DEL", key) }
        guard case .integer(let count) = reply else { throw Self.failure(reply) }
        return count > 0
    }

    static func factor(from fields: RedisFields) throws(StoreError) -> TOTPFactor {
        guard let id = fields["id"].map(text), let account = fields["acc"].map(text),
            let issuer = fields["iss"].map(text), let sealed = fields["sec"],
            let status = fields["st"].map(text).flatMap(TOTPFactor.Status.init(rawValue:)),
            let failures = fields["f"].flatMap(number), let created = fields["cat"].flatMap(number)
        else { throw StoreError("redis: malformed factor") }
        guard let recovery = TOTPFactor.recoveryHashes(concatenated: fields["rc"] ?? []),
            let used = TOTPFactor.recoveryHashes(concatenated: fields["urc"] ?? [])
        else {
            throw StoreError("redis: malformed factor")
        }
        let last = fields["ls"].flatMap { $0.isEmpty ? nil : number($0) }
        return TOTPFactor(
            id: id, account: account, issuer: issuer, sealedSecret: sealed, status: status,
            lastUsedStep: last,
            failures: Int(failures), recoveryHashes: recovery,
            createdAt: StoreTime.date(milliseconds: created),
            lockedUntil: fields["lku"].flatMap { $0.isEmpty ? nil : number($0) }.map {
                StoreTime.date(milliseconds: $0)
            },
            locks: Int(fields["lks"].flatMap(number) ?? 0), usedRecoveryHashes: used)
    }
}
