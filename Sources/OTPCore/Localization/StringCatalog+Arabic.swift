extension StringCatalog {
    /// Arabic.
    static let arabic: [TextKey: CatalogEntry] = [
        .title: .text("أدخل الرمز"),
        .sentToDigits: .plural(
            on: "length",
            forms: [
                .zero: "أرسلنا رمزًا مكوّنًا من {length} رقم إلى",
                .one: "أرسلنا رمزًا مكوّنًا من {length} رقم إلى",
                .two: "أرسلنا رمزًا مكوّنًا من {length} رقمين إلى",
                .few: "أرسلنا رمزًا مكوّنًا من {length} أرقام إلى",
                .many: "أرسلنا رمزًا مكوّنًا من {length} رقمًا إلى",
                .other: "أرسلنا رمزًا مكوّنًا من {length} رقم إلى",
            ]),
        .sentToCharacters: .plural(
            on: "length",
            forms: [
                .zero: "أرسلنا رمزًا مكوّنًا من {length} حرف إلى",
                .one: "أرسلنا رمزًا مكوّنًا من {length} حرف إلى",
                .two: "أرسلنا رمزًا مكوّنًا من {length} حرفين إلى",
                .few: "أرسلنا رمزًا مكوّنًا من {length} أحرف إلى",
                .many: "أرسلنا رمزًا مكوّنًا من {length} حرفًا إلى",
                .other: "أرسلنا رمزًا مكوّنًا من {length} حرف إلى",
            ]),
        .approveTransaction: .text("الموافقة على دفع {amount} {currency} إلى {payee}"),
        .continueButton: .text("متابعة"),
        .sendingCode: .text("جارٍ إرسال الرمز…"),
        .verifying: .text("جارٍ التحقق…"),
        .incorrect: .plural(
            on: "count",
            forms: [
                .zero: "الرمز غير صحيح. تبقّت {count} محاولة.",
                .one: "الرمز غير صحيح. تبقّت محاولة واحدة.",
                .two: "الرمز غير صحيح. تبقّت محاولتان.",
                .few: "الرمز غير صحيح. تبقّت {count} محاولات.",
                .many: "الرمز غير صحيح. تبقّت {count} محاولة.",
                .other: "الرمز غير صحيح. تبقّت {count} محاولة.",
            ]),
        .codeRejected: .text("الرمز غير صحيح."),
        .locked: .text("محاولات كثيرة جدًا. اطلب رمزًا جديدًا."),
        .expired: .text("انتهت صلاحية هذا الرمز."),
        .verified: .text("تم التحقق"),
        .networkFailure: .text("تعذّر الاتصال بالخادم. حاول مرة أخرى."),
        .tryAgain: .text("إعادة المحاولة"),
        .biometricLabel: .text("استخدام Face ID"),
        .newCodeSent: .text("تم إرسال رمز جديد"),
        .resendIn: .text("إعادة الإرسال بعد {time}"),
        .resendCode: .text("إعادة إرسال الرمز"),
        .resendAvailable: .text("يمكنك طلب رمز جديد"),
        .rateLimited: .text("محاولات كثيرة جدًا. حاول مرة أخرى بعد {time}."),
        .deliveryFailed: .text("تعذّر إرسال رمز جديد. حاول مرة أخرى."),
        .maxSendsReached: .text("لا يمكن إرسال المزيد من الرموز. ابدأ من جديد لاحقًا."),
        .authenticatorPrompt: .text("أدخل الرمز من تطبيق المصادقة."),
        .codeAlreadyUsed: .text("تم استخدام هذا الرمز بالفعل. انتظر الرمز التالي."),
        .authenticatorLocked: .text("محاولات كثيرة جدًا. سجّل الدخول باستخدام رمز استرداد."),
        .notPending: .text("عملية التحقق هذه لم تعد نشطة."),
        .notFound: .text("لم يتم العثور على عملية التحقق هذه."),
        .invalidFormatDigits: .plural(
            on: "length",
            forms: [
                .zero: "يجب أن يتكوّن الرمز من {length} رقم.",
                .one: "يجب أن يتكوّن الرمز من {length} رقم.",
                .two: "يجب أن يتكوّن الرمز من {length} رقمين.",
                .few: "يجب أن يتكوّن الرمز من {length} أرقام.",
                .many: "يجب أن يتكوّن الرمز من {length} رقمًا.",
                .other: "يجب أن يتكوّن الرمز من {length} رقم.",
            ]),
        .invalidFormatCharacters: .plural(
            on: "length",
            forms: [
                .zero: "يجب أن يتكوّن الرمز من {length} حرف.",
                .one: "يجب أن يتكوّن الرمز من {length} حرف.",
                .two: "يجب أن يتكوّن الرمز من {length} حرفين.",
                .few: "يجب أن يتكوّن الرمز من {length} أحرف.",
                .many: "يجب أن يتكوّن الرمز من {length} حرفًا.",
                .other: "يجب أن يتكوّن الرمز من {length} حرف.",
            ]),
        .invalidDestination: .text("أدخل رقم هاتف أو عنوان بريد إلكتروني."),
        .startFailed: .text("تعذّر إرسال الرمز. حاول مرة أخرى."),
        .destinationRefused: .text(
            "لا يمكن إرسال الرموز إلى هذا الرقم أو العنوان. استخدم رقمًا أو عنوانًا آخر."),
        .destinationPaused: .text("لا يمكن إرسال الرموز إلى هذا الرقم الآن. حاول مرة أخرى بعد {time}."),
        .startRefused: .text("لا يمكن إرسال رمز الآن. حاول مرة أخرى لاحقًا."),
        .suggestionFromMessages: .text("من الرسائل"),
        .suggestionFromMail: .text("من البريد"),
        .suggestionFromNotification: .text("من إشعار"),
        .suggestionFromAuthenticator: .text("من تطبيق المصادقة"),
        .suggestionFromLink: .text("من رابط"),
        .suggestionLabel: .text("إدخال الرمز {code}، {source}"),
        .fieldLabel: .text("رمز التحقق"),
        .fieldValueDigits: .plural(
            on: "length",
            forms: [
                .zero: "{count} من {length} رقم",
                .one: "{count} من {length} رقم",
                .two: "{count} من {length} رقمين",
                .few: "{count} من {length} أرقام",
                .many: "{count} من {length} رقمًا",
                .other: "{count} من {length} رقم",
            ]),
        .fieldValueCharacters: .plural(
            on: "length",
            forms: [
                .zero: "{count} من {length} حرف",
                .one: "{count} من {length} حرف",
                .two: "{count} من {length} حرفين",
                .few: "{count} من {length} أحرف",
                .many: "{count} من {length} حرفًا",
                .other: "{count} من {length} حرف",
            ]),
        .fieldValueWithStatus: .text("{value}، {status}"),
        .pinLabel: .text("رمز الدخول"),
        .pinValue: .text("تم إدخال {count} من {length}"),
        .keyDelete: .text("حذف"),
        .keyDecimalPoint: .text("فاصلة عشرية"),
        .terminalHints: .text(
            "الأرقام للكتابة · ← → لاختيار رقم · Backspace للحذف · "
                + "Tab لقبول الاقتراح · r لإعادة الإرسال · q للخروج"),
        .terminalHintsLetters: .text(
            "الأحرف والأرقام للكتابة · ← → لاختيار حرف · Backspace للحذف · "
                + "Tab لقبول الاقتراح · Ctrl-R لإعادة الإرسال · Esc للخروج"),
        .verifyButton: .text("تحقّق"),
    ]
}
