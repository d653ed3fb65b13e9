#if canImport(SwiftUI)
    import OTPCore

    extension CodeEntry {
        /// The cells of a field used on its own, without a ``VerificationModel``.
        ///
        /// OTPCore's ``CodeEntry`` does not offer cells; this follows
        /// `VerificationMachine.cells` (F7–F9) for the two states a field on its
        /// own has: neutral, or invalid after a rejection.
        func fieldCells(isFocused: Bool, isMasked: Bool, isInvalid: Bool) -> [CodeCell] {
            let characters = Array(value)
            let highlightsNext = isFocused && !isRejected
            return (0..<format.length).map { index in
                let text = index < characters.count ? (isMasked ? "•" : String(characters[index])) : ""
                return CodeCell(
                    id: index, text: text, isNext: highlightsNext && index == characters.count,
                    role: isInvalid ? .error : .neutral)
            }
        }
    }
#endif
