#if canImport(SwiftUI)
    import SwiftUI

    private struct OTPThemeKey: EnvironmentKey {
        static let defaultValue = OTPTheme.standard
    }

    extension EnvironmentValues {
        /// The theme OTPKit's views draw with; ``OTPTheme/standard`` unless overridden.
        public var otpTheme: OTPTheme {
            get { self[OTPThemeKey.self] }
            set { self[OTPThemeKey.self] = newValue }
        }
    }

    extension View {
        /// Draws OTPKit's views inside this view with another theme.
        public func otpTheme(_ theme: OTPTheme) -> some View {
            environment(\.otpTheme, theme)
        }
    }
#endif
