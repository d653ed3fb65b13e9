import Foundation
import OTPCore
import Testing

@testable import OTPTokens

@Suite struct ApprovalClaimsTests {
    typealias F = TokenFixtures

    static let payment = TransactionDetails(amount: "12.50", currency: "EUR", payee: "ACME Ltd")

    static func claims(
        phoneNumber: String? = "+15550100", email: String? = nil, test: Bool = false, ref: String? = nil,
        nonce: String? = nil, txn: TransactionClaim? = nil
    ) -> ApprovalClaims {
        var claims = F.claims()
        claims.phoneNumber = phoneNumber
        claims.email = email
        claims.channel = email == nil ? "sms" : "email"
        claims.test = test
        claims.ref = ref
        claims.nonce = nonce
        claims.txn = txn
        return claims
    }

    @Test("the transaction hash is the base64url SHA-256 of the canonical JSON, members sorted")
    func transactionHashVector() throws {
        #expect(Self.payment.canonicalJSON == #"{"amount":"12.50","currency":"EUR","payee":"ACME Ltd"}"#)
        // sha256 of the canonical JSON above, computed with Python's hashlib and base64.urlsafe_b64encode.
        #expect(TransactionClaim.hash(of: Self.payment) == "rRFQskQnoZaakC1zGkutBZkT2dQXgshVR4YA3KZ4AWg")
        var described = Self.payment
        described.description = "Invoice \"7\"\n"
        #expect(
            described.canonicalJSON
                == #"{"amount":"12.50","currency":"EUR","description":"Invoice \"7\"\n","payee":"ACME Ltd"}"#)
        #expect(TransactionClaim.hash(of: described) != TransactionClaim.hash(of: Self.payment))
    }

    @Test("every claim a backend checks survives signing: destination, test, ref, nonce, txn")
    func fullClaimsRoundTrip() throws {
        let txn = try #require(TransactionClaim(Self.payment))
        let claims = Self.claims(test: true, ref: "user-42", nonce: "n-0123456789abcdef", txn: txn)
        let token = F.token(claims)
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        let text = String(decoding: payload, as: UTF8.self)
        #expect(text.contains(#""phone_number":"+15550100","phone_number_verified":true"#))
        #expect(text.contains(#""test":true"#))
        #expect(text.contains(#""txn":{"amount":"12.50","currency":"EUR","hash":""#))
        let verified = try F.verifier().verify(
            token,
            expecting: ApprovalExpectations(
                nonce: "n-0123456789abcdef", transactionHash: txn.hash, allowsTestDestinations: true))
        #expect(verified == claims)
        let mail = Self.claims(phoneNumber: nil, email: "a@example.org")
        #expect(try F.verifier().verify(F.token(mail)).email == "a@example.org")
    }

    @Test("a token for someone else's phone number fails the backend's expectation")
    func tokenSubstitution() {
        let attackers = F.token(Self.claims(phoneNumber: "+15550199"))
        F.expectRejected(
            attackers, as: .wrongDestination,
            expecting: ApprovalExpectations(phoneNumber: "+15550100"))
        F.expectRejected(
            F.token(Self.claims(phoneNumber: nil, email: "eve@example.org")), as: .wrongDestination,
            expecting: ApprovalExpectations(phoneNumber: "+15550100"))
        F.expectRejected(
            F.token(Self.claims(phoneNumber: nil, email: "eve@example.org")), as: .wrongDestination,
            expecting: ApprovalExpectations(email: "alice@example.org"))
        // Email addresses compare without regard to case.
        #expect(
            (try? F.verifier().verify(
                F.token(Self.claims(phoneNumber: nil, email: "Alice@Example.org")),
                expecting: ApprovalExpectations(email: "alice@example.org"))) != nil)
    }

    @Test("a token from another sign-in's flow fails the nonce and ref expectations")
    func flowInjection() {
        let other = F.token(Self.claims(ref: "attempt-1", nonce: "attacker-nonce-000000"))
        F.expectRejected(
            other, as: .wrongNonce, expecting: ApprovalExpectations(nonce: "victim-nonce-11111111"))
        F.expectRejected(other, as: .wrongRef, expecting: ApprovalExpectations(ref: "attempt-2"))
        F.expectRejected(
            F.token(Self.claims()), as: .wrongNonce,
            expecting: ApprovalExpectations(nonce: "victim-nonce-11111111"))
    }

    @Test("a token for another transaction, or none, fails the transaction expectation")
    func transactionTampering() throws {
        let txn = try #require(TransactionClaim(Self.payment))
        let token = F.token(Self.claims(txn: txn))
        #expect(
            (try? F.verifier().verify(token, expecting: ApprovalExpectations(transaction: Self.payment)))
                != nil)
        #expect(
            (try? F.verifier().verify(token, expecting: ApprovalExpectations(transactionHash: txn.hash)))
                != nil)
        var other = Self.payment
        other.payee = "Mallory Ltd"
        F.expectRejected(token, as: .wrongTransaction, expecting: ApprovalExpectations(transaction: other))
        F.expectRejected(
            F.token(Self.claims()), as: .wrongTransaction,
            expecting: ApprovalExpectations(transaction: Self.payment))
        F.expectRejected(
            token, as: .wrongTransaction, expecting: ApprovalExpectations(transactionHash: "AAAA"))
        // A txn whose shown payee differs from what its hash covers is refused too.
        var forged = txn
        forged.payee = "Mallory Ltd"
        F.expectRejected(
            F.token(Self.claims(txn: forged)), as: .wrongTransaction,
            expecting: ApprovalExpectations(transaction: Self.payment))
    }

    @Test("a token that approves a transaction does not pass a check that expects none, such as a sign-in")
    func transactionTokenIsNoSignIn() throws {
        let txn = try #require(TransactionClaim(Self.payment))
        let payment = F.token(Self.claims(txn: txn))
        // The sign-in's expectations name the person's number, which the payment's token verified too.
        F.expectRejected(
            payment, as: .wrongTransaction, expecting: ApprovalExpectations(phoneNumber: "+15550100"))
        F.expectRejected(payment, as: .wrongTransaction, expecting: ApprovalExpectations())
        // The same person's token without a transaction signs them in.
        #expect(
            (try? F.verifier().verify(
                F.token(Self.claims()), expecting: ApprovalExpectations(phoneNumber: "+15550100"))) != nil)
        // Named, the transaction lets its token through.
        #expect(
            (try? F.verifier().verify(
                payment, expecting: ApprovalExpectations(phoneNumber: "+15550100", transaction: Self.payment)))
                != nil)
    }

    @Test("a test destination's token is refused unless test tokens are allowed")
    func testDestinations() {
        let token = F.token(Self.claims(test: true))
        F.expectRejected(token, as: .testDestination, expecting: ApprovalExpectations())
        #expect(
            (try? F.verifier().verify(token, expecting: ApprovalExpectations(allowsTestDestinations: true)))
                != nil)
    }

    @Test("a token naming no verified destination, or two, or one not marked verified, is malformed")
    func destinationRequired() {
        let none = Self.claims(phoneNumber: nil)
        F.expectRejected(F.token(none), as: .malformed)
        F.expectRejected(
            F.token(Self.claims(phoneNumber: "+15550100", email: "a@example.org")), as: .malformed)
        let unverified =
            #"{"aud":"https://app.example.com","channel":"sms","exp":\#(F.now + 100),"iat":\#(F.now),"#
            + #""iss":"https://otp.example.com","jti":"j","phone_number":"+15550100","#
            + #""phone_number_verified":false,"sub":"s"}"#
        F.expectRejected(
            F.token(header: F.header(), payload: unverified, signedBy: F.currentKey), as: .malformed)
    }
}
