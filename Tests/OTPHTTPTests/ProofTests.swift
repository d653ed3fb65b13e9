import Foundation
import OTPCore
import OTPDelivery
import OTPEngine
import OTPTokens
import Testing

@testable import OTPHTTP

/// What an approval proves (issue: the proof names who was verified, for which sign-in and action).
@Suite struct ProofTests {
    static let ios = "pk_ios_0123456789abcdefghijk"
    static let nonce = HostedPageTests.nonce
    static let payment = #"{"amount":"12.50","currency":"EUR","payee":"ACME Ltd"}"#

    /// The token's claims, checked against the server's published key set for the `ios` key.
    static func claims(
        _ token: String, _ harness: Harness, expecting: ApprovalExpectations = ApprovalExpectations()
    ) async throws -> ApprovalClaims {
        let keys = try await harness.call("GET", "/.well-known/jwks.json", key: .some(nil))
        let now = harness.clock.now
        let verifier = ApprovalTokenVerifier(
            keySet: try JSONWebKeySet.decode(keys.body), issuer: "otpkit", audience: "ios", now: { now })
        return try verifier.verify(token, expecting: expecting)
    }

    /// Starts through the app's publishable key and approves; returns the approving answer.
    static func approveThroughApp(
        _ harness: Harness, body: String
    ) async throws -> RawResponse {
        let started = try await harness.call("POST", "/v1/verifications", json: body, key: .some(ios))
        guard started.status == 201, let id = started.json["id"] as? String else {
            throw HarnessError.unexpected(started.status, started.text)
        }
        return try await harness.call(
            "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(try harness.code(for: id))"}"#,
            key: .some(ios))
    }

    @Test("an app's approval token names the verified phone number, its ref, and verifies only for it")
    func appTokenNamesPhone() async throws {
        try await Harness.with(checkFloor: .zero, publishableKeys: ["ios": Self.ios]) { harness in
            let good = try await Self.approveThroughApp(
                harness, body: #"{"to":"+1 (201) 555-0100","ref":"user-42"}"#)
            #expect(good.status == 200)
            #expect(good.json["ref"] as? String == "user-42")
            let token = try #require(good.json["approvalToken"] as? String)
            let claims = try await Self.claims(
                token, harness, expecting: ApprovalExpectations(ref: "user-42", phoneNumber: "+12015550100"))
            #expect(claims.phoneNumber == "+12015550100")
            #expect(claims.email == nil)
            #expect(claims.test == false)
            // The attacker's own verified number does not sign the victim in.
            await #expect(throws: ApprovalTokenError.self) {
                _ = try await Self.claims(
                    token, harness, expecting: ApprovalExpectations(phoneNumber: "+12015550199"))
            }
        }
    }

    @Test(
        "an email approval names the address; a test destination's token says test and is refused by default")
    func emailAndTestTokens() async throws {
        var policy = Policy()
        policy.testDestinations = ["+12015550155": "123456"]
        try await Harness.with(policy: policy, checkFloor: .zero, publishableKeys: ["ios": Self.ios]) {
            harness in
            let mail = try await Self.approveThroughApp(harness, body: #"{"to":"alice@example.org"}"#)
            let mailClaims = try await Self.claims(
                try #require(mail.json["approvalToken"] as? String), harness,
                expecting: ApprovalExpectations(email: "alice@example.org"))
            #expect(mailClaims.email == "alice@example.org")
            #expect(mailClaims.phoneNumber == nil)

            let started = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550155"}"#, key: .some(Self.ios))
            let id = try #require(started.json["id"] as? String)
            #expect(harness.sends(for: id) == 0, "a test destination is never sent to")
            let approved = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"123456"}"#, key: .some(Self.ios))
            let token = try #require(approved.json["approvalToken"] as? String)
            await #expect(throws: ApprovalTokenError.self) { _ = try await Self.claims(token, harness) }
            let claims = try await Self.claims(
                token, harness, expecting: ApprovalExpectations(allowsTestDestinations: true))
            #expect(claims.test)
            #expect(claims.phoneNumber == "+12015550155")
        }
    }

    @Test("a ref of more than 128 characters, or with control characters, is 400 and sends nothing")
    func refBounds() async throws {
        try await Harness.with { harness in
            for ref in [String(repeating: "r", count: 129), "a\\u0007b", ""] {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+12015550100","ref":"\#(ref)"}"#)
                #expect(response.status == 400, "\(ref.prefix(10))")
                #expect(response.errorCode == "invalid_request")
            }
            let fine = try await harness.call(
                "POST", "/v1/verifications",
                json: #"{"to":"+12015550100","ref":"\#(String(repeating: "r", count: 128))"}"#)
            #expect(fine.status == 201)
        }
    }

    @Test("a code bound to a transaction: the SMS says it, the token carries its hash, a resend keeps it")
    func transactionBinding() async throws {
        try await Harness.with(checkFloor: .zero, publishableKeys: ["ios": Self.ios]) { harness in
            let started = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550100","transaction":\#(Self.payment)}"#,
                key: .some(Self.ios))
            #expect(started.status == 201)
            let id = try #require(started.json["id"] as? String)
            let shown = try #require(started.json["transaction"] as? [String: String])
            #expect(shown == ["amount": "12.50", "currency": "EUR", "payee": "ACME Ltd"])
            let messages = try OutboxSender.entries(path: harness.outbox).filter { $0.verificationId == id }
            #expect(messages.last?.body.contains("Approve 12.50 EUR to ACME Ltd.") == true)
            harness.clock.advance(seconds: 31)
            let resent = try await harness.call(
                "POST", "/v1/verifications/\(id)/resend", key: .some(Self.ios))
            #expect(resent.status == 200)
            #expect((resent.json["transaction"] as? [String: String])?["payee"] == "ACME Ltd")
            let good = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(try harness.code(for: id))"}"#,
                key: .some(Self.ios))
            #expect(good.status == 200)
            let transaction = TransactionDetails(amount: "12.50", currency: "EUR", payee: "ACME Ltd")
            let claims = try await Self.claims(
                try #require(good.json["approvalToken"] as? String), harness,
                expecting: ApprovalExpectations(transaction: transaction))
            #expect(claims.txn?.hash == TransactionClaim.hash(of: transaction))
        }
    }

    @Test("a malformed transaction is 400 invalid_request and sends nothing")
    func transactionValidation() async throws {
        try await Harness.with { harness in
            for transaction in [
                #"{"amount":"12,50","currency":"EUR","payee":"A"}"#,
                #"{"amount":"1.2.3","currency":"EUR","payee":"A"}"#,
                #"{"amount":"12.50","currency":"eur","payee":"A"}"#,
                #"{"amount":"12.50","currency":"EURO","payee":"A"}"#,
                #"{"amount":"12.50","currency":"EUR","payee":""}"#,
                #"{"amount":"12.50","currency":"EUR","payee":"\#(String(repeating: "p", count: 65))"}"#,
                #"{"amount":12.5,"currency":"EUR","payee":"A"}"#,
            ] {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+12015550100","transaction":\#(transaction)}"#
                )
                #expect(response.status == 400, "\(transaction)")
                #expect(response.errorCode == "invalid_request")
            }
            #expect(((try? OutboxSender.entries(path: harness.outbox)) ?? []).isEmpty)
        }
    }

    @Test("a hosted start needs a nonce of 16 to 128 characters; a publishable key cannot start one")
    func hostedNonceAndKeys() async throws {
        try await Harness.with(hosted: HostedPageTests.pages(), publishableKeys: ["ios": Self.ios]) {
            harness in
            let origin = HostedPageTests.returnOrigin
            for hosted in [
                #"{"returnUrl":"\#(origin)/"}"#, #"{"returnUrl":"\#(origin)/","nonce":"short"}"#,
                #"{"returnUrl":"\#(origin)/","nonce":"\#(String(repeating: "n", count: 129))"}"#,
                #"{"returnUrl":"\#(origin)/","nonce":"\#(Self.nonce)","responseMode":"fragment"}"#,
            ] {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+12015550100","hosted":\#(hosted)}"#)
                #expect(response.status == 400, "\(hosted)")
            }
            let app = try await harness.call(
                "POST", "/v1/verifications",
                json: #"{"to":"+12015550100","hosted":{"returnUrl":"\#(origin)/","nonce":"\#(Self.nonce)"}}"#,
                key: .some(Self.ios))
            #expect(app.status == 403)
            #expect(app.errorCode == "forbidden")
            #expect(((try? OutboxSender.entries(path: harness.outbox)) ?? []).isEmpty)
        }
    }

    @Test("form_post, the default: the token goes back in a POST form, never in a URL, with the nonce")
    func formPost() async throws {
        try await Harness.with(checkFloor: .zero, hosted: HostedPageTests.pages()) { harness in
            let origin = HostedPageTests.returnOrigin
            func start() async throws -> (String, String) {
                let response = try await harness.call(
                    "POST", "/v1/verifications",
                    json: #"{"to":"+12015550100","ref":"r-1","hosted":{"returnUrl":"\#(origin)/back","#
                        + #""state":"s&1","nonce":"\#(Self.nonce)"}}"#)
                let id = try #require(response.json["id"] as? String)
                let url = try #require(response.json["hostedUrl"] as? String)
                return (id, String(url.dropFirst("http://127.0.0.1:8080".count)))
            }
            // The script's path: the answer names the return URL, the state and the token; no redirect.
            let (id, path) = try await start()
            let good = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(try harness.code(for: id))"}"#, key: .some(nil))
            #expect(good.status == 200)
            #expect(good.json["redirectUrl"] == nil)
            #expect(good.json["returnUrl"] as? String == "\(origin)/back")
            #expect(good.json["returnState"] as? String == "s&1")
            #expect(
                good.json["approvalToken"] as? String
                    == "tok.\(id).\(origin).sms.to=+12015550100.nonce=\(Self.nonce).ref=r-1")
            // Without JavaScript: a page whose form posts the token, with a Continue button.
            let (formID, formPath) = try await start()
            let form = try await RawHTTP.request(
                port: harness.port, method: "POST", path: formPath + "/check",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "code=\(try harness.code(for: formID))")
            #expect(form.status == 200)
            #expect(form.headers["location"] == nil)
            #expect(form.text.contains(#"<form id="otp-return" method="post" action="\#(origin)/back""#))
            #expect(form.text.contains(#"<input type="hidden" name="state" value="s&amp;1">"#))
            #expect(
                form.text.contains(
                    #"name="token" value="tok.\#(formID).\#(origin).sms.to=+12015550100.nonce=\#(Self.nonce).ref=r-1""#
                ))
            #expect(form.text.contains(#"<button id="otp-continue" type="submit">Continue</button>"#))
            #expect(form.headers["content-security-policy"]?.contains("form-action 'self' \(origin)") == true)
        }
    }

    @Test("the hosted page's token lifetime is the one its settings give, read when each token is signed")
    func tokenLifetime() async throws {
        let pages = HostedPages(
            publicURL: "http://127.0.0.1:8080", returnOrigins: [HostedPageTests.returnOrigin],
            issuer: RecordingIssuer(), tokenLifetime: .seconds(60))
        try await Harness.with(checkFloor: .zero, hosted: pages) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications",
                json: #"{"to":"+12015550100","hosted":{"returnUrl":"\#(HostedPageTests.returnOrigin)/","#
                    + #""nonce":"\#(Self.nonce)"}}"#)
            let id = try #require(response.json["id"] as? String)
            let url = try #require(response.json["hostedUrl"] as? String)
            let path = String(url.dropFirst("http://127.0.0.1:8080".count))
            let good = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(try harness.code(for: id))"}"#, key: .some(nil))
            #expect((good.json["approvalToken"] as? String)?.hasSuffix(".life=60") == true)
        }
    }

    @Test("the hosted page shows what a transaction code approves, above the field")
    func hostedTransactionLine() async throws {
        try await Harness.with(hosted: HostedPageTests.pages()) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications",
                json: #"{"to":"+12015550100","transaction":\#(Self.payment),"hosted":{"returnUrl":"#
                    + #""\#(HostedPageTests.returnOrigin)/","nonce":"\#(Self.nonce)"}}"#)
            let url = try #require(response.json["hostedUrl"] as? String)
            let page = try await harness.call(
                "GET", String(url.dropFirst("http://127.0.0.1:8080".count)), key: .some(nil))
            #expect(
                page.text.contains(
                    "<p id=\"otp-transaction\">Approve 12.50 EUR to \u{2068}ACME Ltd\u{2069}</p>"))
        }
    }

    @Test("a JSON body naming a member twice is 400 invalid_request, for a start and a check")
    func duplicateMembers() async throws {
        try await Harness.with { harness in
            let start = try await harness.call(
                "POST", "/v1/verifications",
                json: #"{"to":"+12015550100","channel":"sms","to":"+12015550101"}"#)
            #expect(start.status == 400)
            #expect(start.errorCode == "invalid_request")
            let nested = try await harness.call(
                "POST", "/v1/verifications",
                json:
                    #"{"to":"+12015550100","transaction":{"amount":"1","amount":"2","currency":"EUR","payee":"A"}}"#
            )
            #expect(nested.status == 400)
            let id = try await harness.start()
            let check = try await harness.check(id, "x\",\"code\":\"123456")
            #expect(check.status == 400)
            let twice = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"111111","code":"222222"}"#)
            #expect(twice.status == 400)
            #expect(twice.errorCode == "invalid_request")
        }
    }

    @Test("idempotency keys through a publishable key are scoped to the client address")
    func publishableIdempotency() async throws {
        try await Harness.with(trustedProxies: 1, publishableKeys: ["ios": Self.ios]) { harness in
            func start(from address: String) async throws -> String? {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#, key: .some(Self.ios),
                    headers: [("Idempotency-Key", "k-1"), ("X-Forwarded-For", address)])
                return response.json["id"] as? String
            }
            let first = try #require(try await start(from: "203.0.113.1"))
            let replay = try await start(from: "203.0.113.1")
            let other = try #require(try await start(from: "203.0.113.2"))
            #expect(replay == first)
            #expect(other != first, "another user of the app gets a verification of their own")
        }
    }
}
