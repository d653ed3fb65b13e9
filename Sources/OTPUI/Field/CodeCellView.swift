#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// One visible cell of the code field, drawn from OTPCore's ``CodeCell``.
    struct CodeCellView: View {
        let cell: CodeCell
        let width: CGFloat
        let height: CGFloat
        var fontSize: CGFloat = 22
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast
        @Environment(\.accessibilityReduceMotion) private var reduceMotion

        var body: some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            let shape = RoundedRectangle(cornerRadius: theme.cornerRadius, style: .continuous)
            Text(verbatim: cell.text)
                .font(.system(size: fontSize, weight: .semibold, design: .rounded).monospacedDigit())
                .foregroundStyle(palette.color(for: cell.role))
                .keyframeAnimator(initialValue: CGFloat(1), trigger: cell.text) { view, scale in
                    view.scaleEffect(scale)
                } keyframes: { [steps = Motion.pop(reduceMotion: reduceMotion)] _ in
                    for step in steps {
                        CubicKeyframe(CGFloat(step.value), duration: step.duration)
                    }
                }
                .frame(width: width, height: height)
                .background(palette.surface, in: shape)
                .overlay {
                    shape.strokeBorder(
                        palette.outline(for: cell.role, isNext: cell.isNext),
                        lineWidth: CGFloat(
                            Motion.outlineWidth(isNext: cell.isNext, isSelected: cell.isSelected)))
                }
                .scaleEffect(CGFloat(Motion.cellScale(isNext: cell.isNext, reduceMotion: reduceMotion)))
                .animation(.snappy, value: cell)
        }
    }

    #Preview("Cells") {
        CodeCellsPreview()
    }

    #Preview("Cells, dark") {
        CodeCellsPreview()
            .preferredColorScheme(.dark)
    }

    /// Every colour role and the highlight, side by side.
    private struct CodeCellsPreview: View {
        private let cells = [
            CodeCell(id: 0, text: "4", isNext: false, role: .neutral),
            CodeCell(id: 1, text: "", isNext: true, role: .neutral),
            CodeCell(id: 2, text: "8", isNext: false, role: .progress),
            CodeCell(id: 3, text: "2", isNext: false, role: .error),
            CodeCell(id: 4, text: "0", isNext: false, role: .success),
            CodeCell(id: 5, text: "•", isNext: false, role: .disabled),
        ]

        var body: some View {
            HStack(spacing: 8) {
                ForEach(cells) { cell in
                    CodeCellView(cell: cell, width: 44, height: 54)
                }
            }
            .padding()
        }
    }
#endif
