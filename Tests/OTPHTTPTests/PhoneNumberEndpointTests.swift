import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPServe
import Testing

/// `otp serve`'s start reads every phone number with libphonenumber: validity, region, type.
@Suite struct PhoneNumberEndpointTests {
    private func start(_ harness: Harness, _ json: String) async throws -> RawResponse {
        try await harness.call("POST", "/v1/verifications", json: json)
    }

    private func outbox(_ harness: Harness) -> [OutboxSender.Entry] {
        (try? OutboxSender.entries(path: harness.outbox)) ?? []
    }

    @Test("a number that cannot exist is 400 invalid_destination, and nothing is sent")
    func impossibleNumbers() async throws {
        try await Harness.with { harness in
            for to in [
                "+15550100", "+1 555 555 0100", "+44 7400 12345", "+1 201 555 O123", "+12015550123 x12",
            ] {
                let response = try await start(harness, #"{"to":"\#(to)"}"#)
                #expect(response.status == 400, "\(to)")
                #expect(response.errorCode == "invalid_destination", "\(to)")
            }
            #expect(outbox(harness).isEmpty)
        }
    }

    @Test("a national number with a country is read in that region and sent to its E.164 form")
    func nationalWithCountry() async throws {
        try await Harness.with { harness in
            let response = try await start(harness, #"{"to":"(201) 555-0123","country":"us"}"#)
            #expect(response.status == 201)
            #expect(response.json["to"] as? String == "+1 •••-•••-0123")
            #expect(outbox(harness).last?.to == "+12015550123")
            // Without the country the national number is no number.
            let bare = try await start(harness, #"{"to":"(201) 555-0123"}"#)
            #expect(bare.errorCode == "invalid_destination")
            // A country that is no ISO 3166 alpha-2 code is a malformed request.
            for country in ["USA", "1", "", "u$"] {
                let bad = try await start(harness, #"{"to":"(201) 555-0123","country":"\#(country)"}"#)
                #expect(bad.status == 400, "\(country)")
                #expect(bad.errorCode == "invalid_request", "\(country)")
            }
        }
    }

    @Test("the region is the number's: a UK number with country US is screened as GB")
    func regionFromTheNumber() async throws {
        var policy = Policy()
        policy.allowedRegions = ["US"]
        try await Harness.with(policy: policy) { harness in
            let response = try await start(harness, #"{"to":"+44 7400 123456","country":"US"}"#)
            #expect(response.status == 422)
            #expect(response.errorCode == "destination_not_allowed")
            #expect(response.errorField("reason") as? String == "region")
            #expect(outbox(harness).isEmpty)
        }
    }

    @Test("regions and calling codes both screen: 422 with reason region, counted by reason")
    func regions() async throws {
        var policy = Policy()
        policy.allowedRegions = ["US", "GB"]
        policy.allowedCallingCodes = ["1", "49"]
        try await Harness.with(policy: policy) { harness in
            // Antigua shares calling code 1 with the United States.
            let caribbean = try await start(harness, #"{"to":"+1 268 464 1234"}"#)
            #expect(caribbean.status == 422)
            #expect(caribbean.errorField("reason") as? String == "region")
            let german = try await start(harness, #"{"to":"+49 1512 3456789"}"#)
            #expect(german.errorField("reason") as? String == "region")
            // Region GB is allowed, calling code 44 is not.
            let british = try await start(harness, #"{"to":"+44 7400 123456"}"#)
            #expect(british.status == 400)
            #expect(british.errorCode == "channel_not_supported")
            #expect(try await start(harness, #"{"to":"+1 201 555 0123"}"#).status == 201)
            let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(metrics.text.contains(#"otp_destinations_refused_total{reason="region"} 2"#))
            #expect(outbox(harness).count == 1)
        }
    }

    @Test("by default premium-rate, toll-free and landline numbers are 422 with reason number_type")
    func numberTypes() async throws {
        try await Harness.with { harness in
            for to in ["+1 900 234 5678", "+1 800 234 5678", "+44 20 7946 0018"] {
                let response = try await start(harness, #"{"to":"\#(to)"}"#)
                #expect(response.status == 422, "\(to)")
                #expect(response.errorCode == "destination_not_allowed", "\(to)")
                #expect(response.errorField("reason") as? String == "number_type", "\(to)")
                #expect(response.errorField("retryAfter") is NSNull)
            }
            #expect(outbox(harness).isEmpty)
            let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(metrics.text.contains(#"otp_destinations_refused_total{reason="number_type"} 3"#))
            #expect(!metrics.text.contains(#"otp_destinations_refused_total{reason="region"}"#))
        }
    }

    @Test("a start without locale speaks the number's region's language; a locale given wins")
    func languageByRegion() async throws {
        try await Harness.with { harness in
            let cases: [(String, String)] = [
                (#"{"to":"+49 1512 3456789"}"#, "Ihr OTPKit-Code lautet "),
                (#"{"to":"+81 90-1234-5678"}"#, "OTPKitの確認コードは"),
                (#"{"to":"+966 50 123 4567"}"#, "رمز OTPKit هو "),
                (#"{"to":"+33 6 12 34 56 78"}"#, "Your OTPKit code is "),
                (#"{"to":"+49 1512 3456788","locale":"en"}"#, "Your OTPKit code is "),
            ]
            for (json, prefix) in cases {
                let response = try await start(harness, json)
                #expect(response.status == 201, "\(json)")
                #expect(outbox(harness).last?.body.hasPrefix(prefix) == true, "\(json)")
            }
        }
    }
}
