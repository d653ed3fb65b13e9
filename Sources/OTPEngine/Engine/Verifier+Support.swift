import Foundation
import OTPCore

/// One verification as a support view shows it: as the API answers it, with its delivery attempts.
public struct SupportedVerification: Sendable, Equatable {
    /// The verification, its destination masked.
    public var verification: Verification
    /// Its delivery attempts, oldest first.
    public var deliveries: [DeliveryAttempt]

    /// Creates an entry.
    public init(verification: Verification, deliveries: [DeliveryAttempt]) {
        self.verification = verification
        self.deliveries = deliveries
    }
}

/// One page of a search for the verifications sent to a destination.
public struct VerificationPage: Sendable, Equatable {
    /// The verifications found, newest first.
    public var items: [SupportedVerification]
    /// Where the next page starts, or `nil` when this page is the last.
    public var next: VerificationCursor?

    /// Creates a page.
    public init(items: [SupportedVerification], next: VerificationCursor?) {
        self.items = items
        self.next = next
    }
}

extension Verifier {
    /// The largest page a search answers.
    public static let maxSearchLimit = 100

    /// The verifications sent to a destination, newest first, one page at a time, each with its
    /// delivery attempts: what support staff read to answer "why didn't my code arrive?".
    ///
    /// The destination is parsed as a start parses it (``Destination/parse(_:channel:)``), so
    /// `+1 (202) 555-0123` finds the verifications to `+12025550123`, and is then matched exactly.
    /// A text that is no destination throws `invalidDestination`.
    ///
    /// - Parameters:
    ///   - destination: a phone number or email address, as a start would take it.
    ///   - status: only verifications with this status now, or any.
    ///   - since: only verifications created at or after this time, or any.
    ///   - after: where the page starts: the cursor of the page before, or `nil` for the first.
    ///   - limit: the most verifications on the page, brought into 1 through ``maxSearchLimit``.
    /// - Returns: the page, and the cursor of the next one when there is more.
    /// - Throws: `invalidDestination` for a text that is no destination, `storeUnavailable` when
    ///   the store fails.
    public func verifications(
        to destination: String, status: VerificationStatus? = nil, since: Date? = nil,
        after: VerificationCursor? = nil, limit: Int = 20
    ) async throws(VerifierError) -> VerificationPage {
        let now = currentTime()
        let parsed = try Destination.parse(destination, channel: nil)
        let size = min(max(1, limit), Self.maxSearchLimit)
        let query = VerificationQuery(
            destination: parsed.address, status: status, since: since, after: after, limit: size + 1)
        let found = try await storeCall { () async throws(StoreError) in
            try await store.verifications(matching: query, now: now)
        }
        let page = Array(found.prefix(size))
        var items: [SupportedVerification] = []
        for record in page {
            await notesInFlight.settled(record.id)
            let attempts = try await storeCall { () async throws(StoreError) in
                try await store.deliveries(id: record.id)
            }
            items.append(SupportedVerification(verification: view(record, at: now), deliveries: attempts))
        }
        let next = found.count > size ? page.last.map(VerificationCursor.init(after:)) : nil
        return VerificationPage(items: items, next: next)
    }

    /// A verification's delivery attempts, oldest first; `notFound` for an unknown verification.
    ///
    /// A start answers before its attempt is written; this waits for the attempts this verifier
    /// has handed to the store and not yet seen written, so it never misses one.
    public func deliveries(id: String) async throws(VerifierError) -> [DeliveryAttempt] {
        let record = try await load(id)
        await notesInFlight.settled(record.id)
        return try await storeCall { () async throws(StoreError) in try await store.deliveries(id: record.id)
        }
    }
}
