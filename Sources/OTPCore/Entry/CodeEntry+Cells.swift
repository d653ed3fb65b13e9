extension CodeEntry {
    /// The cells for this entry (F7–F9): text (or `•` when masked), the next-cell highlight, a colour role.
    ///
    /// The next cell is highlighted only while focused, editable and not showing a rejected code.
    public func cells(isFocused: Bool, isEditable: Bool = true, isMasked: Bool, role: ColorRole) -> [CodeCell]
    {
        let characters = Array(value)
        let highlightsNext = isFocused && isEditable && !isRejected
        return (0..<format.length).map { index in
            let text = index < characters.count ? (isMasked ? "•" : String(characters[index])) : ""
            return CodeCell(
                id: index, text: text, isNext: highlightsNext && index == characters.count, role: role)
        }
    }

    /// The cells of a field used on its own: neutral, or in the error colour after a rejection.
    public func cells(isFocused: Bool, isMasked: Bool, isInvalid: Bool) -> [CodeCell] {
        cells(isFocused: isFocused, isMasked: isMasked, role: isInvalid ? .error : .neutral)
    }
}
