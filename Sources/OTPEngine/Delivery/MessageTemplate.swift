import OTPCore

/// The texts of the messages that carry codes (HTTP-API.md, "Messages sent").
///
/// SMS: `Your <app name> code is 482019. It expires in 5 minutes.`, then a blank line, the
/// Android app hash on its own line when configured, and the origin-bound line
/// `@example.com #482019` last when a domain is configured. An SMS stays within 140 bytes:
/// the app name is cut until it fits. Email: the same sentence as plain text and HTML.
public enum MessageTemplate {
    /// The most bytes one SMS carries.
    public static let smsByteLimit = 140

    /// The message for a code on a channel, in a language (the policy's default when `nil`).
    public static func message(
        verificationID: String, channel: Channel, to destination: String, code: String, policy: Policy,
        language: TextLanguage? = nil, transaction: TransactionDetails? = nil
    ) -> OutgoingMessage {
        let language = language ?? policy.defaultLocale
        if language != .english || policy.templates.overrides[.english] != nil || transaction != nil {
            return templated(
                verificationID: verificationID, channel: channel, to: destination, code: code, policy: policy,
                language: language, transaction: transaction)
        }
        switch channel {
        case .sms:
            return OutgoingMessage(
                verificationID: verificationID, channel: .sms, to: destination, subject: "",
                text: smsText(code: code, policy: policy), html: nil)
        case .email:
            return OutgoingMessage(
                verificationID: verificationID, channel: .email, to: destination,
                subject: emailSubject(policy: policy), text: emailText(code: code, policy: policy),
                html: emailHTML(code: code, policy: policy))
        }
    }

    /// The SMS text, with the app name cut as needed to stay within ``smsByteLimit``.
    public static func smsText(code: String, policy: Policy) -> String {
        smsText(code: code, appName: fittedAppName(code: code, policy: policy), policy: policy)
    }

    /// The SMS text with a given app name, whatever its size.
    public static func smsText(code: String, appName: String, policy: Policy) -> String {
        var extra: [String] = []
        if let hash = policy.androidAppHash, !hash.isEmpty { extra.append(hash) }
        if let line = originBoundLine(code: code, policy: policy) { extra.append(line) }
        let first = sentence(code: code, appName: appName, policy: policy)
        return extra.isEmpty ? first : first + "\n\n" + extra.joined(separator: "\n")
    }

    /// The longest prefix of the app name with which the SMS fits.
    public static func fittedAppName(code: String, policy: Policy) -> String {
        var name = policy.appName
        while !name.isEmpty, smsByteCount(smsText(code: code, appName: name, policy: policy)) > smsByteLimit {
            name.removeLast()
            while name.last?.isWhitespace == true { name.removeLast() }
        }
        return name
    }

    /// The email's subject line; it does not carry the code.
    public static func emailSubject(policy: Policy) -> String {
        policy.appName.isEmpty ? "Your verification code" : "Your \(policy.appName) verification code"
    }

    /// The email's plain-text body: the sentence and, with a domain, the origin-bound line last.
    public static func emailText(code: String, policy: Policy) -> String {
        let first = sentence(code: code, appName: policy.appName, policy: policy)
        guard let line = originBoundLine(code: code, policy: policy) else { return first + "\n" }
        return first + "\n\n" + line + "\n"
    }

    /// The email's HTML body: the same sentence with the code set large.
    public static func emailHTML(code: String, policy: Policy) -> String {
        let app = policy.appName.isEmpty ? "Your code is" : "Your \(escapeHTML(policy.appName)) code is"
        let lifetime = lifetimePhrase(policy.codeLifetime)
        return """
            <!DOCTYPE html>
            <html><body style="font-family: -apple-system, Helvetica, Arial, sans-serif; font-size: 16px;">
            <p>\(app)</p>
            <p style="font-size: 32px; font-weight: bold; letter-spacing: 0.2em; \
            font-family: Menlo, Consolas, monospace;">\(escapeHTML(code))</p>
            <p>It expires in \(lifetime).</p>
            </body></html>

            """
    }

    /// `@domain #code`, or `nil` without a domain.
    public static func originBoundLine(code: String, policy: Policy) -> String? {
        guard let domain = policy.domain, !domain.isEmpty else { return nil }
        return "@\(domain) #\(code)"
    }

    /// A lifetime in words: "5 minutes", "1 minute", "90 seconds".
    public static func lifetimePhrase(_ duration: Duration) -> String {
        let seconds = max(1, StoreTime.milliseconds(duration) / 1000)
        if seconds % 60 == 0 {
            let minutes = seconds / 60
            return minutes == 1 ? "1 minute" : "\(minutes) minutes"
        }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }

    /// The bytes an SMS text takes: GSM 7-bit packing when every character has a GSM form, else UCS-2.
    public static func smsByteCount(_ text: String) -> Int {
        guard let septets = gsmSeptets(text) else { return text.utf16.count * 2 }
        return (septets * 7 + 7) / 8
    }

    /// The septets a text takes in the GSM 7-bit alphabet, or `nil` when a character has no GSM form.
    public static func gsmSeptets(_ text: String) -> Int? {
        var septets = 0
        for scalar in text.unicodeScalars {
            // Most text is ASCII: a table lookup, no hashing.
            if scalar.value < 128 {
                let cost = gsmASCIICost[Int(scalar.value)]
                guard cost > 0 else { return nil }
                septets += Int(cost)
            } else if gsmBasic.contains(scalar) {
                septets += 1
            } else if gsmExtension.contains(scalar) {
                septets += 2
            } else {
                return nil
            }
        }
        return septets
    }

    // MARK: - Templates in a language

    /// The code's lifetime in whole minutes, at least 1.
    static func minutes(_ policy: Policy) -> Int {
        max(1, Int((StoreTime.milliseconds(policy.codeLifetime) + 59_999) / 60_000))
    }

    /// The SMS text of a language's template with a given app name: the sentence, then the app hash
    /// and the origin-bound line as for English.
    package static func templatedSMS(
        code: String, appName: String, policy: Policy, language: TextLanguage,
        transaction: TransactionDetails? = nil
    ) -> String {
        let sentence =
            approval(transaction, policy: policy, language: language)
            + MessageTemplates.fill(
                policy.templates.texts(language).sms, code: code, app: appName, minutes: minutes(policy))
        var extra: [String] = []
        if let hash = policy.androidAppHash, !hash.isEmpty { extra.append(hash) }
        if let line = originBoundLine(code: code, policy: policy) { extra.append(line) }
        return extra.isEmpty ? sentence : sentence + "\n\n" + extra.joined(separator: "\n")
    }

    /// The longest prefix of the app name with which a language's SMS fits one segment, unless the
    /// policy allows longer SMS.
    public static func fittedAppName(
        code: String, policy: Policy, language: TextLanguage, transaction: TransactionDetails? = nil
    ) -> String {
        var name = policy.appName
        guard !policy.allowMultipartSMS else { return name }
        while !name.isEmpty,
            SMSSegments.count(
                templatedSMS(
                    code: code, appName: name, policy: policy, language: language, transaction: transaction))
                > 1
        {
            name.removeLast()
            while name.last?.isWhitespace == true { name.removeLast() }
        }
        return name
    }

    /// The transaction's sentence and a space, before the code's; empty without a transaction.
    private static func approval(
        _ transaction: TransactionDetails?, policy: Policy, language: TextLanguage
    ) -> String {
        guard let transaction else { return "" }
        return policy.templates.transactionSentence(transaction, language: language) + " "
    }

    private static func templated(
        verificationID: String, channel: Channel, to destination: String, code: String, policy: Policy,
        language: TextLanguage, transaction: TransactionDetails?
    ) -> OutgoingMessage {
        let texts = policy.templates.texts(language)
        switch channel {
        case .sms:
            let app = fittedAppName(code: code, policy: policy, language: language, transaction: transaction)
            return OutgoingMessage(
                verificationID: verificationID, channel: .sms, to: destination, subject: "",
                text: templatedSMS(
                    code: code, appName: app, policy: policy, language: language, transaction: transaction),
                html: nil)
        case .email:
            let sentence =
                approval(transaction, policy: policy, language: language)
                + MessageTemplates.fill(
                    texts.email, code: code, app: policy.appName, minutes: minutes(policy))
            let text =
                originBoundLine(code: code, policy: policy).map { sentence + "\n\n" + $0 + "\n" }
                ?? sentence + "\n"
            let direction = language.isRightToLeft ? "rtl" : "ltr"
            let html = """
                <!DOCTYPE html>
                <html lang="\(language.rawValue)" dir="\(direction)"><body style="font-family: -apple-system, \
                Helvetica, Arial, sans-serif; font-size: 16px;">
                <p>\(escapeHTML(sentence))</p>
                <p style="font-size: 32px; font-weight: bold; letter-spacing: 0.2em; \
                font-family: Menlo, Consolas, monospace;" dir="ltr">\(escapeHTML(code))</p>
                </body></html>

                """
            return OutgoingMessage(
                verificationID: verificationID, channel: .email, to: destination,
                subject: MessageTemplates.fill(
                    texts.emailSubject, code: "", app: policy.appName, minutes: minutes(policy)),
                text: text, html: html)
        }
    }

    private static func sentence(code: String, appName: String, policy: Policy) -> String {
        let subject = appName.isEmpty ? "Your code" : "Your \(appName) code"
        return "\(subject) is \(code). It expires in \(lifetimePhrase(policy.codeLifetime))."
    }

    /// Text made safe for HTML element content and double-quoted attributes; the one HTML escape
    /// of the emails, the hosted page and the demo.
    public static func escapeHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The GSM 03.38 default alphabet: one septet each.
    private static let gsmBasic: Set<Unicode.Scalar> = Set(
        ("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà").unicodeScalars)

    /// The GSM 03.38 extension table: an escape septet and one more each.
    private static let gsmExtension: Set<Unicode.Scalar> = Set("^{}\\[~]|€\u{0C}".unicodeScalars)

    /// Septets per ASCII character: 1 in the default alphabet, 2 in the extension table, 0 for none.
    private static let gsmASCIICost: [UInt8] = (0..<128).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        return gsmBasic.contains(scalar) ? 1 : gsmExtension.contains(scalar) ? 2 : 0
    }
}
