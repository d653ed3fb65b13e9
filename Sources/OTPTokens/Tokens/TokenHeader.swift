/// The members of a token's JOSE header that a verifier looks at.
struct TokenHeader: Decodable {
    /// Header members that would bring keys or rules from the token itself; any of them is refused.
    static let refusedMembers = ["crit", "jku", "jwk", "x5u", "x5c"]

    /// The algorithm, when the header gives one as a string.
    var alg: String?
    /// The key ID, when the header gives one as a string.
    var kid: String?
    /// Which of `refusedMembers` the header has.
    var refused: [String]

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        alg = try container.decodeIfPresent(String.self, forKey: Name(stringValue: "alg"))
        kid = try container.decodeIfPresent(String.self, forKey: Name(stringValue: "kid"))
        refused = Self.refusedMembers.filter { container.contains(Name(stringValue: $0)) }
    }
}
