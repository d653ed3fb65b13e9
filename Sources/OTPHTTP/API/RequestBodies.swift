import Foundation
import OTPCore
import OTPEngine
import OTPTokens

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
    /// The shortest and longest hosted `nonce` accepted, in characters.
    static let nonceLengths = 16...128

    struct StartBody: Decodable, Equatable {
        var to: String
        var channel: String?
        var hosted: HostedBody?
        var proof: String?
        var locale: String?
        var ref: String?
        var transaction: TransactionDetails?
        var country: String?
        var endUser: EndUserBody?

        init(
            to: String, channel: String?, hosted: HostedBody?, proof: String?, locale: String?,
            ref: String? = nil, transaction: TransactionDetails? = nil, country: String? = nil,
            endUser: EndUserBody? = nil
        ) {
            self.country = country
            self.endUser = endUser
            self.to = to
            self.channel = channel
            self.hosted = hosted
            self.proof = proof
            self.locale = locale
            self.ref = ref
            self.transaction = transaction
        }
    }

    /// The `endUser` member of a start: who a backend starts for.
    struct EndUserBody: Decodable, Equatable {
        var ip: String?
        var deviceId: String?
        var userId: String?

        private enum Member: String, CodingKey, CaseIterable {
            case ip, deviceId, userId
        }

        /// A member by any name, to find names the object must not have.
        private struct AnyMember: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(ip: String? = nil, deviceId: String? = nil, userId: String? = nil) {
            self.ip = ip
            self.deviceId = deviceId
            self.userId = userId
        }

        /// Reads the three members and refuses any other, as the API description says.
        init(from decoder: any Decoder) throws {
            let names = try decoder.container(keyedBy: AnyMember.self).allKeys.map(\.stringValue)
            if let unknown = names.first(where: { Member(rawValue: $0) == nil }) {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath, debugDescription: "unknown member \(unknown)"))
            }
            let members = try decoder.container(keyedBy: Member.self)
            ip = try members.decodeIfPresent(String.self, forKey: .ip)
            deviceId = try members.decodeIfPresent(String.self, forKey: .deviceId)
            userId = try members.decodeIfPresent(String.self, forKey: .userId)
        }
    }

    struct HostedBody: Decodable, Equatable {
        var returnUrl: String
        var state: String?
        var nonce: String?
        var responseMode: String?
    }

    /// How the hosted page hands the approval token to the return URL.
    enum ResponseMode: String, Sendable, Equatable {
        /// An auto-submitted POST of `state` and `token` (a button without JavaScript): the token
        /// stays out of URLs, logs and the browser's history. The default.
        case formPost = "form_post"
        /// `state` and `token` in the return URL's query.
        case query
    }

    /// What a hosted start asks of the page.
    struct HostedStart: Equatable {
        var returnURL: String
        var state: String
        var nonce: String
        var responseMode: ResponseMode
    }

    /// A start body: the destination, the channel, and the hosted page's return, if asked for.
    struct Start {
        var to: String
        var channel: Channel?
        var hosted: HostedStart?
        var proof: String?
        var locale: TextLanguage?
        var ref: String?
        var transaction: TransactionDetails?
        /// The ISO 3166 alpha-2 region a national number is read in, upper-cased.
        var country: String?
        var endUser: EndUser?
    }

    private struct CheckBody: Decodable {
        var code: String
    }

    /// The destination and channel of a start body, or the reason it is not one.
    static func start(_ body: [UInt8]) -> Result<Start, APIError> {
        guard let parsed = plainStart(body) ?? decodedStart(body) else {
            return .failure(
                APIResponses.invalidRequest(
                    "The body must be a JSON object, each member named once, with a string \"to\", optional "
                        + "strings \"channel\", \"country\", \"locale\", \"proof\" and \"ref\", an optional "
                        + "\"transaction\" object, an optional \"endUser\" object of strings \"ip\", \"deviceId\" "
                        + "and \"userId\", and an optional \"hosted\" object with a string \"returnUrl\" and \"nonce\"."
                )
            )
        }
        guard !parsed.to.isEmpty, parsed.to.utf8.count <= maxDestinationBytes else {
            return .failure(
                APIResponses.invalidRequest("\"to\" must have 1 to \(maxDestinationBytes) bytes."))
        }
        var start = Start(
            to: parsed.to, channel: nil, hosted: nil, proof: nil, locale: nil, ref: parsed.ref,
            transaction: parsed.transaction)
        if let ref = parsed.ref,
            ref.isEmpty || ref.count > StartRequest.maxRefCharacters
                || ref.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            return .failure(APIError(VerifierError.invalidRef))
        }
        if let problem = parsed.transaction?.problem {
            return .failure(APIResponses.invalidRequest(problem))
        }
        if let body = parsed.endUser {
            switch endUser(body) {
            case .success(let user): start.endUser = user
            case .failure(let error): return .failure(error)
            }
        }
        if let country = parsed.country {
            guard country.utf8.count == 2, country.utf8.allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) })
            else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"country\" must be an ISO 3166 alpha-2 region such as \"US\" or \"GB\"."))
            }
            start.country = country.uppercased()
        }
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
            guard let nonce = hosted.nonce, nonceLengths.contains(nonce.utf8.count),
                nonce.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"hosted.nonce\" is required: \(nonceLengths.lowerBound) to \(nonceLengths.upperBound) "
                            + "printable ASCII characters without spaces, chosen by your backend for this sign-in."
                    ))
            }
            guard let mode = ResponseMode(rawValue: hosted.responseMode ?? ResponseMode.formPost.rawValue)
            else {
                return .failure(
                    APIResponses.invalidRequest("\"hosted.responseMode\" must be \"form_post\" or \"query\".")
                )
            }
            start.hosted = HostedStart(
                returnURL: hosted.returnUrl, state: state, nonce: nonce, responseMode: mode)
        }
        return .success(start)
    }

    /// The end user of a start, or the reason the member is not one: an IP address, and device and
    /// user identifiers of 1 to ``EndUser/maxIdentifierCharacters`` characters without controls;
    /// at least one of the three.
    static func endUser(_ body: EndUserBody) -> Result<EndUser, APIError> {
        guard body.ip != nil || body.deviceId != nil || body.userId != nil else {
            return .failure(
                APIResponses.invalidRequest(
                    "\"endUser\" must have at least one of \"ip\", \"deviceId\", \"userId\"."))
        }
        if let ip = body.ip, !ClientAddress.isIPAddress(ip) {
            return .failure(APIResponses.invalidRequest("\"endUser.ip\" must be an IPv4 or IPv6 address."))
        }
        for (name, value) in [("deviceId", body.deviceId), ("userId", body.userId)] {
            guard let value else { continue }
            if value.isEmpty || value.count > EndUser.maxIdentifierCharacters
                || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"endUser.\(name)\" must have 1 to \(EndUser.maxIdentifierCharacters) characters, "
                            + "none of them a control character."))
            }
        }
        return .success(EndUser(ip: body.ip, deviceId: body.deviceId, userId: body.userId))
    }

    /// A start body, read by Foundation's decoder.
    static func decodedStart(_ body: [UInt8]) -> StartBody? {
        // Foundation's decoder keeps one of a member named twice; such a body is refused instead.
        guard StrictJSON.isValid(body) else { return nil }
        return try? JSONDecoder().decode(StartBody.self, from: Data(body))
    }

    /// The start body most clients send, string members only (`{"to":"+12025550100"}`, perhaps
    /// with `channel`, `locale` or `proof`), read without a decoder.
    ///
    /// Any other shape (a `hosted` object, escapes, other or repeated members, other values) is
    /// `nil` and goes to ``decodedStart(_:)``. The fuzz target keeps the two equal.
    static func plainStart(_ body: [UInt8]) -> StartBody? {
        guard let members = plainStringMembers(body), let to = members["to"] else { return nil }
        for name in members.keys where !["to", "channel", "locale", "proof", "ref", "country"].contains(name)
        {
            return nil
        }
        return StartBody(
            to: to, channel: members["channel"], hosted: nil, proof: members["proof"],
            locale: members["locale"], ref: members["ref"], country: members["country"])
    }

    /// The code of a check body, or the reason it is not one.
    ///
    /// A code of any length is the engine's to judge: one that does not fit the verification's
    /// format is `invalid_code_format` once the verification is found and pending. The body limit
    /// bounds it.
    static func check(_ body: [UInt8]) -> Result<String, APIError> {
        guard let code = plainCode(body) ?? decodedCode(body) else {
            return .failure(
                APIResponses.invalidRequest("The body must be a JSON object with a string \"code\"."))
        }
        return .success(code)
    }

    /// The code of a check body, read by Foundation's decoder.
    static func decodedCode(_ body: [UInt8]) -> String? {
        guard StrictJSON.isValid(body) else { return nil }
        return (try? JSONDecoder().decode(CheckBody.self, from: Data(body)))?.code
    }

    /// The code of the body every client sends, `{"code":"482019"}`, read without a decoder.
    ///
    /// Any JSON whitespace is allowed; any other shape (escapes, other members, other bytes) is
    /// `nil` and goes to ``decodedCode(_:)``. The fuzz target keeps the two equal.
    static func plainCode(_ body: [UInt8]) -> String? {
        var code: String?
        var count = 0
        let plain = forEachPlainStringMember(body) { name, value in
            count += 1
            guard count == 1, name == "code" else { return false }
            code = value
            return true
        }
        return plain ? code : nil
    }

    /// The members of a JSON object whose values are all strings, when nothing about it needs a decoder.
    ///
    /// That is: no escapes or control characters in names or values, no member twice, valid UTF-8,
    /// nothing but JSON whitespace around the tokens. Anything else is `nil`.
    static func plainStringMembers(_ body: [UInt8]) -> [String: String]? {
        var members: [String: String] = [:]
        let plain = forEachPlainStringMember(body) { name, value in
            members.updateValue(value, forKey: name) == nil
        }
        return plain ? members : nil
    }

    /// Reads a JSON object whose values are all strings, as ``plainStringMembers(_:)`` does, handing
    /// each member to `member` in order, with no dictionary made; `false` when the body is not such
    /// an object or `member` answers `false`.
    private static func forEachPlainStringMember(
        _ body: [UInt8], _ member: (String, String) -> Bool
    ) -> Bool {
        var index = 0
        func skipSpace() {
            while index < body.count {
                switch body[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < body.count, body[index] == byte else { return false }
            index += 1
            return true
        }
        /// A string with no escapes and no control characters.
        func plainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < body.count, body[index] != UInt8(ascii: "\"") {
                // An escape or a control character: the decoder's job.
                if body[index] == UInt8(ascii: "\\") || body[index] < 0x20 { return nil }
                index += 1
            }
            guard index < body.count else { return nil }
            let end = index
            index += 1
            return String(validating: body[start..<end], as: UTF8.self)
        }
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return false }
        skipSpace()
        if !take(UInt8(ascii: "}")) {
            while true {
                skipSpace()
                guard let name = plainString() else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard let value = plainString(), member(name, value) else { return false }
                skipSpace()
                if take(UInt8(ascii: "}")) { break }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        }
        skipSpace()
        return index == body.count
    }

    /// Whether an `Idempotency-Key` value has 1–255 printable ASCII characters.
    static func isValidIdempotencyKey(_ key: String) -> Bool {
        let bytes = key.utf8
        return (1...255).contains(bytes.count) && bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
