#if canImport(SwiftUI)
    import SwiftUI

    /// A key or bar drawn on the theme's surface, darker while pressed.
    struct KeyButtonStyle: ButtonStyle {
        let shape: RoundedRectangle
        let fill: Color
        let pressedFill: Color

        func makeBody(configuration: Configuration) -> some View {
            configuration.label
                .background(configuration.isPressed ? pressedFill : fill, in: shape)
                .contentShape(shape)
        }
    }
#endif
