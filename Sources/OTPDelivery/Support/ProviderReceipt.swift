import Foundation

/// Reads a provider's id for a message out of its JSON answer.
enum ProviderReceipt {
    /// The most characters a message id may have to be kept.
    static let maxIDLength = 128

    /// The string member `field` of a JSON object, when it is 1 to ``maxIDLength`` printable ASCII
    /// characters; `nil` for any other answer (not JSON, no such member, another type).
    static func messageID(in body: String, field: String) -> String? {
        guard
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let id = object[field] as? String, (1...maxIDLength).contains(id.utf8.count),
            id.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return id
    }
}
