import Foundation
import OTPEngine
import OTPServe
import Testing

@testable import otp

@Suite struct PhoneOptionsTests {
    let base = ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]

    func policy(_ arguments: [String]) throws -> Policy {
        let options = try ParsedOptions.parse(base + arguments, specs: ServeOptions.all, environment: [:])
        return try ServeCommand.makeSettings(options, environment: [:]).0.server.policy
    }

    func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try policy(arguments)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("--allowed-regions takes ISO regions in any case; by default every region is allowed")
    func allowedRegions() throws {
        #expect(try policy([]).allowedRegions == nil)
        #expect(try policy(["--allowed-regions", "US,ca, GB"]).allowedRegions == ["US", "CA", "GB"])
        // Both lists are kept: a number must pass each.
        let both = try policy(["--allowed-regions", "US", "--allowed-calling-codes", "1"])
        #expect(both.allowedRegions == ["US"])
        #expect(both.allowedCallingCodes == ["1"])
    }

    @Test(
        "an --allowed-regions value that is no region libphonenumber knows is a usage error naming it",
        arguments: [("US,XX", "XX"), ("USA", "USA"), ("1", "1"), ("US,,GB", "ISO 3166"), ("", "ISO 3166")])
    func badRegions(_ value: String, named: String) {
        let message = usageError(["--allowed-regions", value])
        #expect(message?.contains("--allowed-regions") == true, "\(value): \(message ?? "accepted")")
        #expect(message?.contains(named) == true, "\(value): \(message ?? "accepted")")
    }

    @Test("both options can come from the environment, as every option can")
    func fromTheEnvironment() throws {
        let environment = ["OTP_ALLOWED_REGIONS": "de,AT", "OTP_SMS_NUMBER_TYPES": "mobile"]
        let options = try ParsedOptions.parse(base, specs: ServeOptions.all, environment: environment)
        let policy = try ServeCommand.makeSettings(options, environment: environment).0.server.policy
        #expect(policy.allowedRegions == ["DE", "AT"])
        #expect(policy.smsNumberTypes == [.mobile])
    }

    @Test("--sms-number-types defaults to mobiles, mobile-or-landline ranges, VoIP and personal numbers")
    func defaultTypes() throws {
        let types = try policy([]).smsNumberTypes
        #expect(types == [.mobile, .fixedLineOrMobile, .voip, .personalNumber])
        for refused in [
            PhoneNumberType.premiumRate, .sharedCost, .tollFree, .uan, .pager, .voicemail, .fixedLine,
            .unknown,
        ] {
            #expect(!types.contains(refused), "\(refused)")
        }
    }

    @Test("--sms-number-types replaces the default, names with underscores or dashes")
    func chosenTypes() throws {
        #expect(
            try policy(["--sms-number-types", "mobile,fixed-line"]).smsNumberTypes == [.mobile, .fixedLine])
        #expect(try policy(["--sms-number-types", "MOBILE"]).smsNumberTypes == [.mobile])
    }

    @Test(
        "an unknown number type is a usage error that lists the types",
        arguments: ["landline", "mobile,", "unknown"])
    func badTypes(_ value: String) {
        let message = usageError(["--sms-number-types", value])
        #expect(message?.contains("--sms-number-types") == true, "\(value): \(message ?? "accepted")")
        #expect(message?.contains("premium_rate") == true)
    }

    @Test("otp serve reads phone numbers with libphonenumber whatever its options")
    func servesWithLibPhoneNumber() async throws {
        try await Harness.with { harness in
            // The syntax alone would accept this number; libphonenumber knows it cannot exist.
            let response = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+15550100"}"#)
            #expect(response.errorCode == "invalid_destination")
        }
    }
}
