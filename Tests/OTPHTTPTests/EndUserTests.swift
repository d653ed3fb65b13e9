import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// A backend's starts for its users (`endUser`): the limits per address see the user's address, a
/// device has a limit of its own, and only secret keys may say who the user is.
@Suite struct EndUserTests {
    static let oneStartPerAddress = Policy(startsPerAddress: RateLimit(limit: 1, window: .seconds(300)))

    static func start(_ to: String, endUser: String? = nil) -> String {
        endUser.map { #"{"to":"\#(to)","endUser":\#($0)}"# } ?? #"{"to":"\#(to)"}"#
    }

    @Test("starts from one backend count per end user's address, not per the backend's")
    func limitsPerEndUserAddress() async {
        let api = InProcessAPI(policy: Self.oneStartPerAddress)
        let first = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550100", endUser: #"{"ip":"198.51.100.7"}"#))
        #expect(first.status == 201)
        let otherUser = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550101", endUser: #"{"ip":"198.51.100.8"}"#))
        #expect(otherUser.status == 201)
        let sameUser = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550102", endUser: #"{"ip":"198.51.100.7"}"#))
        #expect(sameUser.status == 429)
        #expect(sameUser.errorCode == "rate_limited")
        // Without endUser the backend's own address is the one counted, and it has not started yet.
        let backend = await api.call("POST", "/v1/verifications", json: Self.start("+15550103"))
        #expect(backend.status == 201)
        let backendAgain = await api.call("POST", "/v1/verifications", json: Self.start("+15550104"))
        #expect(backendAgain.status == 429)
    }

    @Test("a device keeps its limit when its user changes address")
    func limitsPerDevice() async {
        let api = InProcessAPI(policy: Self.oneStartPerAddress)
        let first = await api.call(
            "POST", "/v1/verifications",
            json: Self.start("+15550100", endUser: #"{"ip":"198.51.100.7","deviceId":"phone-1"}"#))
        #expect(first.status == 201)
        let moved = await api.call(
            "POST", "/v1/verifications",
            json: Self.start("+15550101", endUser: #"{"ip":"203.0.113.9","deviceId":"phone-1"}"#))
        #expect(moved.status == 429)
        let otherDevice = await api.call(
            "POST", "/v1/verifications",
            json: Self.start("+15550102", endUser: #"{"ip":"203.0.113.10","deviceId":"phone-2"}"#))
        #expect(otherDevice.status == 201)
    }

    @Test("a publishable key cannot say who the user is: 403, and nothing is sent")
    func publishableRefused() async {
        let api = InProcessAPI(keys: APIKeys([InProcessAPI.key], publishable: ["ios": "pk-in-process"]))
        let refused = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550100", endUser: #"{"ip":"198.51.100.7"}"#),
            key: "pk-in-process")
        #expect(refused.status == 403)
        #expect(refused.errorCode == "forbidden")
        #expect(api.sender.count == 0)
        let plain = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550100"), key: "pk-in-process")
        #expect(plain.status == 201)
    }

    @Test(
        "a malformed endUser is 400 with what it must be",
        arguments: [
            (#"{}"#, "at least one"),
            (#"{"ip":"not-an-address"}"#, "endUser.ip"),
            (#"{"ip":"999.1.1.1"}"#, "endUser.ip"),
            (#"{"deviceId":""}"#, "endUser.deviceId"),
            (#"{"userId":"\#(String(repeating: "u", count: 129))"}"#, "endUser.userId"),
            (#"{"userId":"a\u0007b"}"#, "endUser.userId"),
            (#"{"ip":7}"#, "endUser"),
            (#""198.51.100.7""#, "endUser"),
            (#"{"ip":"198.51.100.7","email":"a@b.example"}"#, "endUser"),
        ])
    func malformed(body: String, names: String) async {
        let api = InProcessAPI()
        let answer = await api.call("POST", "/v1/verifications", json: Self.start("+15550100", endUser: body))
        #expect(answer.status == 400)
        #expect(answer.errorCode == "invalid_request")
        #expect(answer.text.contains(names))
        #expect(api.sender.count == 0)
    }

    @Test("IPv6 and a user id alone are accepted; the user's /64 is counted as one address")
    func acceptedForms() async {
        let api = InProcessAPI(policy: Self.oneStartPerAddress)
        let v6 = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550100", endUser: #"{"ip":"2001:db8::1"}"#))
        #expect(v6.status == 201)
        let sameNetwork = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550101", endUser: #"{"ip":"2001:db8::2"}"#))
        #expect(sameNetwork.status == 429)
        let userOnly = await api.call(
            "POST", "/v1/verifications", json: Self.start("+15550102", endUser: #"{"userId":"user-42"}"#))
        #expect(userOnly.status == 201)
    }
}
