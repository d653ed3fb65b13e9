// libFuzzer target: code normalisation and code entry (OTPCore's CodeNormalizer and CodeEntry).
//
// Built by scripts/reliability/fuzz.sh together with OTPCore's sources in one module, so it sees
// internal symbols too. Every input is read as UTF-8 (lossily, as a paste would be) and, from its
// first byte, a format; the properties below must hold for every input, or the target traps and
// libFuzzer saves the input.

import Foundation

/// libFuzzer calls this once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNormalizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let selector = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let format = CodeFormat(
        length: Int(selector % 8) + 1, kind: selector & 0x80 == 0 ? .digits : .alphanumeric)

    // The server's rule: only the format's ASCII characters, never more than twice the length
    // unless the text held that many, and the same answer when run again.
    let uncut = CodeNormalizer.normalizeUncut(text, for: format)
    require(uncut.allSatisfy { format.allows($0) }, "uncut result holds a character outside the format")
    require(uncut.unicodeScalars.count == uncut.count, "uncut result is not one scalar per character")
    require(
        CodeNormalizer.normalizeUncut(uncut, for: format) == uncut, "normalising twice changes the result")

    // The screen's rule: the same characters cut to the length.
    let cut = CodeNormalizer.normalize(text, for: format)
    require(cut.count <= format.length, "cut result is longer than the format")
    require(uncut.hasPrefix(cut), "cut result is not a prefix of the uncut one")

    // Code entry: typing, pasting and replacing the text never leave more than the format allows.
    var entry = CodeEntry(format: format)
    entry.insert(text)
    require(entry.value.count <= format.length, "insert left a value longer than the format")
    require(entry.value.allSatisfy { format.allows($0) }, "insert left a character outside the format")
    entry.deleteBackward()
    entry.apply(text: text)
    require(entry.value.count <= format.length, "apply left a value longer than the format")
    require(entry.value.allSatisfy { format.allows($0) }, "apply left a character outside the format")
    _ = entry.accessibilityValue
    entry.clear()
    require(entry.value.isEmpty, "clear left a value")
    return 0
}

/// Stops the run with a message when a property does not hold.
func require(_ condition: Bool, _ message: StaticString) {
    if !condition { fatalError("\(message)") }
}
