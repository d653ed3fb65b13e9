import OTPCore
import OTPEngine
import Testing

@Suite struct DestinationTests {
    @Test(
        "phone numbers are E.164 after spaces, dashes and parentheses go",
        arguments: [
            ("+15550100", "+15550100"), ("+1 (555) 555-0100", "+15555550100"),
            (" +44 7700 900123 ", "+447700900123"),
            ("+861012345678", "+861012345678"), ("+1\t555-555 (0100)", "+15555550100"),
        ])
    func phones(text: String, address: String) throws {
        let destination = try Destination.parse(text, channel: nil)
        #expect(destination.channel == .sms)
        #expect(destination.address == address)
    }

    @Test(
        "malformed phone numbers are invalid_destination",
        arguments: [
            "", "   ", "15555550100", "+", "+123456", "+1234567890123456", "+05555550100", "+1555.555.0100",
            "+1555555010a", "++15555550100", "+1 555 ５５５ 0100", "+١٥٥٥٥٥٥٠١٠٠", "+1555\u{00A0}5550100",
        ])
    func badPhones(text: String) {
        #expect(throws: VerifierError.invalidDestination) {
            try Destination.parse(text, channel: nil)
        }
    }

    @Test(
        "email addresses have one @ and a dot in the domain; the domain is lower-cased",
        arguments: [
            ("ana@example.org", "ana@example.org"),
            ("Ana.B+otp@Mail.Example.ORG", "Ana.B+otp@mail.example.org"),
        ])
    func emails(text: String, address: String) throws {
        let destination = try Destination.parse(text, channel: .email)
        #expect(destination.channel == .email)
        #expect(destination.address == address)
    }

    @Test(
        "malformed email addresses are invalid_destination",
        arguments: [
            "@example.org", "ana@", "ana@example", "ana@@example.org", "a@b@example.org", "ana@.example.org",
            "ana@example.org.", "ana@exa..mple.org", "an a@example.org", "ana@exam\nple.org",
            "ana@example.org\r\nBcc: x@y.z",
            "<ana>@example.org", ".ana@example.org", "ana@-example.org",
            String(repeating: "a", count: 65) + "@example.org",
            "ana@" + String(repeating: "a", count: 250) + ".org",
        ])
    func badEmails(text: String) {
        #expect(throws: VerifierError.invalidDestination) {
            try Destination.parse(text, channel: nil)
        }
    }

    @Test("a channel that does not fit the destination is a mismatch naming the destination's own channel")
    func channelMismatch() {
        #expect(throws: VerifierError.destinationChannelMismatch(destination: .sms)) {
            try Destination.parse("+15555550100", channel: .email)
        }
        #expect(throws: VerifierError.destinationChannelMismatch(destination: .email)) {
            try Destination.parse("ana@example.org", channel: .sms)
        }
    }

    @Test(
        "a phone number keeps its country code and last four digits",
        arguments: [
            ("+15555550100", "+1 ••• ••• 0100"), ("+15550100", "+1 ••• 0100"),
            ("+447700900123", "+44 ••• ••• 0123"),
            ("+3531234567", "+353 ••• 4567"), ("+2901234", "+290 ••• 4"), ("+79161234567", "+7 ••• ••• 4567"),
            ("+8613812345678", "+86 ••• ••• • 5678"),
        ])
    func phoneMasks(address: String, masked: String) throws {
        #expect(try Destination.parse(address, channel: nil).masked == masked)
    }

    @Test("an email keeps its first letter and domain")
    func emailMasks() throws {
        #expect(try Destination.parse("ana@example.org", channel: nil).masked == "a•••@example.org")
        #expect(try Destination.parse("z@Example.org", channel: nil).masked == "z•••@example.org")
    }

    @Test(
        "calling codes of 1, 2 and 3 digits are told apart",
        arguments: [
            ("15555550100", "1"), ("74951234567", "7"), ("447700900123", "44"), ("4930123456", "49"),
            ("3531234567", "353"), ("8801712345678", "880"), ("2348012345678", "234"), ("201001234567", "20"),
        ])
    func callingCodes(digits: String, code: String) {
        #expect(CallingCodes.callingCode(ofDigits: digits) == code)
    }

    @Test(
        "client addresses count IPv4 whole and IPv6 by /64",
        arguments: [
            ("192.0.2.1", "4:192.0.2.1"), ("2001:db8:0:aa::1", "6:20010db8000000aa"),
            ("2001:db8:0:aa:ffff:1:2:3", "6:20010db8000000aa"), ("[2001:db8:0:ab::1]", "6:20010db8000000ab"),
            ("fe80::1%eth0", "6:fe80000000000000"), ("::ffff:192.0.2.7", "4:192.0.2.7"), ("unix", "?:unix"),
            (" 192.0.2.9\t", "4:192.0.2.9"), ("\u{00A0}192.0.2.9\u{2003}", "4:192.0.2.9"), ("", "?:"),
            ("192.0.2.300", "?:192.0.2.300"),
        ])
    func clientAddresses(text: String, key: String) {
        #expect(ClientAddress.limitKey(text) == key)
    }
}
