extension StringCatalog {
    /// German.
    static let german: [TextKey: CatalogEntry] = [
        .title: .text("Code eingeben"),
        .sentToDigits: .plural(
            on: "length",
            forms: [
                .one: "Wir haben einen {length}-stelligen Code gesendet an",
                .other: "Wir haben einen {length}-stelligen Code gesendet an",
            ]),
        .sentToCharacters: .plural(
            on: "length",
            forms: [
                .one: "Wir haben einen Code mit {length} Zeichen gesendet an",
                .other: "Wir haben einen Code mit {length} Zeichen gesendet an",
            ]),
        .approveTransaction: .text("{amount} {currency} an {payee} freigeben"),
        .continueButton: .text("Weiter"),
        .goBack: .text("Ohne Bestätigung zurück"),
        .sendingCode: .text("Code wird gesendet …"),
        .verifying: .text("Wird überprüft …"),
        .incorrect: .plural(
            on: "count",
            forms: [
                .one: "Der Code stimmt nicht. Noch {count} Versuch.",
                .other: "Der Code stimmt nicht. Noch {count} Versuche.",
            ]),
        .codeRejected: .text("Der Code stimmt nicht."),
        .locked: .text("Zu viele Versuche. Fordern Sie einen neuen Code an."),
        .expired: .text("Dieser Code ist abgelaufen."),
        .verified: .text("Bestätigt"),
        .networkFailure: .text("Der Server ist nicht erreichbar. Versuchen Sie es erneut."),
        .tryAgain: .text("Erneut versuchen"),
        .biometricLabel: .text("Face ID verwenden"),
        .newCodeSent: .text("Neuer Code gesendet"),
        .resendIn: .text("Erneut senden in {time}"),
        .resendCode: .text("Code erneut senden"),
        .resendAvailable: .text("Sie können einen neuen Code anfordern"),
        .rateLimited: .text("Zu viele Versuche. Versuchen Sie es in {time} erneut."),
        .deliveryFailed: .text("Es konnte kein neuer Code gesendet werden. Versuchen Sie es erneut."),
        .maxSendsReached: .text(
            "Es können keine weiteren Codes gesendet werden. Versuchen Sie es später erneut."),
        .authenticatorPrompt: .text("Geben Sie den Code aus Ihrer Authenticator-App ein."),
        .codeAlreadyUsed: .text("Dieser Code wurde bereits verwendet. Warten Sie auf den nächsten."),
        .authenticatorLocked: .text(
            "Zu viele Versuche. Melden Sie sich mit einem Wiederherstellungscode an."),
        .notPending: .text("Diese Verifizierung ist nicht mehr aktiv."),
        .notFound: .text("Diese Verifizierung wurde nicht gefunden."),
        .invalidFormatDigits: .plural(
            on: "length",
            forms: [.one: "Geben Sie {length} Ziffer ein.", .other: "Geben Sie alle {length} Ziffern ein."]),
        .invalidFormatCharacters: .plural(
            on: "length",
            forms: [.one: "Geben Sie {length} Zeichen ein.", .other: "Geben Sie alle {length} Zeichen ein."]),
        .invalidDestination: .text("Geben Sie eine Telefonnummer oder E-Mail-Adresse ein."),
        .startFailed: .text("Der Code konnte nicht gesendet werden. Versuchen Sie es erneut."),
        .destinationRefused: .text(
            "An diese Nummer oder Adresse können keine Codes gesendet werden. Verwenden Sie eine andere."),
        .destinationPaused: .text(
            "An diese Nummer können gerade keine Codes gesendet werden. Versuchen Sie es in {time} erneut."),
        .startRefused: .text("Gerade kann kein Code gesendet werden. Versuchen Sie es später erneut."),
        .suggestionFromMessages: .text("Aus Nachrichten"),
        .suggestionFromMail: .text("Aus Mail"),
        .suggestionFromNotification: .text("Aus einer Mitteilung"),
        .suggestionFromAuthenticator: .text("Aus Ihrer Authenticator-App"),
        .suggestionFromLink: .text("Aus einem Link"),
        .suggestionLabel: .text("Code {code} eingeben, {source}"),
        .fieldLabel: .text("Bestätigungscode"),
        .fieldValueDigits: .plural(
            on: "length",
            forms: [.one: "{count} von {length} Ziffer", .other: "{count} von {length} Ziffern"]),
        .fieldValueCharacters: .plural(
            on: "length",
            forms: [.one: "{count} von {length} Zeichen", .other: "{count} von {length} Zeichen"]),
        .fieldValueWithStatus: .text("{value}, {status}"),
        .pinLabel: .text("Code"),
        .pinValue: .text("{count} von {length} eingegeben"),
        .pinRejected: .text("Code nicht akzeptiert. Bitte erneut versuchen."),
        .keyDelete: .text("Löschen"),
        .keyDecimalPoint: .text("Dezimalzeichen"),
        .terminalHints: .text(
            "Ziffern tippen · ← → wählt eine Ziffer · Backspace löscht · "
                + "Tab übernimmt den Vorschlag · r sendet erneut · q beendet"),
        .terminalHintsLetters: .text(
            "Buchstaben und Ziffern tippen · ← → wählt ein Zeichen · Backspace löscht · "
                + "Tab übernimmt den Vorschlag · Strg-R sendet erneut · Esc beendet"),
        .verifyButton: .text("Bestätigen"),
    ]
}
