/// The shape of a one-time code: how many characters, and which ones.
public struct CodeFormat: Sendable, Hashable, Codable {
    /// Which characters a code may hold.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// ASCII digits `0`–`9`.
        case digits
        /// ASCII digits and upper-case letters `A`–`Z`.
        case alphanumeric
    }

    /// The shortest code allowed.
    public static let minimumLength = 4
    /// The longest code allowed.
    public static let maximumLength = 8
    /// The default: six digits.
    public static let `default` = CodeFormat()

    /// The number of characters, clamped to 4–8.
    public let length: Int
    /// Which characters the code holds.
    public let kind: Kind
    /// The caller's grouping, when it is one that adds up to the length.
    private let customGroups: [Int]?

    /// Creates a format; a length outside 4–8 is clamped into that range.
    ///
    /// - Parameters:
    ///   - length: The number of characters.
    ///   - kind: Digits, or digits and letters.
    ///   - groups: How the cells are grouped on screen, such as `[2, 2, 2]`, or `[6]` for one
    ///     group without a separator; `nil`, or sizes that do not add up to the length, keep
    ///     the default (3 + 3 for six, 4 + 4 for eight).
    public init(length: Int = 6, kind: Kind = .digits, groups: [Int]? = nil) {
        let length = min(max(length, Self.minimumLength), Self.maximumLength)
        self.length = length
        self.kind = kind
        if let groups, groups.allSatisfy({ $0 > 0 }), groups.reduce(0, +) == length {
            customGroups = groups
        } else {
            customGroups = nil
        }
    }

    /// Whether a character (already normalised) belongs to this format.
    public func allows(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch kind {
        case .digits:
            return (0x30...0x39).contains(ascii)
        case .alphanumeric:
            return (0x30...0x39).contains(ascii) || (0x41...0x5A).contains(ascii)
        }
    }

    /// How the cells are grouped on screen: the caller's grouping, or 6 as 3 + 3, 8 as 4 + 4,
    /// others as one group.
    public var groups: [Int] {
        if let customGroups { return customGroups }
        switch length {
        case 6: return [3, 3]
        case 8: return [4, 4]
        default: return [length]
        }
    }

    /// Splits one item per cell (cells, their views) into the format's groups.
    public func group<Item>(_ items: [Item]) -> [[Item]] {
        var rest = items[...]
        var result: [[Item]] = []
        for size in groups where !rest.isEmpty {
            result.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        if !rest.isEmpty { result.append(Array(rest)) }
        return result
    }

    /// The noun for one character in sentences: "digits" or "characters".
    public var unitNoun: String {
        kind == .digits ? "digits" : "characters"
    }
}
