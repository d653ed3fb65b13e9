import Foundation
import OTPCore
import OTPEngine
import OTPTokens
import Testing

@testable import OTPHTTP

/// An issuer that writes what it was asked, so tests can see the token's claims without a key.
struct RecordingIssuer: ApprovalTokenIssuing {
    func approvalToken(
        for subject: ApprovedSubject, audience: String, nonce: String?, issuedAt: Date, lifetime: Duration
    ) -> String {
        var token = "tok.\(subject.id).\(audience).\(subject.channel.rawValue)"
        token += ".to=\(subject.destination)"
        if let nonce { token += ".nonce=\(nonce)" }
        if let ref = subject.ref { token += ".ref=\(ref)" }
        if subject.isTest { token += ".test" }
        if lifetime != HostedPages.defaultTokenLifetime { token += ".life=\(lifetime.components.seconds)" }
        return token
    }
    var keySetJSON: [UInt8] { Array(#"{"keys":[]}"#.utf8) }
}

@Suite struct HostedPageTests {
    static let returnOrigin = "http://127.0.0.1:9"
    static let nonce = "nonce-0123456789abcdef"
    static func pages(publicURL: String = "http://127.0.0.1:8080") -> HostedPages {
        HostedPages(publicURL: publicURL, returnOrigins: [returnOrigin], issuer: RecordingIssuer())
    }

    /// Starts a hosted verification; returns its id and the page's path.
    func startHosted(_ harness: Harness, state: String = "s-1") async throws -> (id: String, path: String) {
        let response = try await harness.call(
            "POST", "/v1/verifications",
            json:
                #"{"to":"+12015550100","hosted":{"returnUrl":"\#(Self.returnOrigin)/done?x=1","state":"\#(state)","#
                + #""nonce":"\#(Self.nonce)","responseMode":"query"}}"#
        )
        #expect(response.status == 201)
        let id = try #require(response.json["id"] as? String)
        let url = try #require(response.json["hostedUrl"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:8080/v/"))
        return (id, String(url.dropFirst("http://127.0.0.1:8080".count)))
    }

    func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

    @Test("a hosted start answers hostedUrl; a start without hosted has none")
    func hostedStart() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            let (_, path) = try await startHosted(harness)
            #expect(path.count > "/v/".count + 22)
            let plain = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12015550101"}"#)
            #expect(plain.status == 201)
            #expect(plain.json["hostedUrl"] == nil)
        }
    }

    @Test("a return URL outside the allowed origins, or malformed, is 400 invalid_request and sends nothing")
    func openRedirectGuard() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            for returnURL in [
                "https://evil.example/done", "http://127.0.0.1:10/done", "javascript:alert(1)",
                "//127.0.0.1:9/x",
                "http://127.0.0.1:9@evil.example/", "http://user@127.0.0.1:9/", "http://127.0.0.1:9/a#frag",
                "/relative",
            ] {
                let response = try await harness.call(
                    "POST", "/v1/verifications",
                    json:
                        #"{"to":"+12015550100","hosted":{"returnUrl":"\#(returnURL)","nonce":"\#(Self.nonce)"}}"#
                )
                #expect(response.status == 400, "\(returnURL)")
                #expect(response.errorCode == "invalid_request")
            }
            let state = String(repeating: "s", count: 513)
            let long = try await harness.call(
                "POST", "/v1/verifications",
                json:
                    #"{"to":"+12015550100","hosted":{"returnUrl":"\#(Self.returnOrigin)/","state":"\#(state)","#
                    + #""nonce":"\#(Self.nonce)"}}"#
            )
            #expect(long.status == 400)
            #expect(((try? OutboxSender.entries(path: harness.outbox)) ?? []).isEmpty)
        }
        try await Harness.with { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications",
                json:
                    #"{"to":"+12015550100","hosted":{"returnUrl":"\#(Self.returnOrigin)/","nonce":"\#(Self.nonce)"}}"#
            )
            #expect(response.status == 400, "a server without a public URL refuses hosted starts")
            #expect(response.text.contains("This server hosts no verification page"))
            #expect(!response.text.contains("--"), "an API client is not told about the server's flags")
        }
    }

    @Test("the page: a form that works without JavaScript, in the browser's language, with strict headers")
    func page() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            let (_, path) = try await startHosted(harness)
            let page = try await RawHTTP.request(port: harness.port, method: "GET", path: path)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            let policy = try #require(page.headers["content-security-policy"])
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(policy.contains("form-action 'self' \(Self.returnOrigin)"))
            #expect(page.headers["referrer-policy"] == "no-referrer")
            #expect(page.headers["cache-control"] == "no-store")
            #expect(page.headers["x-frame-options"] == "DENY")
            #expect(page.text.contains(#"autocomplete="one-time-code""#))
            #expect(page.text.contains(#"<form id="otp-form" method="post" action="\#(path)/check">"#))
            #expect(page.text.contains("Enter the code"))
            #expect(!page.text.contains("<script>"), "no inline script")
            #expect(!page.text.contains("style="), "no inline style")
            let german = try await RawHTTP.request(
                port: harness.port, method: "GET", path: path,
                headers: [("Accept-Language", "fr;q=0.9, de-CH, en;q=0.5")])
            #expect(german.text.contains(#"<html lang="de" dir="ltr">"#))
            #expect(german.text.contains(ScreenText(.german).title))
            let arabic = try await RawHTTP.request(
                port: harness.port, method: "GET", path: path, headers: [("Accept-Language", "ar-EG")])
            #expect(arabic.text.contains(#"dir="rtl""#))
        }
    }

    @Test("a token this server did not make is 404, on the page and its calls; a flipped bit is enough")
    func forgedTokens() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            let (_, path) = try await startHosted(harness)
            var token = Array(path.dropFirst(3))
            token[token.count - 2] = token[token.count - 2] == "A" ? "B" : "A"
            let forged = "/v/" + String(token)
            let page = try await RawHTTP.request(port: harness.port, method: "GET", path: forged)
            #expect(page.status == 404)
            let state = try await RawHTTP.request(port: harness.port, method: "GET", path: forged + "/state")
            #expect(state.status == 404)
            #expect(state.errorCode == "not_found")
            let check = try await RawHTTP.request(
                port: harness.port, method: "POST", path: forged + "/check",
                headers: [("Content-Type", "application/json")], body: #"{"code":"123456"}"#)
            #expect(check.status == 404)
            let other = try await Harness.with(hosted: Self.pages()) { second in
                try await RawHTTP.request(port: second.port, method: "GET", path: path + "/state")
            }
            #expect(other.status == 404, "another server's secret does not open the token")
        }
    }

    @Test("state, wrong codes, approval with redirectUrl carrying state and token; then the page is spent")
    func jsonFlow() async throws {
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness, state: "a b&c")
            let state = try await harness.call("GET", path + "/state", key: .some(nil))
            #expect(state.status == 200)
            let verification = try #require(state.json["verification"] as? [String: Any])
            #expect(verification["id"] as? String == id)
            let strings = try #require(state.json["strings"] as? [String: Any])
            #expect(
                (strings["incorrect"] as? [String: String])?["2"] == "Code doesn't match. 2 attempts left.")
            #expect(strings["resendIn"] as? String == "Resend in {time}")
            let code = try harness.code(for: id)
            let bad = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(wrong(code))"}"#, key: .some(nil))
            #expect(bad.status == 422)
            #expect(bad.errorField("attemptsLeft") as? Int == 2)
            let good = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(code)"}"#, key: .some(nil))
            #expect(good.status == 200)
            #expect(good.json["status"] as? String == "approved")
            let redirect = try #require(good.json["redirectUrl"] as? String)
            let token = FormEncoding.percentEncode(
                "tok.\(id).\(Self.returnOrigin).sms.to=+12015550100.nonce=\(Self.nonce)")
            #expect(redirect == "\(Self.returnOrigin)/done?x=1&state=a%20b%26c&token=\(token)")
            let again = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(code)"}"#, key: .some(nil))
            #expect(again.status == 409)
            #expect(again.errorCode == "not_pending")
            #expect(!good.text.contains(code))
        }
    }

    @Test(
        "without JavaScript: a wrong code renders the page with the sentence; the right one is 303 to the return URL"
    )
    func formFlow() async throws {
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness)
            let code = try harness.code(for: id)
            let form = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept-Language", "de")]
            let bad = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/check", headers: form,
                body: "code=\(wrong(code))")
            #expect(bad.status == 422)
            #expect(bad.headers["content-type"] == "text/html; charset=utf-8")
            #expect(bad.text.contains(HostedPageHTML.escape(ScreenText(.german).incorrect(attemptsLeft: 2))))
            let good = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/check", headers: form,
                body: "code=\(code.prefix(3))+\(code.suffix(3))")
            #expect(good.status == 303)
            let location = try #require(good.headers["location"])
            #expect(location.hasPrefix("\(Self.returnOrigin)/done?x=1&state=s-1&token="))
            let empty = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/check", headers: form, body: "nothing=1")
            #expect(empty.status == 400)
            // The form posted again after its approval (the answer lost, the browser's reload):
            // the page says Verified and offers Continue, not only that it is no longer pending.
            let again = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/check", headers: form, body: "code=\(code)"
            )
            #expect(again.status == 409)
            #expect(again.text.contains(HostedPageHTML.escape(ScreenText(.german).verified)))
            #expect(!again.text.contains(HostedPageHTML.escape(ScreenText(.german).notPending)))
            #expect(again.text.contains(#"<p id="otp-verified-back" class="otp-back"><a href="#))
            #expect(again.text.contains("error=token_lost"))
        }
    }

    /// The `seen` value a rendered page's Verify button sends with the form.
    func seen(in page: RawResponse) throws -> String {
        let marker = #"name="seen" value=""#
        let start = try #require(page.text.range(of: marker), "the page's form sends what it showed")
        return String(page.text[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test(
        "without JavaScript: a form posted again (a reload) is not judged again; one from before a new code neither"
    )
    func formPostedAgain() async throws {
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness)
            let code = try harness.code(for: id)
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            func post(_ body: String) async throws -> RawResponse {
                try await RawHTTP.request(
                    port: harness.port, method: "POST", path: path + "/check", headers: form, body: body)
            }
            func attemptsLeft() async throws -> Int? {
                try await harness.call("GET", "/v1/verifications/\(id)").json["attemptsLeft"] as? Int
            }
            let opened = try await RawHTTP.request(port: harness.port, method: "GET", path: path)
            let first = try seen(in: opened)
            #expect(first == "4.3", "four sends and three attempts left")
            let body = "code=\(wrong(code))&seen=\(first)"
            let bad = try await post(body)
            #expect(bad.status == 422)
            #expect(try await attemptsLeft() == 2)
            // The browser posts the same form again: the page answers as before, and judges nothing.
            let again = try await post(body)
            #expect(again.status == 422)
            #expect(
                again.text.contains(HostedPageHTML.escape(ScreenText(.english).incorrect(attemptsLeft: 2))))
            #expect(try await attemptsLeft() == 2, "the code posted again was not judged again")
            // A new try from the page that answered is judged.
            let next = try seen(in: again)
            #expect(next == "4.2")
            #expect(try await post("code=\(wrong(code))&seen=\(next)").status == 422)
            #expect(try await attemptsLeft() == 1)
            // After a new code, a form from before it is not judged either: the page shows the new code's state.
            harness.clock.advance(seconds: 31)
            let resent = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/resend", headers: form, body: "")
            #expect(resent.status == 200)
            let stale = try await post("code=\(wrong(code))&seen=\(next)")
            #expect(stale.status == 200)
            #expect(
                !stale.text.contains(HostedPageHTML.escape(ScreenText(.english).incorrect(attemptsLeft: 3))))
            #expect(try await attemptsLeft() == 3)
            // A form that sends nothing of its page, or something unreadable, is judged as it always was.
            #expect(try await post("code=\(wrong(code))").status == 422)
            #expect(try await attemptsLeft() == 2)
            #expect(
                try await post("code=\(wrong(code))&seen=x.y").status == 200, "unreadable: the page, unjudged"
            )
            #expect(try await attemptsLeft() == 2)
            // The right code with the page's own state is approved.
            let current = try seen(
                in: try await RawHTTP.request(port: harness.port, method: "GET", path: path))
            #expect(current == "3.2")
            let newCode = try harness.code(for: id)
            #expect(try await post("code=\(newCode)&seen=\(current)").status == 303)
        }
    }

    @Test("resend from the page follows the cooldown; the page's check follows the check floor")
    func resendAndFloor() async throws {
        try await Harness.with(checkFloor: .milliseconds(120), hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness)
            let early = try await harness.call("POST", path + "/resend", json: "{}", key: .some(nil))
            #expect(early.status == 429)
            #expect(early.errorCode == "resend_too_soon")
            harness.clock.advance(seconds: 31)
            let resent = try await harness.call("POST", path + "/resend", json: "{}", key: .some(nil))
            #expect(resent.status == 200)
            #expect(harness.sends(for: id) == 2)
            let started = ContinuousClock.now
            _ = try await harness.call("POST", path + "/check", json: #"{"code":"1"}"#, key: .some(nil))
            #expect(ContinuousClock.now - started >= .milliseconds(120))
        }
    }

    @Test("every page has a way back: error=not_verified before approval, error=token_lost after it")
    func wayBack() async throws {
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness, state: "a b&c")
            let page = try await harness.call("GET", path, key: .some(nil))
            #expect(
                page.text.contains(
                    #"<p id="otp-back" class="otp-back"><a href="\#(Self.returnOrigin)/done?x=1&amp;state=a%20b%26c&amp;error=not_verified">"#
                ), "\(page.text)")
            #expect(page.text.contains(HostedPageHTML.escape(ScreenText.english.string(.goBack))))
            let german = try await harness.call(
                "GET", path, key: .some(nil), headers: [("Accept-Language", "de")])
            #expect(german.text.contains(HostedPageHTML.escape(ScreenText(.german).string(.goBack))))
            _ = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(try harness.code(for: id))"}"#, key: .some(nil))
            let approved = try await harness.call("GET", path, key: .some(nil))
            #expect(approved.status == 200)
            #expect(!approved.text.contains("id=\"otp-back\""), "an approved page is no way back")
            // It has no token to hand over: Continue returns with error=token_lost, shown.
            #expect(
                approved.text.contains(
                    #"<p id="otp-verified-back" class="otp-back"><a href="\#(Self.returnOrigin)/done?x=1&amp;state=a%20b%26c&amp;error=token_lost">"#
                ), "\(approved.text)")
            #expect(approved.text.contains(HostedPageHTML.escape(ScreenText.english.string(.continueButton))))
        }
        // Before approval the same element waits hidden for the script.
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (_, path) = try await startHosted(harness)
            let page = try await harness.call("GET", path, key: .some(nil))
            #expect(
                page.text.contains(#"<p id="otp-verified-back" class="otp-back" hidden>"#), "\(page.text)")
        }
        let link = HostedLink(
            verificationID: "vf_x", returnURL: "https://app.example/r", state: "s<1>", nonce: Self.nonce,
            responseMode: .formPost)
        let form = HostedPageHTML.backToApp(link, text: .english)
        #expect(
            form.contains(
                #"<form id="otp-back" class="otp-back" method="post" action="https://app.example/r">"#))
        #expect(form.contains(#"<input type="hidden" name="state" value="s&lt;1&gt;">"#))
        #expect(form.contains(#"<input type="hidden" name="error" value="not_verified">"#))
        let onward = HostedPageHTML.verifiedWithoutToken(link, text: .english, hidden: true)
        #expect(
            onward.contains(
                #"<form id="otp-verified-back" class="otp-back" method="post" action="https://app.example/r" hidden>"#
            ))
        #expect(onward.contains(#"<input type="hidden" name="error" value="token_lost">"#))
        #expect(!onward.contains("token\" value=\"ey"), "no token rides along")
    }

    @Test(
        "a form resent too soon is 429 with Retry-After; a body over the limit is 413 with the page's headers"
    )
    func formRetryAfterAndLargeBody() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            let (_, path) = try await startHosted(harness)
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let early = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/resend", headers: form, body: "x=1")
            #expect(early.status == 429)
            #expect(early.headers["content-type"] == "text/html; charset=utf-8")
            let wait = try #require(early.headers["retry-after"].flatMap { Int($0) })
            #expect((1...30).contains(wait))
            let large = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/check",
                headers: [("Content-Type", "application/json")],
                body: #"{"code":""# + String(repeating: "1", count: 20_000) + #""}"#)
            #expect(large.status == 413)
            #expect(large.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(large.headers["x-frame-options"] != nil)
            #expect(large.headers["referrer-policy"] == "no-referrer")
            #expect(large.headers["cache-control"] == "no-store")
        }
    }

    @Test("assets, the normalisation table and the key set are served; nothing on /v/ needs an API key")
    func assets() async throws {
        try await Harness.with(hosted: Self.pages()) { harness in
            let script = try await harness.call("GET", "/v/assets/otp.js", key: .some(nil))
            #expect(script.status == 200)
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            let table = try await harness.call("GET", "/v/assets/normalize.json", key: .some(nil))
            let zeros = try #require(table.json["decimalZeros"] as? [Int])
            #expect(zeros.contains(0x30) && zeros.contains(0x660) && zeros.contains(0xFF10))
            #expect((table.json["dashes"] as? [String])?.contains("-") == true)
            let keys = try await harness.call("GET", "/.well-known/jwks.json", key: .some(nil))
            #expect(keys.status == 200)
            #expect(keys.json["keys"] != nil)
            let missing = try await harness.call("GET", "/v/assets/other.js", key: .some(nil))
            #expect(missing.status == 404)
        }
    }

    @Test("settings: exact https origins (http only on loopback), a public URL without a path")
    func settings() {
        #expect(HostedPages.origin(of: "https://App.Example:443/x?y") == "https://app.example")
        #expect(HostedPages.origin(of: "https://app.example:8443/") == "https://app.example:8443")
        #expect(HostedPages.origin(of: "http://app.example/") == nil)
        #expect(HostedPages.origin(of: "http://localhost:3000/") == "http://localhost:3000")
        #expect(HostedPages.origin(of: "ftp://app.example/") == nil)
        #expect(HostedPages.origin(of: "https://user:pw@app.example/") == nil)
        #expect(Self.pages().problems.isEmpty)
        #expect(!Self.pages(publicURL: "http://verify.example").problems.isEmpty)
        #expect(!Self.pages(publicURL: "https://verify.example/base").problems.isEmpty)
        let badOrigin = HostedPages(
            publicURL: "https://verify.example", returnOrigins: ["https://app.example/path"],
            issuer: RecordingIssuer())
        #expect(
            badOrigin.problems
                == [
                    ConfigurationProblem(
                        setting: "hosted-return-origins",
                        fact:
                            "takes exact origins such as https://app.example (https, or http on loopback, no path), "
                            + "not https://app.example/path")
                ])
        #expect(Self.pages(publicURL: "http://verify.example").problems.map(\.setting) == ["public-url"])
        let none = HostedPages(
            publicURL: "https://verify.example", returnOrigins: [], issuer: RecordingIssuer())
        #expect(none.problems.count == 1)
    }

    @Test("the page's assets are the files in Hosted/Assets, the script's English fallback the catalog's")
    func assetsFromFiles() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/OTPHTTP/Hosted/Assets")
        let script = try String(contentsOf: directory.appendingPathComponent("otp.js"), encoding: .utf8)
        let stylesheet = try String(contentsOf: directory.appendingPathComponent("otp.css"), encoding: .utf8)
        #expect(HostedAssets.script == script, "the built-in script is the file, byte for byte")
        #expect(HostedAssets.stylesheet == stylesheet)
        let served = String(decoding: HostedAssets.servedScript, as: UTF8.self)
        #expect(script.contains("/* OTP_ENGLISH_STRINGS */ {}"))
        #expect(!served.contains("OTP_ENGLISH_STRINGS"))
        for sentence in [
            ScreenText.english.verifying, ScreenText.english.networkFailure, ScreenText.english.locked,
        ] {
            #expect(served.contains(sentence), "\(sentence)")
            #expect(
                !script.contains(": '\(sentence)'") && !script.contains(": \"\(sentence)\""),
                "the file holds no copy of the catalog's \(sentence)")
        }
    }

    @Test("page tokens open only with their key, and carry the link exactly")
    func pageTokens() throws {
        let key = PageToken.key(fromSecret: Array(repeating: 7, count: 32))
        let link = HostedLink(
            verificationID: "vf_abc", returnURL: "https://app.example/r?a=1", state: "x y",
            nonce: "nonce-0123456789abcdef", responseMode: .formPost)
        let token = try #require(PageToken.make(link, key: key))
        #expect(PageToken.open(token, key: key) == link)
        #expect(PageToken.open(token, key: PageToken.key(fromSecret: Array(repeating: 8, count: 32))) == nil)
        #expect(PageToken.open(token + "A", key: key) == nil)
        #expect(PageToken.open("", key: key) == nil)
        #expect(PageToken.open("a.b.c", key: key) == nil)
        #expect(PageToken.open(String(token.reversed()), key: key) == nil)
        let mac = token.split(separator: ".")[1]
        #expect(Base64URL.decode(String(mac))?.count == 16, "128 bits")
    }

    @Test("form fields and Accept-Language are read as browsers send them")
    func parsing() {
        #expect(FormEncoding.value(of: "code", in: Array("a=1&code=482%20019+x".utf8)) == "482 019 x")
        #expect(FormEncoding.value(of: "code", in: Array("code=%ZZ".utf8)) == nil)
        #expect(FormEncoding.value(of: "code", in: Array("other=1".utf8)) == nil)
        #expect(HostedPageHTML.language(acceptLanguage: "ja;q=0.2, ar;q=0.8") == .arabic)
        #expect(HostedPageHTML.language(acceptLanguage: "fr, de;q=0") == .english)
        #expect(HostedPageHTML.language(acceptLanguage: nil) == .english)
        #expect(
            HostedPageHTML.escape(#"<a href="x">'&'</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(
            HostedPages.redirectURL(returnURL: "https://a.example/r", state: "s", token: "t.u")
                == "https://a.example/r?state=s&token=t.u")
    }

    @Test("a locked page still offers Resend, with or without JavaScript; an approved one does not")
    func resendWhenLocked() async throws {
        try await Harness.with(checkFloor: .zero, hosted: Self.pages()) { harness in
            let (id, path) = try await startHosted(harness)
            let wrong = wrong(try harness.code(for: id))
            for _ in 0..<3 {
                _ = try await harness.call(
                    "POST", path + "/check", json: #"{"code":"\#(wrong)"}"#, key: .some(nil))
            }
            let locked = try await RawHTTP.request(port: harness.port, method: "GET", path: path)
            #expect(locked.text.contains(#"id="otp-resend""#))
            #expect(locked.text.contains(HostedPageHTML.escape(ScreenText.english.locked)))
            harness.clock.advance(seconds: 31)
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let resent = try await RawHTTP.request(
                port: harness.port, method: "POST", path: path + "/resend", headers: form, body: "")
            #expect(resent.status == 200)
            #expect(resent.text.contains(ScreenText.english.newCodeSent))
            let code = try harness.code(for: id)
            _ = try await harness.call(
                "POST", path + "/check", json: #"{"code":"\#(code)"}"#, key: .some(nil))
            let approved = try await RawHTTP.request(port: harness.port, method: "GET", path: path)
            #expect(!approved.text.contains(#"id="otp-resend""#))
        }
    }
}
