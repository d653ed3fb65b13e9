import OTPCore
import OTPEngine
import Testing

@Suite struct MessageTemplateTests {
    func policy(domain: String? = nil, hash: String? = nil, app: String = "Acme") -> Policy {
        Policy(appName: app, domain: domain, androidAppHash: hash)
    }

    @Test("an SMS without domain or app hash is the one sentence")
    func plainSMS() {
        #expect(
            MessageTemplate.smsText(code: "482019", policy: policy())
                == "Your Acme code is 482019. It expires in 5 minutes.")
    }

    @Test("the origin-bound line comes last, after a blank line")
    func originBound() {
        let text = MessageTemplate.smsText(code: "482019", policy: policy(domain: "example.com"))
        #expect(text == "Your Acme code is 482019. It expires in 5 minutes.\n\n@example.com #482019")
    }

    @Test("the Android app hash has its own line before the origin-bound line")
    func androidHash() {
        let text = MessageTemplate.smsText(
            code: "482019", policy: policy(domain: "example.com", hash: "FA+9qCX9VSu"))
        #expect(
            text == "Your Acme code is 482019. It expires in 5 minutes.\n\nFA+9qCX9VSu\n@example.com #482019")
        let hashOnly = MessageTemplate.smsText(code: "482019", policy: policy(hash: "FA+9qCX9VSu"))
        #expect(hashOnly == "Your Acme code is 482019. It expires in 5 minutes.\n\nFA+9qCX9VSu")
    }

    @Test("lifetimes read in minutes or seconds")
    func lifetimes() {
        #expect(MessageTemplate.lifetimePhrase(.seconds(300)) == "5 minutes")
        #expect(MessageTemplate.lifetimePhrase(.seconds(60)) == "1 minute")
        #expect(MessageTemplate.lifetimePhrase(.seconds(90)) == "90 seconds")
        #expect(MessageTemplate.lifetimePhrase(.seconds(1)) == "1 second")
    }

    @Test("SMS size counts GSM septets packed, extension characters double, anything else as UCS-2")
    func smsSize() {
        #expect(MessageTemplate.smsByteCount(String(repeating: "a", count: 160)) == 140)
        #expect(MessageTemplate.smsByteCount(String(repeating: "a", count: 161)) == 141)
        #expect(MessageTemplate.smsByteCount(String(repeating: "{", count: 80)) == 140)
        #expect(MessageTemplate.smsByteCount("é@£") == 3)
        #expect(MessageTemplate.smsByteCount(String(repeating: "a", count: 69) + "ł") == 140)
        #expect(MessageTemplate.smsByteCount("😀") == 4)
    }

    @Test("an SMS stays within 140 bytes: a long app name is cut, a short one kept")
    func smsLimit() {
        let long = policy(
            domain: "login.example.com", hash: "FA+9qCX9VSu", app: String(repeating: "Acme ", count: 20))
        let text = MessageTemplate.smsText(code: "48201937", policy: long)
        #expect(MessageTemplate.smsByteCount(text) <= MessageTemplate.smsByteLimit)
        #expect(text.hasPrefix("Your Acme Acme"))
        #expect(text.hasSuffix("\n@login.example.com #48201937"))
        let fullName = MessageTemplate.smsText(code: "48201937", appName: long.appName, policy: long)
        #expect(MessageTemplate.smsByteCount(fullName) > MessageTemplate.smsByteLimit)

        let unicode = policy(app: "Zażółć gęślą jaźń aplikacja do logowania")
        let cut = MessageTemplate.smsText(code: "482019", policy: unicode)
        #expect(MessageTemplate.smsByteCount(cut) <= 140)
    }

    @Test("emails carry the sentence in text and HTML, the code large, the origin-bound line last in text")
    func email() {
        let p = policy(domain: "example.com", app: "A&B")
        let message = MessageTemplate.message(
            verificationID: "vf_x", channel: .email, to: "ana@example.org", code: "482019", policy: p)
        #expect(message.subject == "Your A&B verification code")
        #expect(!message.subject.contains("482019"))
        #expect(message.text == "Your A&B code is 482019. It expires in 5 minutes.\n\n@example.com #482019\n")
        let html = message.html ?? ""
        #expect(html.contains("Your A&amp;B code is"))
        #expect(html.contains("font-size: 32px"))
        #expect(html.contains(">482019</p>"))
        #expect(html.contains("It expires in 5 minutes."))
    }

    @Test("an SMS message goes to the full number with no subject or HTML")
    func smsMessage() {
        let message = MessageTemplate.message(
            verificationID: "vf_x", channel: .sms, to: "+15555550100", code: "482019", policy: policy())
        #expect(message.to == "+15555550100")
        #expect(message.channel == .sms)
        #expect(message.html == nil)
        #expect(message.text.contains("482019"))
    }
}
