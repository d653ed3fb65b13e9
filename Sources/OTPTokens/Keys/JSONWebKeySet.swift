import Foundation

/// The public keys an app's backend verifies approval tokens with (RFC 7517 section 5).
///
/// A signer publishes every key it knows, so tokens signed before a rotation still verify.
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    /// The keys, in the publisher's order.
    public var keys: [JSONWebKey]

    /// Makes a set of `keys`.
    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }

    private enum CodingKeys: String, CodingKey {
        case keys
    }

    /// Decodes a set, skipping keys that lack a string `kty`, `crv` or `x` (RSA or symmetric keys).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .keys)
        var keys: [JSONWebKey] = []
        while !list.isAtEnd {
            if let key = try? list.decode(JSONWebKey.self) {
                keys.append(key)
            } else {
                _ = try list.decode(SkippedKey.self)
            }
        }
        self.keys = keys
    }

    /// The set as compact JSON, members of each key in sorted order, ready to serve.
    public func json() -> [UInt8] {
        let keys = "[" + keys.map(\.jsonText).joined(separator: ",") + "]"
        return Array(JSONText.object([("keys", keys)]).utf8)
    }

    /// The set in `bytes`, which must be a strict JSON object with a `keys` array and unique member names.
    public static func decode(_ bytes: [UInt8]) throws(ApprovalTokenError) -> JSONWebKeySet {
        guard StrictJSON.isValid(bytes) else {
            throw .malformed("the key set is not strict JSON with unique member names")
        }
        do {
            return try JSONDecoder().decode(JSONWebKeySet.self, from: Data(bytes))
        } catch {
            throw .malformed("the key set is not a JSON object with a keys array")
        }
    }
}

/// Any JSON value in a key list that is not a key this package reads; decoding it always succeeds.
private struct SkippedKey: Decodable {
    init(from decoder: any Decoder) throws {}
}
