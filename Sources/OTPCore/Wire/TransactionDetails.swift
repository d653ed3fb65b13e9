/// The action a code approves: a payment of an amount in a currency to a payee (PSD2 dynamic linking).
///
/// A verification started with a transaction approves only that transaction: the server binds the
/// code to ``canonicalJSON``, its messages and screens say what is approved, and the approval token
/// carries the SHA-256 of ``canonicalJSON`` so a backend can check it offline.
public struct TransactionDetails: Codable, Sendable, Equatable, Hashable {
    /// The amount as a decimal string, such as `12.50`: digits, and at most one `.` with digits after it.
    public var amount: String
    /// The ISO 4217 currency code: three upper-case letters, such as `EUR`.
    public var currency: String
    /// Who is paid, at most ``maxPayeeCharacters`` characters.
    public var payee: String
    /// A note on the payment, at most ``maxDescriptionCharacters`` characters, or `nil`.
    public var description: String?

    /// The most characters a payee may have.
    public static let maxPayeeCharacters = 64
    /// The most characters a description may have.
    public static let maxDescriptionCharacters = 140
    /// The most characters an amount may have.
    public static let maxAmountCharacters = 24

    /// Creates a transaction; check it with ``problem``.
    public init(amount: String, currency: String, payee: String, description: String? = nil) {
        self.amount = amount
        self.currency = currency
        self.payee = payee
        self.description = description
    }

    /// What is wrong with the transaction, as a sentence naming the member; `nil` when it is valid.
    public var problem: String? {
        if !Self.isDecimal(amount) {
            return "\"transaction.amount\" must be a decimal string such as \"12.50\" "
                + "(digits, at most one point, at most \(Self.maxAmountCharacters) characters)."
        }
        if currency.utf8.count != 3 || !currency.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) {
            return
                "\"transaction.currency\" must be an ISO 4217 code: three upper-case letters such as \"EUR\"."
        }
        if !Self.isPrintable(payee, atMost: Self.maxPayeeCharacters) {
            return "\"transaction.payee\" must be 1 to \(Self.maxPayeeCharacters) characters "
                + "without control characters."
        }
        if let description, !Self.isPrintable(description, atMost: Self.maxDescriptionCharacters) {
            return "\"transaction.description\" must be 1 to \(Self.maxDescriptionCharacters) characters "
                + "without control characters."
        }
        return nil
    }

    /// The transaction as canonical JSON: members in sorted order (`amount`, `currency`,
    /// `description` when present, `payee`), no white space, strings escaped as RFC 8785 does.
    ///
    /// The approval token's `txn.hash` is the base64url SHA-256 of these bytes.
    public var canonicalJSON: String {
        var members = [("amount", amount), ("currency", currency)]
        if let description { members.append(("description", description)) }
        members.append(("payee", payee))
        return CanonicalJSON.object(members.map { ($0.0, CanonicalJSON.string($0.1)) })
    }

    private static func isDecimal(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxAmountCharacters else { return false }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { (0x30...0x39).contains($0) } }
    }

    private static func isPrintable(_ text: String, atMost limit: Int) -> Bool {
        let count = text.count
        return count >= 1 && count <= limit
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
