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

    /// What the code field draws between two groups of cells (UX F2).
    public enum CodeSeparatorStyle: Sendable, Hashable {
        /// A short line, as a dash.
        case line
        /// Empty space only.
        case gap
    }

    private struct CodeSeparatorStyleKey: EnvironmentKey {
        static let defaultValue = CodeSeparatorStyle.line
    }

    extension EnvironmentValues {
        /// What code fields draw between groups; ``CodeSeparatorStyle/line`` unless overridden.
        public var codeSeparatorStyle: CodeSeparatorStyle {
            get { self[CodeSeparatorStyleKey.self] }
            set { self[CodeSeparatorStyleKey.self] = newValue }
        }
    }

    extension View {
        /// Sets what code fields inside this view draw between groups of cells; the groups
        /// themselves come from the format, such as `CodeFormat(length: 6, groups: [2, 2, 2])`.
        public func codeSeparatorStyle(_ style: CodeSeparatorStyle) -> some View {
            environment(\.codeSeparatorStyle, style)
        }
    }
#endif
