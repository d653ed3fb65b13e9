#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    extension View {
        /// Asks the system for one-time-code autofill and the right keyboard (UX F1).
        ///
        /// The iOS and macOS branches use platform types; a Linux type-check does
        /// not compile them, only an Xcode build does.
        @ViewBuilder
        func oneTimeCodeInput(_ kind: CodeFormat.Kind) -> some View {
            #if canImport(UIKit)
                self
                    .textContentType(.oneTimeCode)
                    .keyboardType(kind == .digits ? .numberPad : .asciiCapable)
                    .textInputAutocapitalization(kind == .digits ? .never : .characters)
                    .autocorrectionDisabled()
            #elseif os(macOS)
                self
                    .textContentType(.oneTimeCode)
                    .autocorrectionDisabled()
            #else
                self.autocorrectionDisabled()
            #endif
        }
    }
#endif
