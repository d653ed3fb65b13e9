import Testing

@testable import OTPRedis

/// A script reply's field–value pairs, read by name as a dictionary built in order would read them.
@Suite struct RedisFieldsTests {
    private static func string(_ text: String) -> RedisValue { .string(Array(text.utf8)) }

    @Test("names find their values; a name given twice reads as its last value; others read nil")
    func lookups() {
        let fields = RedisFields(
            ["id", "vf_1", "att", "3", "hash", "", "att", "2"].map(Self.string))
        #expect(fields["id"] == Array("vf_1".utf8))
        #expect(fields["att"] == Array("2".utf8))
        #expect(fields["hash"] == [])
        #expect(fields["st"] == nil)
        #expect(fields["i"] == nil)
    }

    @Test("a pair whose value is not a string is left out, and a trailing name without a value too")
    func malformedPairs() {
        let flat: [RedisValue] = [
            Self.string("a"), .integer(5), Self.string("b"), .null, Self.string("c"), Self.string("ok"),
            Self.string("dangling"),
        ]
        let fields = RedisFields(flat[...])
        #expect(fields["a"] == nil)
        #expect(fields["b"] == nil)
        #expect(fields["c"] == Array("ok".utf8))
        #expect(fields["dangling"] == nil)
        #expect(RedisFields([RedisValue]())["a"] == nil)
    }
}
