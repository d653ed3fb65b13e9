// libFuzzer target: the HTTP API's request body decoding (OTPHTTP's RequestBodies), the route
// matching of paths, what the engine does first with a decoded body (Destination.parse for a
// start, CodeNormalizer for a check), and the hand-written response writer (ResponseJSON) against
// Foundation's encoder for any text that can reach a response.
//
// Built by scripts/reliability/fuzz.sh with OTPCore's sources and the few OTPHTTP and OTPEngine
// files these need, in one module. The first byte picks what the rest of the input is; every
// property below must hold, or the target traps and libFuzzer saves the input.

import Foundation

/// libFuzzer calls this once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestBodies(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let selector = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    switch selector % 4 {
    case 0: startBody(body)
    case 1: checkBody(body)
    case 2: path(body)
    default: responseText(String(decoding: body, as: UTF8.self))
    }
    return 0
}

/// A start body: either a destination within the byte limit, or 400 invalid_request with a JSON body.
func startBody(_ body: [UInt8]) {
    // The decoder-free reading of the common body must agree with Foundation's decoder.
    if let plain = RequestBodies.plainStart(body) {
        require(
            plain == RequestBodies.decodedStart(body), "the plain start reading differs from the decoder's")
    }
    switch RequestBodies.start(body) {
    case .failure(let error):
        refusal(error)
    case .success(let start):
        let (to, channel) = (start.to, start.channel)
        require(
            !to.isEmpty && to.utf8.count <= RequestBodies.maxDestinationBytes, "destination out of bounds")
        guard let destination = try? Destination.parse(to, channel: channel) else { return }
        require(destination.address.utf8.count <= Destination.maximumLength, "address over the maximum")
        require(channel == nil || channel == destination.channel, "channel differs from the one asked for")
        let again = try? Destination.parse(destination.address, channel: destination.channel)
        require(again == destination, "a parsed address does not parse to itself")
        let masked = destination.masked
        require(!masked.isEmpty, "empty mask")
        responseText(masked)
        if destination.channel == .sms {
            require(masked != destination.address, "a phone number's mask shows it whole")
            require(!masked.contains(String(destination.address.dropFirst())), "mask shows every digit")
        }
    }
}

/// A check body: either a code (of any length: the body limit bounds it) that normalises into the
/// format, or 400.
func checkBody(_ body: [UInt8]) {
    // The decoder-free reading of the common body must agree with Foundation's decoder.
    if let plain = RequestBodies.plainCode(body) {
        require(plain == RequestBodies.decodedCode(body), "the plain reading differs from the decoder's")
    }
    switch RequestBodies.check(body) {
    case .failure(let error):
        refusal(error)
    case .success(let code):
        require(code.utf8.count <= body.count, "a code longer than its body")
        for length in CodeFormat.minimumLength...CodeFormat.maximumLength {
            let format = CodeFormat(length: length, kind: .digits)
            let candidate = CodeNormalizer.normalizeUncut(code, for: format)
            require(candidate.allSatisfy { format.allows($0) }, "normalised code outside the format")
        }
    }
}

/// A request path: a route or none; a route's template is one of the known ones.
func path(_ body: [UInt8]) {
    let text = String(decoding: body, as: UTF8.self)
    if let route = Route(path: text) {
        require(Route.templates.contains(route.template), "a route outside the templates")
        require(!route.methods.isEmpty, "a route without methods")
    }
    _ = Route.needsKey(text)
}

/// A verification object and an error body carrying `text` are written byte for byte as Foundation's
/// encoder (WireCoding) writes them, and read back to the same text.
func responseText(_ text: String) {
    let time = Date(timeIntervalSince1970: 1_800_000_000.123)
    let verification = Verification(
        id: "vf_fuzz", status: .pending, channel: .email, to: text, codeLength: 6, attemptsLeft: 3,
        sendsLeft: 4, expiresAt: time, resendAvailableAt: nil, createdAt: time)
    let written = ResponseJSON.verification(verification)
    let reference = (try? WireCoding.encoder().encode(verification)).map(Array.init)
    require(written == reference, "ResponseJSON differs from the encoder for a verification")
    let read = try? WireCoding.decoder().decode(Verification.self, from: Data(written))
    require(read?.to == text, "a verification's text does not read back")
    let error = APIError(code: .invalidRequest, message: text)
    let body = ResponseJSON.error(error)
    let expected = (try? WireCoding.encoder().encode(APIErrorBody(error: error))).map(Array.init)
    require(body == expected, "ResponseJSON differs from the encoder for an error body")
}

/// A refused body: 400 invalid_request, and the error body is JSON that reads back the same.
func refusal(_ error: APIError) {
    require(error.code == .invalidRequest, "a refused body that is not invalid_request")
    let response = APIResponses.error(error, route: "/v1/verifications")
    require(response.status == 400, "a refused body that is not 400")
    let decoded = try? JSONDecoder().decode(APIErrorBody.self, from: Data(response.body))
    require(decoded?.error.code == .invalidRequest, "the error body does not decode")
}

/// Stops the run with a message when a property does not hold.
func require(_ condition: Bool, _ message: StaticString) {
    if !condition { fatalError("\(message)") }
}
