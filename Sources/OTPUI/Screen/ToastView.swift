#if canImport(SwiftUI)
    import SwiftUI

    /// A short confirmation over the screen, such as "New code sent" (UX V6).
    struct ToastView: View {
        let text: String
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast

        var body: some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            Text(verbatim: text)
                .font(.subheadline.weight(.semibold))
                .foregroundStyle(palette.surface)
                .padding(.horizontal, theme.spacing * 2)
                .padding(.vertical, theme.spacing)
                .background(palette.label, in: Capsule())
        }
    }

    #Preview("Toast") {
        ToastView(text: "New code sent")
            .padding()
    }

    #Preview("Toast, dark") {
        ToastView(text: "New code sent")
            .padding()
            .preferredColorScheme(.dark)
    }
#endif
