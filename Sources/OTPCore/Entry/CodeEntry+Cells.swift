extension CodeEntry {
    /// The selection a tap on a cell asks for (F11): the cell when it is filled, else none; and
    /// under VoiceOver none at all, so the field stays one element that types at the end (F10).
    public static func selection(forTapOn cell: CodeCell, voiceOver: Bool) -> Int? {
        voiceOver || cell.text.isEmpty ? nil : cell.id
    }

    /// The cells for this entry (F7–F9): text (or `•` when masked), the next-cell highlight, a colour role.
    ///
    /// The highlighted cell (the selected one, else the next to fill; F8, F11) shows only while focused,
    /// editable and not showing a rejected code.
    public func cells(isFocused: Bool, isEditable: Bool = true, isMasked: Bool, role: ColorRole) -> [CodeCell]
    {
        let highlighted = isFocused && isEditable && !isRejected ? highlightedIndex : nil
        return characters.enumerated().map { index, character in
            let text = character.map { isMasked ? "•" : String($0) } ?? ""
            return CodeCell(
                id: index, text: text, isNext: index == highlighted,
                role: role, isSelected: isEditable && index == selection)
        }
    }

    /// The cells of a field used on its own: neutral, or in the error colour after a rejection.
    public func cells(isFocused: Bool, isMasked: Bool, isInvalid: Bool) -> [CodeCell] {
        cells(isFocused: isFocused, isMasked: isMasked, role: isInvalid ? .error : .neutral)
    }
}
