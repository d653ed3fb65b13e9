import Foundation
import OTPCore
import OTPEngine

// Records as hash fields, and the scripts' replies read back.

extension RedisStore {
    static func time(_ date: Date) -> [UInt8] {
        Array(String(StoreTime.milliseconds(date)).utf8)
    }

    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func number(_ bytes: [UInt8]) -> Int64? {
        Int64(String(decoding: bytes, as: UTF8.self))
    }

    static func failure(_ reply: RedisValue) -> StoreError {
        if case .error(let message) = reply { return StoreError("redis: \(message)") }
        return StoreError("redis: unexpected reply")
    }

    static func pairs(_ flat: some Collection<RedisValue>) -> RedisFields {
        RedisFields(flat)
    }

    /// Splits a script's reply into its outcome, its extra value and the record's fields.
    static func parse(_ reply: RedisValue) throws(StoreError) -> (String, [UInt8], RedisFields) {
        guard case .array(let parts) = reply, parts.count >= 2, let outcome = parts[0].text,
            case .string(let extra) = parts[1]
        else { throw failure(reply) }
        return (outcome, extra, pairs(parts.dropFirst(2)))
    }

    static func fields(of record: VerificationRecord) -> [[UInt8]] {
        let pairs: [(String, [UInt8])] = [
            ("id", Array(record.id.utf8)), ("ch", Array(record.channel.rawValue.utf8)),
            ("dst", Array(record.destination.utf8)), ("len", Array(String(record.codeLength).utf8)),
            ("hash", record.codeHash), ("st", Array(record.state.rawValue.utf8)),
            ("att", Array(String(record.attemptsLeft).utf8)), ("sent", Array(String(record.sendsUsed).utf8)),
            ("cat", time(record.createdAt)), ("exp", time(record.expiresAt)),
            ("rav", record.resendAvailableAt.map(time) ?? []), ("pur", time(record.purgeAt)),
            ("lt", Array((record.resendLease?.token ?? "").utf8)),
            ("lu", record.resendLease.map { time($0.until) } ?? []),
            ("loc", Array((record.locale ?? "").utf8)), ("ref", Array((record.ref ?? "").utf8)),
            ("txn", Array((record.transaction?.canonicalJSON ?? "").utf8)),
        ]
        return pairs.flatMap { [Array($0.0.utf8), $0.1] }
    }

    /// A resend's lease from its stored token and end, or `nil` when none is held.
    static func lease(token: [UInt8]?, until: [UInt8]?) -> ResendLease? {
        guard let token, !token.isEmpty, let until = until.flatMap(number) else { return nil }
        return ResendLease(token: text(token), until: StoreTime.date(milliseconds: until))
    }

    static func record(from fields: RedisFields) throws(StoreError) -> VerificationRecord {
        guard let id = fields["id"].map(text),
            let channel = fields["ch"].map(text).flatMap(Channel.init(rawValue:)),
            let destination = fields["dst"].map(text), let length = fields["len"].flatMap(number),
            let hash = fields["hash"],
            let state = fields["st"].map(text).flatMap(VerificationRecord.State.init(rawValue:)),
            let attempts = fields["att"].flatMap(number), let sends = fields["sent"].flatMap(number),
            let created = fields["cat"].flatMap(number), let expires = fields["exp"].flatMap(number),
            let purge = fields["pur"].flatMap(number)
        else { throw StoreError("redis: malformed verification") }
        let lease = Self.lease(token: fields["lt"], until: fields["lu"])
        return VerificationRecord(
            id: id, channel: channel, destination: destination, codeLength: Int(length), codeHash: hash,
            state: state,
            attemptsLeft: Int(attempts), sendsUsed: Int(sends),
            createdAt: StoreTime.date(milliseconds: created),
            expiresAt: StoreTime.date(milliseconds: expires),
            resendAvailableAt: fields["rav"].flatMap(number).map { StoreTime.date(milliseconds: $0) },
            purgeAt: StoreTime.date(milliseconds: purge), resendLease: lease,
            locale: fields["loc"].map(text).flatMap { $0.isEmpty ? nil : $0 },
            ref: fields["ref"].map(text).flatMap { $0.isEmpty ? nil : $0 },
            transaction: try fields["txn"].map(text).flatMap { $0.isEmpty ? nil : $0 }.map(
                TransactionDetails.stored))
    }
}

/// A reply's field–value pairs (`[field, value, …]`), found by name.
///
/// A reply holds a dozen or so fields: comparing short names costs less than hashing each into a
/// dictionary and hashing it again to read it. A name given twice reads as its last value, as a
/// dictionary built in order would.
struct RedisFields {
    // On a Redis check, hashing the fields into a dictionary was a tenth of the server's work.
    private var names: [String] = []
    private var values: [[UInt8]] = []

    init(_ flat: some Collection<RedisValue>) {
        names.reserveCapacity(flat.count / 2)
        values.reserveCapacity(flat.count / 2)
        var index = flat.startIndex
        while index != flat.endIndex {
            let next = flat.index(after: index)
            guard next != flat.endIndex else { break }
            if let name = flat[index].text, case .string(let value) = flat[next] {
                names.append(name)
                values.append(value)
            }
            index = flat.index(after: next)
        }
    }

    /// The value of `name`, or `nil` when the reply has no such field.
    subscript(name: String) -> [UInt8]? {
        names.lastIndex(of: name).map { values[$0] }
    }
}
