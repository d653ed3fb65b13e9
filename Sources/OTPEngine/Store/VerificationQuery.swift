import Foundation
import OTPCore

/// A search for the verifications sent to one destination, newest first, one page at a time.
public struct VerificationQuery: Sendable, Equatable {
    /// The destination as the engine stores it (``Destination/address``), matched exactly.
    public var destination: String
    /// Only verifications with this status at the search's time, or any when `nil`.
    public var status: VerificationStatus?
    /// Only verifications created at or after this time, or any when `nil`.
    public var since: Date?
    /// The last verification of the page before: answers come after it, newest first.
    public var after: VerificationCursor?
    /// The most verifications one answer holds.
    public var limit: Int

    /// Creates a query.
    public init(
        destination: String, status: VerificationStatus? = nil, since: Date? = nil,
        after: VerificationCursor? = nil, limit: Int
    ) {
        self.destination = destination
        self.status = status
        self.since = since
        self.after = after
        self.limit = limit
    }

    /// Whether a record belongs to the answer at a time: its destination, status, creation time
    /// and place after the cursor.
    public func matches(_ record: VerificationRecord, now: Date) -> Bool {
        guard record.destination == destination else { return false }
        if let status, record.status(at: now) != status { return false }
        if let since, StoreTime.milliseconds(record.createdAt) < StoreTime.milliseconds(since) {
            return false
        }
        if let after, !after.precedes(record) { return false }
        return true
    }

    /// Whether `first` comes before `second` in an answer: the newer first, then the larger id.
    public static func newestFirst(_ first: VerificationRecord, _ second: VerificationRecord) -> Bool {
        let one = StoreTime.milliseconds(first.createdAt)
        let two = StoreTime.milliseconds(second.createdAt)
        return one != two ? one > two : first.id > second.id
    }
}

/// A place in a search's answer: the creation time (in milliseconds) and id of its last verification.
public struct VerificationCursor: Sendable, Equatable {
    /// The verification's creation time, in milliseconds since 1970.
    public var createdAtMilliseconds: Int64
    /// The verification's identifier.
    public var id: String

    /// Creates a cursor at a verification's place.
    public init(createdAtMilliseconds: Int64, id: String) {
        self.createdAtMilliseconds = createdAtMilliseconds
        self.id = id
    }

    /// The cursor just after a record.
    public init(after record: VerificationRecord) {
        self.init(createdAtMilliseconds: StoreTime.milliseconds(record.createdAt), id: record.id)
    }

    /// Whether a record comes after this place, newest first: created earlier, or at the same
    /// millisecond with a smaller id.
    public func precedes(_ record: VerificationRecord) -> Bool {
        let created = StoreTime.milliseconds(record.createdAt)
        return created < createdAtMilliseconds || (created == createdAtMilliseconds && record.id < id)
    }

    /// The opaque text a client passes back: base64url of `milliseconds.id`, without padding.
    public var token: String {
        Data("\(createdAtMilliseconds).\(id)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The cursor a token names, or `nil` when the text is not one this type made.
    public init?(token: String) {
        guard !token.isEmpty, token.count <= 400,
            token.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            })
        else { return nil }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            let dot = text.firstIndex(of: ".")
        else { return nil }
        let id = String(text[text.index(after: dot)...])
        guard let milliseconds = Int64(text[..<dot]), milliseconds >= 0, !id.isEmpty,
            id.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        self.init(createdAtMilliseconds: milliseconds, id: id)
    }
}
