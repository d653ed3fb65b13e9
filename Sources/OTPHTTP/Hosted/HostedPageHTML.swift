import Foundation
import OTPCore
import OTPEngine

/// The hosted page as the server renders it: a working form without JavaScript, which the page's
/// script turns into the code field of UX.md.
enum HostedPageHTML {
    /// What one rendering shows.
    struct Content {
        /// The page token, for the form addresses.
        var token: String
        /// The verification, or `nil` when the page's verification does not exist.
        var verification: Verification?
        /// The sentences' language.
        var text: ScreenText
        /// The status line and its colour role, if any.
        var status: StatusMessage?
        /// The server's time now, for the resend countdown.
        var now: Date
        /// Where the way back without a verification leads, or `nil` for none.
        var back: HostedLink? = nil
    }

    /// The whole document.
    static func render(_ content: Content) -> String {
        let text = content.text
        let language = text.language
        let verification = content.verification
        let length = verification?.codeLength ?? CodeFormat.default.length
        let format = CodeFormat(length: length)
        let isOpen = verification?.status == .pending
        let base = "/v/\(content.token)"
        var html =
            head(title: text.title, language: language)
                + """
                <main id="otp" class="otp" data-state-url="\(base)/state" data-check-url="\(base)/check" \
                data-resend-url="\(base)/resend" data-normalize-url="/v/assets/normalize.json" \
                data-length="\(length)" data-kind="digits">
                <h1 id="otp-title">\(escape(text.title))</h1>

                """
        if let transaction = verification?.transaction {
            // What the code approves, above the field (UX V16).
            html += "<p id=\"otp-transaction\">\(escape(approval(transaction, text: text)))</p>\n"
        }
        if let verification {
            html += """
                <p id="otp-sent-to">\(escape(text.sentTo(format)))</p>
                <p id="otp-destination" dir="ltr">\(escape(verification.to))</p>

                """
        }
        let disabled = isOpen ? "" : " disabled"
        // What the page shows of the verification goes back with the form, as the submit button's
        // value (sent by a press and by Enter in the field alike, with no second input), so that the
        // browser posting it again (a reload of the page a check answered) is told from a new try.
        let seen = verification.map { " name=\"seen\" value=\"\(formState(of: $0))\"" } ?? ""
        html += """
            <form id="otp-form" method="post" action="\(base)/check">
            <label id="otp-label" for="otp-input">\(escape(text.fieldLabel))</label>
            <input id="otp-input" name="code" autocomplete="one-time-code" inputmode="numeric" \
            autocapitalize="off" spellcheck="false" maxlength="64" required aria-describedby="otp-status"\(disabled)>
            <button id="otp-submit" type="submit"\(seen)\(disabled)>\(escape(text.verifyButton))</button>
            </form>
            <p id="otp-status" class="otp-status" data-role="\(content.status?.role.rawValue ?? "neutral")">\
            \(escape(content.status?.text ?? ""))</p>

            """
        // A locked or expired code can still be replaced by a new one, with or without JavaScript.
        let canResend = [.pending, .locked, .expired].contains(verification?.status)
        if let verification, canResend, verification.sendsLeft > 0 {
            let wait =
                verification.resendAvailableAt.map {
                    max(0, Int($0.timeIntervalSince(content.now).rounded(.up)))
                } ?? 0
            let label = wait > 0 ? text.resendIn(seconds: wait) : text.resendCode
            html += """
                <form id="otp-resend-form" method="post" action="\(base)/resend">\
                <button id="otp-resend" type="submit"\(wait > 0 ? " disabled" : "")>\(escape(label))</button></form>

                """
        }
        if let back = content.back {
            // Approved, the page has no token to hand over (the answer that carried it was lost, or
            // the page was loaded again): Continue returns without one, for the backend to confirm.
            // Before approval it is the way back, and Continue waits hidden for the script.
            let approved = verification?.status == .approved
            if !approved { html += backToApp(back, text: text) }
            html += verifiedWithoutToken(back, text: text, hidden: !approved)
        }
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    /// The error a return without a verification carries, with the caller's `state`.
    static let notVerified = "not_verified"

    /// The error a return from an approved verification carries when the page has no token for it.
    static let tokenLost = "token_lost"

    /// The way back to the app without a verification, so that no state of the page (a lock, no
    /// sends left, a canceled verification) leaves the person with nothing to press: the return
    /// URL with `state` and `error=not_verified`, by the link's own response mode.
    static func backToApp(_ link: HostedLink, text: ScreenText) -> String {
        returnWithError(
            link, id: "otp-back", error: notVerified, label: text.string(.goBack), hidden: false)
    }

    /// The way back from an approved verification whose token the page does not have: the return
    /// URL with `state` and `error=token_lost`; the backend confirms the approval with its key.
    static func verifiedWithoutToken(_ link: HostedLink, text: ScreenText, hidden: Bool) -> String {
        returnWithError(
            link, id: "otp-verified-back", error: tokenLost, label: text.string(.continueButton),
            hidden: hidden)
    }

    private static func returnWithError(
        _ link: HostedLink, id: String, error: String, label: String, hidden: Bool
    ) -> String {
        let label = escape(label)
        let hiddenAttribute = hidden ? " hidden" : ""
        switch link.responseMode {
        case .query:
            let url = HostedPages.returning(
                to: link.returnURL, state: link.state, name: "error", value: error)
            return
                "<p id=\"\(id)\" class=\"otp-back\"\(hiddenAttribute)><a href=\"\(escape(url))\">\(label)</a></p>\n"
        case .formPost:
            return """
                <form id="\(id)" class="otp-back" method="post" action="\(escape(link.returnURL))"\(hiddenAttribute)>\
                <input type="hidden" name="state" value="\(escape(link.state))">\
                <input type="hidden" name="error" value="\(error)">\
                <button type="submit">\(label)</button></form>

                """
        }
    }

    /// "Approve 12.50 EUR to ACME Ltd" in the page's language, the amount and payee kept left to right.
    static func approval(_ transaction: TransactionDetails, text: ScreenText) -> String {
        text.string(
            .approveTransaction,
            [
                "amount": .text(transaction.amount), "currency": .text(transaction.currency),
                "payee": .text("\u{2068}" + transaction.payee + "\u{2069}"),
            ])
    }

    /// The page that hands an approval to the return URL by POST (response mode `form_post`): the
    /// script submits it at once; without JavaScript the person presses Continue.
    static func returnForm(action: String, state: String, token: String, text: ScreenText) -> String {
        head(title: text.verified, language: text.language)
            + """
            <main class="otp">
            <h1 id="otp-title">\(escape(text.verified))</h1>
            <form id="otp-return" method="post" action="\(escape(action))" data-autosubmit="true">
            <input type="hidden" name="state" value="\(escape(state))">
            <input type="hidden" name="token" value="\(escape(token))">
            <button id="otp-continue" type="submit">\(escape(text.string(.continueButton)))</button>
            </form>
            </main>
            </body>
            </html>

            """
    }

    /// The document's start up to the opening `<body>`: language and direction, the page's own
    /// stylesheet and script.
    private static func head(title: String, language: TextLanguage) -> String {
        """
        <!doctype html>
        <html lang="\(language.rawValue)" dir="\(language.isRightToLeft ? "rtl" : "ltr")">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="/v/assets/otp.css">
        <script src="/v/assets/otp.js" defer></script>
        </head>
        <body class="otp-body">

        """
    }

    /// The sends and attempts left, as the page's form sends them (`seen`): every judged code
    /// and every new code changes it, and it never comes back within one verification.
    static func formState(of verification: Verification) -> String {
        "\(verification.sendsLeft).\(verification.attemptsLeft)"
    }

    /// The status line for a verification's own state, when it is not waiting for a code.
    static func status(of verification: Verification, text: ScreenText) -> StatusMessage? {
        switch verification.status {
        case .pending: nil
        case .approved: StatusMessage(text.verified, role: .success)
        case .locked: StatusMessage(text.locked, role: .error)
        case .expired: StatusMessage(text.expired, role: .error)
        case .canceled: StatusMessage(text.notPending, role: .error)
        }
    }

    /// The sentence for an API error, in the page's language (the API's own message stays English).
    static func sentence(for error: APIError, format: CodeFormat, text: ScreenText) -> String {
        switch error.code {
        case .incorrectCode:
            let left = error.attemptsLeft ?? 0
            return left > 0 ? text.incorrect(attemptsLeft: left) : text.locked
        case .locked: return text.locked
        case .expired: return text.expired
        case .rateLimited: return text.rateLimited(retryAfter: error.retryAfter ?? 1)
        case .resendTooSoon: return text.resendIn(seconds: error.retryAfter ?? 1)
        case .notPending: return text.notPending
        case .notFound: return text.notFound
        case .invalidCodeFormat: return text.invalidFormat(format)
        case .maxSendsReached: return text.maxSendsReached
        case .deliveryFailed: return text.deliveryFailed
        case .startRefused: return text.startRefused
        case .destinationBlocked: return text.destinationPaused(retryAfter: error.retryAfter ?? 1)
        default: return text.networkFailure
        }
    }

    /// The page's sentences for its script, by the names the script reads.
    static func strings(_ text: ScreenText, format: CodeFormat, maxAttempts: Int) -> [String: Any] {
        var incorrect: [String: String] = [:]
        for left in 0...max(1, maxAttempts) {
            incorrect[String(left)] = left > 0 ? text.incorrect(attemptsLeft: left) : text.locked
        }
        var fieldValue: [String: String] = [:]
        for count in 0...format.length {
            fieldValue[String(count)] = text.fieldValue(count: count, format: format)
        }
        return [
            "title": text.title, "fieldLabel": text.fieldLabel, "verify": text.verifyButton,
            "verifying": text.verifying, "verified": text.verified, "locked": text.locked,
            "expired": text.expired, "codeRejected": text.codeRejected, "incorrect": incorrect,
            "networkFailure": text.networkFailure, "tryAgain": text.tryAgain, "newCodeSent": text.newCodeSent,
            "resendIn": text.string(.resendIn, ["time": .text("{time}")]), "resendCode": text.resendCode,
            "resendAvailable": text.resendAvailable,
            "rateLimited": text.string(.rateLimited, ["time": .text("{time}")]),
            "deliveryFailed": text.deliveryFailed, "maxSendsReached": text.maxSendsReached,
            "startRefused": text.startRefused,
            "destinationPaused": text.string(.destinationPaused, ["time": .text("{time}")]),
            "notPending": text.notPending, "notFound": text.notFound,
            "invalidFormat": text.invalidFormat(format), "fieldValue": fieldValue,
            "fieldValueWithStatus": text.string(
                .fieldValueWithStatus, ["value": .text("{value}"), "status": .text("{status}")]),
        ]
    }

    /// The page for a token this server did not make.
    static func notFoundPage(text: ScreenText) -> String {
        let language = text.language
        return """
            <!doctype html>
            <html lang="\(language.rawValue)" dir="\(language.isRightToLeft ? "rtl" : "ltr")">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(text.notFound))</title><link rel="stylesheet" href="/v/assets/otp.css"></head>
            <body class="otp-body"><main id="otp" class="otp"><h1 id="otp-title">\(escape(text.notFound))</h1></main></body>
            </html>

            """
    }

    /// Text made safe for HTML element content and double-quoted attributes.
    static func escape(_ text: String) -> String {
        MessageTemplate.escapeHTML(text)
    }

    /// The page's language from an `Accept-Language` header: the first of its languages, by
    /// quality, that the catalog has; English otherwise.
    static func language(acceptLanguage header: String?) -> TextLanguage {
        guard let header else { return .english }
        let ranked =
            header.split(separator: ",").enumerated().compactMap { index, item -> (String, Double, Int)? in
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let tag = parts.first, !tag.isEmpty else { return nil }
                var quality = 1.0
                for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                    quality = Double(parameter.dropFirst(2)) ?? 0
                }
                return quality > 0 ? (tag, quality, index) : nil
            }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
        return TextLanguage.preferred(from: ranked.map(\.0))
    }
}
