import OTPCore

/// What a backend expects an approval token to say beyond its issuer and audience: the claims it
/// must carry, exactly.
///
/// Set every member the backend knows. A backend that signs people in by phone number sets
/// ``phoneNumber`` to the number it is signing in, so a token from someone else's verification
/// never passes; a hosted flow sets ``nonce`` to the value it chose for this sign-in.
///
/// A token that approves a transaction (it carries `txn`) passes only expectations that name that
/// transaction (``transaction`` or ``transactionHash``): the code the person typed was for a
/// payment, so the token does not also sign them in.
public struct ApprovalExpectations: Sendable, Equatable {
    /// The `nonce` the backend gave the hosted start, or `nil` to not check it.
    public var nonce: String?
    /// The `ref` the start carried, or `nil` to not check it.
    public var ref: String?
    /// The E.164 phone number that must have been verified, or `nil`.
    public var phoneNumber: String?
    /// The email address that must have been verified (compared without regard to case), or `nil`.
    public var email: String?
    /// The transaction the code must have approved, or `nil` to accept only a token that approves
    /// none (unless ``transactionHash`` is set).
    public var transaction: TransactionDetails?
    /// The `txn.hash` the token must carry (the base64url SHA-256 of the canonical JSON), or `nil`
    /// to accept only a token that approves no transaction (unless ``transaction`` is set).
    public var transactionHash: String?
    /// Whether a token for one of the server's test destinations passes; `false` by default.
    public var allowsTestDestinations: Bool

    /// Makes expectations; each `nil` member is not checked, except that with neither
    /// `transaction` nor `transactionHash` a token that approves a transaction is refused.
    public init(
        nonce: String? = nil, ref: String? = nil, phoneNumber: String? = nil, email: String? = nil,
        transaction: TransactionDetails? = nil, transactionHash: String? = nil,
        allowsTestDestinations: Bool = false
    ) {
        self.nonce = nonce
        self.ref = ref
        self.phoneNumber = phoneNumber
        self.email = email
        self.transaction = transaction
        self.transactionHash = transactionHash
        self.allowsTestDestinations = allowsTestDestinations
    }

    /// The first expectation `claims` break, or `nil` when they meet every one.
    func violation(of claims: ApprovalClaims) -> ApprovalTokenError? {
        if let nonce, !Self.equal(claims.nonce, nonce) {
            return .wrongNonce("the token's nonce is not the one chosen for this sign-in")
        }
        if let ref, !Self.equal(claims.ref, ref) {
            return .wrongRef("the token's ref is not the expected one")
        }
        if let phoneNumber, !Self.equal(claims.phoneNumber, phoneNumber) {
            return .wrongDestination("the token does not verify the expected phone number")
        }
        if let email, !Self.equal(claims.email?.lowercased(), email.lowercased()) {
            return .wrongDestination("the token does not verify the expected email address")
        }
        if let transaction {
            guard let expected = TransactionClaim.hash(of: transaction) else {
                return .wrongTransaction("the expected transaction could not be hashed")
            }
            guard let txn = claims.txn, Self.equal(txn.hash, expected), txn.amount == transaction.amount,
                txn.currency == transaction.currency, txn.payee == transaction.payee
            else { return .wrongTransaction("the token does not approve the expected transaction") }
        }
        if let transactionHash, !Self.equal(claims.txn?.hash, transactionHash) {
            return .wrongTransaction("the token's transaction hash is not the expected one")
        }
        if claims.txn != nil, transaction == nil, transactionHash == nil {
            return .wrongTransaction(
                "the token approves a transaction; only a check that expects that transaction accepts it")
        }
        if claims.test, !allowsTestDestinations {
            return .testDestination("the token is for a test destination, whose code is fixed")
        }
        return nil
    }

    /// Whether a claim is present and equal to the expected text, compared in time independent of
    /// where the first difference is.
    private static func equal(_ claim: String?, _ expected: String) -> Bool {
        guard let claim else { return false }
        let left = Array(claim.utf8)
        let right = Array(expected.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
