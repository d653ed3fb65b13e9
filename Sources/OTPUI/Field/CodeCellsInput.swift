#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The code field's drawing: one real text field (UX F1) under the visible cells, grouped
    /// (F2), laid out for the width and text size, shaking on rejection (F6), read by assistive
    /// technology as one element (F10).
    ///
    /// Everything it shows comes in ready-made: the cells from OTPCore, the connection that
    /// feeds OTPCore, the labels and the shake trigger. Sizes and row breaks come from
    /// ``CodeLayout``, a pure function of the measured width and the Dynamic Type size.
    struct CodeCellsInput: View {
        let connection: CodeInputConnection
        let cells: [CodeCell]
        let format: CodeFormat
        let shakeTrigger: Int

        @State private var width: CGFloat = 0
        /// Counts taps on the cells; each asks the text field for the keyboard.
        @State private var focusRequests = 0
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @Environment(\.accessibilityVoiceOverEnabled) private var voiceOver
        @Environment(\.dynamicTypeSize) private var dynamicTypeSize
        @Environment(\.codeSeparatorStyle) private var separatorStyle

        var body: some View {
            let layout = CodeLayout(width: Double(width), format: format, textSize: TextSize(dynamicTypeSize))
            ZStack {
                input
                    .frame(width: CGFloat(layout.width), height: CGFloat(layout.height))
                cellRows(layout)
                    .accessibilityHidden(true)
            }
            .frame(maxWidth: .infinity)
            // The field is one element with the value F10 defines (item 9): the text field under it,
            // which holds the characters even in masked mode, is never what VoiceOver reads.
            .accessibilityElement(children: .ignore)
            .accessibilityLabel(Text(verbatim: connection.accessibilityLabel))
            .accessibilityValue(Text(verbatim: connection.accessibilityValue))
            .background {
                GeometryReader { proxy in
                    Color.clear
                        .onAppear { width = proxy.size.width }
                        .onChange(of: proxy.size.width) { _, newWidth in width = newWidth }
                }
            }
            .keyframeAnimator(initialValue: CGFloat.zero, trigger: shakeTrigger) { view, offset in
                view.offset(x: offset)
            } keyframes: { [steps = Motion.shake(reduceMotion: reduceMotion)] _ in
                for step in steps {
                    CubicKeyframe(CGFloat(step.value), duration: step.duration)
                }
            }
        }

        /// The real text field: UIKit's where it exists, so every edit arrives with its range.
        @ViewBuilder
        private var input: some View {
            #if canImport(UIKit)
                CodeTextField(connection: connection, focusRequest: focusRequests)
            #else
                BoundCodeTextField(connection: connection, focusRequest: focusRequests)
            #endif
        }

        /// A tapped cell (F11): a filled one is selected so the next key replaces only it, an empty
        /// one gives the selection up; either way the field takes the keyboard, as a tap on it would.
        private func tap(_ cell: CodeCell) {
            connection.select(CodeEntry.selection(forTapOn: cell, voiceOver: voiceOver))
            focusRequests += 1
        }

        /// The cells in their rows and groups, always left to right (UX V10).
        private func cellRows(_ layout: CodeLayout) -> some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            return VStack(spacing: CGFloat(layout.rowSpacing)) {
                ForEach(Array(layout.rows.enumerated()), id: \.offset) { _, row in
                    HStack(spacing: 0) {
                        ForEach(Array(row.enumerated()), id: \.offset) { index, group in
                            if index > 0 {
                                Capsule()
                                    .fill(separatorStyle == .line ? palette.border : Color.clear)
                                    .frame(width: CGFloat(layout.separatorWidth), height: 3)
                                    .padding(
                                        .horizontal,
                                        CGFloat((layout.groupSpacing - layout.separatorWidth) / 2))
                            }
                            HStack(spacing: CGFloat(layout.spacing)) {
                                ForEach(Array(cells[group])) { cell in
                                    CodeCellView(
                                        cell: cell, width: CGFloat(layout.cellWidth),
                                        height: CGFloat(layout.cellHeight), fontSize: CGFloat(layout.fontSize)
                                    )
                                    .contentShape(Rectangle())
                                    .onTapGesture { tap(cell) }
                                }
                            }
                        }
                    }
                }
            }
            .environment(\.layoutDirection, .leftToRight)
        }
    }

    extension TextSize {
        /// The text size of a Dynamic Type size.
        init(_ size: DynamicTypeSize) {
            switch size {
            case .xSmall: self = .xSmall
            case .small: self = .small
            case .medium: self = .medium
            case .large: self = .large
            case .xLarge: self = .xLarge
            case .xxLarge: self = .xxLarge
            case .xxxLarge: self = .xxxLarge
            case .accessibility1: self = .accessibility1
            case .accessibility2: self = .accessibility2
            case .accessibility3: self = .accessibility3
            case .accessibility4: self = .accessibility4
            case .accessibility5: self = .accessibility5
            @unknown default: self = .large
            }
        }
    }
#endif
