import Foundation
import OTPCore

/// Where the demo's "phone" receives codes: the server's outbox file, or the offline service.
protocol DemoPhone: Sendable {
    /// Every code received so far, oldest first.
    func receivedCodes() async -> [String]
}

/// Reads codes from an outbox file of one JSON object per line, as `otp serve --sender outbox:PATH` writes.
struct OutboxPhone: DemoPhone {
    let path: String

    func receivedCodes() async -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let body = object["body"] as? String
            else { return nil }
            return Self.originBoundCode(in: body)
        }
    }

    /// The code of a message's origin-bound last line, `@example.com #482019`.
    static func originBoundCode(in body: String) -> String? {
        guard let last = body.split(separator: "\n").last, last.hasPrefix("@"),
            let hash = last.firstIndex(of: "#")
        else { return nil }
        let code = last[last.index(after: hash)...].trimmingCharacters(in: .whitespaces)
        return code.isEmpty ? nil : code
    }
}

/// The offline demo's phone: the codes the in-memory service sent.
struct PreviewPhone: DemoPhone {
    let service: PreviewVerificationService

    func receivedCodes() async -> [String] {
        await service.sentCodes
    }
}
