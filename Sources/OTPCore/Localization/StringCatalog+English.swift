extension StringCatalog {
    /// English: the source language, and the fallback for a key another language lacks.
    static let english: [TextKey: CatalogEntry] = [
        .title: .text("Enter the code"),
        .sentToDigits: .plural(
            on: "length",
            forms: [.one: "We sent a {length}-digit code to", .other: "We sent a {length}-digit code to"],
            exact: [8: "We sent an {length}-digit code to", 11: "We sent an {length}-digit code to"]),
        .sentToCharacters: .plural(
            on: "length",
            forms: [
                .one: "We sent a {length}-character code to", .other: "We sent a {length}-character code to",
            ],
            exact: [8: "We sent an {length}-character code to", 11: "We sent an {length}-character code to"]),
        .approveTransaction: .text("Approve {amount} {currency} to {payee}"),
        .continueButton: .text("Continue"),
        .goBack: .text("Go back without verifying"),
        .sendingCode: .text("Sending a code…"),
        .verifying: .text("Verifying…"),
        .incorrect: .plural(
            on: "count",
            forms: [
                .one: "Code doesn't match. {count} attempt left.",
                .other: "Code doesn't match. {count} attempts left.",
            ]),
        .codeRejected: .text("Code doesn't match."),
        .locked: .text("Too many attempts. Request a new code."),
        .expired: .text("This code has expired."),
        .verified: .text("Verified"),
        .networkFailure: .text("Couldn't reach the server. Try again."),
        .tryAgain: .text("Try again"),
        .biometricLabel: .text("Use Face ID"),
        .newCodeSent: .text("New code sent"),
        .resendIn: .text("Resend in {time}"),
        .resendCode: .text("Resend code"),
        .resendAvailable: .text("You can request a new code"),
        .rateLimited: .text("Too many tries. Try again in {time}."),
        .deliveryFailed: .text("Couldn't send a new code. Try again."),
        .maxSendsReached: .text("No more codes can be sent. Start again later."),
        .authenticatorPrompt: .text("Enter the code from your authenticator app."),
        .codeAlreadyUsed: .text("That code was already used. Wait for the next one."),
        .authenticatorLocked: .text("Too many attempts. Sign in with a recovery code."),
        .notPending: .text("This verification is no longer active."),
        .notFound: .text("This verification was not found."),
        .invalidFormatDigits: .plural(
            on: "length", forms: [.one: "Enter the {length} digit.", .other: "Enter all {length} digits."]),
        .invalidFormatCharacters: .plural(
            on: "length",
            forms: [.one: "Enter the {length} character.", .other: "Enter all {length} characters."]),
        .invalidDestination: .text("Enter a phone number or email address."),
        .startFailed: .text("Couldn't send the code. Try again."),
        .destinationRefused: .text("Codes can't be sent to this number or address. Use another one."),
        .destinationPaused: .text("Codes can't be sent to this number right now. Try again in {time}."),
        .startRefused: .text("A code can't be sent right now. Try again later."),
        .suggestionFromMessages: .text("From Messages"),
        .suggestionFromMail: .text("From Mail"),
        .suggestionFromNotification: .text("From a notification"),
        .suggestionFromAuthenticator: .text("From your authenticator"),
        .suggestionFromLink: .text("From a link"),
        .suggestionLabel: .text("Fill in code {code}, {source}"),
        .fieldLabel: .text("Verification code"),
        .fieldValueDigits: .plural(
            on: "length", forms: [.one: "{count} of {length} digit", .other: "{count} of {length} digits"]),
        .fieldValueCharacters: .plural(
            on: "length",
            forms: [.one: "{count} of {length} character", .other: "{count} of {length} characters"]),
        .fieldValueWithStatus: .text("{value}, {status}"),
        .pinLabel: .text("Passcode"),
        .pinValue: .text("{count} of {length} entered"),
        .pinRejected: .text("Passcode not accepted. Try again."),
        .keyDelete: .text("Delete"),
        .keyDecimalPoint: .text("Decimal point"),
        .terminalHints: .text(
            "digits type · ← → select a digit · Backspace deletes · "
                + "Tab takes the suggestion · r resends · q quits"),
        .terminalHintsLetters: .text(
            "letters and digits type · ← → select a character · Backspace deletes · "
                + "Tab takes the suggestion · Ctrl-R resends · Esc quits"),
        .verifyButton: .text("Verify"),
    ]
}
