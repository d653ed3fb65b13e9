#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The code field's drawing: one hidden real text field (UX F1) under the
    /// visible cells, grouped (F2), shaking on rejection (F6), read by assistive
    /// technology as one element (F10).
    ///
    /// Everything it shows comes in ready-made: the cells from OTPCore, already
    /// split into their groups, the text binding that feeds OTPCore, the labels
    /// and the shake trigger.
    struct CodeCellsInput: View {
        let text: Binding<String>
        let cellGroups: [[CodeCell]]
        let kind: CodeFormat.Kind
        let accessibilityLabel: String
        let accessibilityValue: String
        let shakeTrigger: Int
        let isFocused: FocusState<Bool>.Binding

        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @ScaledMetric(relativeTo: .title2) private var cellWidth: CGFloat = 44
        @ScaledMetric(relativeTo: .title2) private var cellHeight: CGFloat = 54
        @ScaledMetric(relativeTo: .title2) private var cellSpacing: CGFloat = 8

        var body: some View {
            ZStack {
                hiddenField
                cellsRow
                    .allowsHitTesting(false)
                    .accessibilityHidden(true)
            }
            .contentShape(Rectangle())
            .onTapGesture { isFocused.wrappedValue = true }
            .keyframeAnimator(initialValue: CGFloat.zero, trigger: shakeTrigger) { view, offset in
                view.offset(x: offset)
            } keyframes: { [steps = Motion.shake(reduceMotion: reduceMotion)] _ in
                for step in steps {
                    CubicKeyframe(CGFloat(step.value), duration: step.duration)
                }
            }
        }

        /// The real text field: nearly transparent, as large as the cells so it stays focusable
        /// and offers Paste, and the one element assistive technology reads.
        private var hiddenField: some View {
            TextField(accessibilityLabel, text: text)
                .oneTimeCodeInput(kind)
                .focused(isFocused)
                .foregroundStyle(Color.clear)
                .opacity(0.02)
                .accessibilityLabel(Text(accessibilityLabel))
                .accessibilityValue(Text(accessibilityValue))
        }

        /// The cells in their groups, always left to right (UX V10).
        private var cellsRow: some View {
            let palette = theme.palette(for: colorScheme)
            return HStack(spacing: cellSpacing * 2) {
                ForEach(Array(cellGroups.enumerated()), id: \.offset) { index, group in
                    if index > 0 {
                        Capsule()
                            .fill(palette.border)
                            .frame(width: cellSpacing * 1.5, height: 3)
                    }
                    HStack(spacing: cellSpacing) {
                        ForEach(group) { cell in
                            CodeCellView(cell: cell, width: cellWidth, height: cellHeight)
                        }
                    }
                }
            }
            .environment(\.layoutDirection, .leftToRight)
        }
    }
#endif
