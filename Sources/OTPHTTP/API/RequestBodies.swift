import Foundation
import OTPCore

/// The bodies the API reads, validated before the engine sees them.
enum RequestBodies {
    /// The longest destination accepted, in bytes, before normalisation.
    static let maxDestinationBytes = 320
    /// The longest hosted return URL accepted, in bytes.
    static let maxReturnURLBytes = 2048
    /// The longest hosted `state` accepted, in bytes.
    static let maxStateBytes = 512
    /// The longest start guard proof accepted, in bytes.
    static let maxProofBytes = 8192
    /// The longest code accepted, in bytes, before normalisation.
    static let maxCodeBytes = 256

    private struct StartBody: Decodable {
        var to: String
        var channel: String?
        var hosted: HostedBody?
        var proof: String?
        var locale: String?
    }

    private struct HostedBody: Decodable {
        var returnUrl: String
        var state: String?
    }

    /// A start body: the destination, the channel, and the hosted page's return, if asked for.
    struct Start {
        var to: String
        var channel: Channel?
        var hosted: (returnURL: String, state: String)?
        var proof: String?
        var locale: TextLanguage?
    }

    private struct CheckBody: Decodable {
        var code: String
    }

    /// The destination and channel of a start body, or the reason it is not one.
    static func start(_ body: [UInt8]) -> Result<Start, APIError> {
        guard let parsed = try? JSONDecoder().decode(StartBody.self, from: Data(body)) else {
            return .failure(
                APIResponses.invalidRequest(
                    "The body must be a JSON object with a string \"to\", an optional \"channel\" and an "
                        + "optional \"hosted\" object with a string \"returnUrl\" and an optional \"state\".")
            )
        }
        guard !parsed.to.isEmpty, parsed.to.utf8.count <= maxDestinationBytes else {
            return .failure(
                APIResponses.invalidRequest("\"to\" must have 1 to \(maxDestinationBytes) bytes."))
        }
        var start = Start(to: parsed.to, channel: nil, hosted: nil, proof: nil, locale: nil)
        if let locale = parsed.locale {
            guard let language = TextLanguage(identifier: locale) else {
                let known = TextLanguage.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(
                    APIResponses.invalidRequest("\"locale\" must be one of \(known) (a region is fine)."))
            }
            start.locale = language
        }
        if let proof = parsed.proof {
            guard proof.utf8.count <= maxProofBytes else {
                return .failure(
                    APIResponses.invalidRequest("\"proof\" must have at most \(maxProofBytes) bytes."))
            }
            start.proof = proof
        }
        if let text = parsed.channel {
            guard let channel = Channel(rawValue: text) else {
                return .failure(APIResponses.invalidRequest("\"channel\" must be \"sms\" or \"email\"."))
            }
            start.channel = channel
        }
        if let hosted = parsed.hosted {
            let state = hosted.state ?? ""
            guard state.utf8.count <= maxStateBytes,
                state.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
            else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"hosted.state\" must be at most \(maxStateBytes) printable ASCII characters."
                    ))
            }
            guard hosted.returnUrl.utf8.count <= maxReturnURLBytes else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"hosted.returnUrl\" must have at most \(maxReturnURLBytes) bytes."))
            }
            start.hosted = (hosted.returnUrl, state)
        }
        return .success(start)
    }

    /// The code of a check body, or the reason it is not one.
    static func check(_ body: [UInt8]) -> Result<String, APIError> {
        guard let code = plainCode(body) ?? decodedCode(body) else {
            return .failure(
                APIResponses.invalidRequest("The body must be a JSON object with a string \"code\"."))
        }
        guard code.utf8.count <= maxCodeBytes else {
            return .failure(APIResponses.invalidRequest("\"code\" must have at most \(maxCodeBytes) bytes."))
        }
        return .success(code)
    }

    /// The code of a check body, read by Foundation's decoder.
    static func decodedCode(_ body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(CheckBody.self, from: Data(body)))?.code
    }

    /// The code of the body every client sends, `{"code":"482019"}`, read without a decoder.
    ///
    /// Any JSON whitespace is allowed; any other shape (escapes, other members, other bytes) is
    /// `nil` and goes to ``decodedCode(_:)``. The fuzz target keeps the two equal.
    static func plainCode(_ body: [UInt8]) -> String? {
        var index = 0
        func skipSpace() {
            while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 }
        }
        func expect(_ bytes: [UInt8]) -> Bool {
            guard index + bytes.count <= body.count, Array(body[index..<(index + bytes.count)]) == bytes
            else {
                return false
            }
            index += bytes.count
            return true
        }
        skipSpace()
        guard expect([UInt8(ascii: "{")]) else { return nil }
        skipSpace()
        guard expect(Array(#""code""#.utf8)) else { return nil }
        skipSpace()
        guard expect([UInt8(ascii: ":")]) else { return nil }
        skipSpace()
        guard expect([UInt8(ascii: "\"")]) else { return nil }
        let start = index
        while index < body.count, body[index] != UInt8(ascii: "\"") {
            // An escape or a control character: the decoder's job.
            if body[index] == UInt8(ascii: "\\") || body[index] < 0x20 { return nil }
            index += 1
        }
        guard index < body.count else { return nil }
        let end = index
        index += 1
        skipSpace()
        guard expect([UInt8(ascii: "}")]) else { return nil }
        skipSpace()
        guard index == body.count else { return nil }
        return String(validating: body[start..<end], as: UTF8.self)
    }

    /// Whether an `Idempotency-Key` value has 1–255 printable ASCII characters.
    static func isValidIdempotencyKey(_ key: String) -> Bool {
        let bytes = key.utf8
        return (1...255).contains(bytes.count) && bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
