import CPhoneNumbers
import OTPEngine

/// Phone numbers read by libphonenumber (Google's library, Debian's `libphonenumber-dev`): whether
/// a number can exist, its E.164 form, its region, its type and its international grouping.
///
/// The library is reached through `CPhoneNumbers`, a small C++ target with a C interface (not
/// Swift's C++ interoperability), so no module that imports this one needs C++ settings.
///
/// ```swift
/// let number = LibPhoneNumberParser().parse("(201) 555-0123", region: "US")
/// // number?.e164 == "+12015550123", number?.region == "US", number?.type == .fixedLineOrMobile
/// ```
public struct LibPhoneNumberParser: PhoneNumberParser {
    /// The characters a phone number may be written with besides digits: no letters (libphonenumber
    /// would read `1-800-FLOWERS` as digits) and no text around the number.
    private static let allowed: Set<UInt8> = Set(" +-().\t/".utf8).union(Set("0123456789".utf8))

    /// The longest input read, in bytes.
    static let maximumLength = 64

    /// The international forms already made, by E.164 number: every answer about a stored
    /// verification masks its number, and a number's grouping never changes while the process runs.
    private let groupings = BoundedMemo<String, Grouping>(bound: 16_384, stripes: 16)

    /// A remembered international form, or its absence.
    private struct Grouping: Sendable {
        let text: String?
    }

    /// Whether numbers are read by libphonenumber's `PhoneNumberUtil` calls alone, the reference the
    /// default reading is tested against (see `CPhoneNumbers/NumberPlan.h`).
    let readsThroughReference: Bool

    /// Creates the parser; libphonenumber's tables are loaded once per process, on first use.
    public init() {
        readsThroughReference = false
    }

    /// A parser that reads every number through `PhoneNumberUtil`'s own calls, for tests that hold
    /// the default reading to libphonenumber's answers.
    init(readingThroughReference: Bool) {
        readsThroughReference = readingThroughReference
    }

    /// Whether the default reading runs: libphonenumber's metadata was read, so regions, types and
    /// E.164 parsing go through matchers kept per thread; when it is `false`, every number goes
    /// through `PhoneNumberUtil` alone, with the same answers.
    static var readsThroughNumberPlan: Bool { otp_phone_number_plan_available() == 1 }

    /// The number in `text`, or `nil` when it is no phone number: letters or other characters,
    /// no digits, an extension, or text libphonenumber cannot read (a national number without a
    /// known `region`).
    ///
    /// `region` (ISO 3166 alpha-2, any case) is used only for a number without a leading `+`.
    public func parse(_ text: String, region: String?) -> PhoneNumber? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes.allSatisfy(Self.allowed.contains),
            bytes.contains(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let hint = region.map { $0.uppercased() }
        if let hint, !Self.isRegionSyntax(hint) { return nil }
        var raw = otp_phone_number()
        let read = readsThroughReference ? otp_phone_parse_reference : otp_phone_parse
        let found = text.withCString { textPointer in
            guard let hint else { return read(textPointer, nil, &raw) }
            return hint.withCString { read(textPointer, $0, &raw) }
        }
        guard found == 1, raw.has_extension == 0 else { return nil }
        let number = Self.number(raw)
        // The number's later answers mask it: its grouping is known now (the same for every text
        // that reads as this E.164 number, so remembering it again changes nothing).
        groupings.remember(Grouping(text: number.isValid ? number.international : nil), for: number.e164)
        return number
    }

    /// The masked form of a number this parser read, from its reading: its grouping is the one
    /// ``international(e164:)`` remembers for it.
    public func masked(_ number: PhoneNumber) -> String {
        maskedFromReading(number)
    }

    /// The international form of a valid E.164 number, or `nil` when libphonenumber finds it not
    /// valid (a test destination, say), whose grouping would be a guess.
    public func international(e164: String) -> String? {
        if let known = groupings[e164] { return known.text }
        let number = parse(e164, region: nil)
        let text = number?.isValid == true ? number?.international : nil
        groupings.remember(Grouping(text: text), for: e164)
        return text
    }

    /// The example number of `type` in `region` from libphonenumber's metadata, or `nil` when the
    /// metadata has none (the type is ``PhoneNumberType/unknown``, the region is not known, or the
    /// region has no such numbers).
    public func example(region: String, type: PhoneNumberType) -> PhoneNumber? {
        guard let rawType = Self.rawTypes[type], rawType != otp_phone_unknown else { return nil }
        var raw = otp_phone_number()
        let found = region.uppercased().withCString { otp_phone_example($0, rawType, &raw) }
        return found == 1 ? Self.number(raw) : nil
    }

    /// Every ISO 3166 alpha-2 region libphonenumber has metadata for, sorted.
    public static let supportedRegions: [String] = {
        let needed = otp_phone_supported_regions(nil, 0)
        var buffer = [CChar](repeating: 0, count: needed + 1)
        _ = otp_phone_supported_regions(&buffer, buffer.count)
        let list = buffer.withUnsafeBufferPointer { pointer in
            String(decoding: pointer.prefix(needed).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return list.split(separator: ",").map(String.init)
    }()

    /// Whether libphonenumber knows `region` (ISO 3166 alpha-2, upper case).
    public static func isSupported(region: String) -> Bool {
        supportedSet.contains(region)
    }

    private static let supportedSet = Set(supportedRegions)

    /// Two ASCII capital letters.
    private static func isRegionSyntax(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// The C library's type for each type.
    private static let rawTypes: [PhoneNumberType: otp_phone_type] = [
        .fixedLine: otp_phone_fixed_line, .mobile: otp_phone_mobile,
        .fixedLineOrMobile: otp_phone_fixed_line_or_mobile, .tollFree: otp_phone_toll_free,
        .premiumRate: otp_phone_premium_rate, .sharedCost: otp_phone_shared_cost, .voip: otp_phone_voip,
        .personalNumber: otp_phone_personal_number, .pager: otp_phone_pager, .uan: otp_phone_uan,
        .voicemail: otp_phone_voicemail, .unknown: otp_phone_unknown,
    ]

    private static let types: [UInt32: PhoneNumberType] = Dictionary(
        uniqueKeysWithValues: rawTypes.map { ($0.value.rawValue, $0.key) })

    private static func number(_ raw: otp_phone_number) -> PhoneNumber {
        var raw = raw
        let e164 = withUnsafeBytes(of: &raw.e164) { string($0) }
        let region = withUnsafeBytes(of: &raw.region) { string($0) }
        let international = withUnsafeBytes(of: &raw.international) { string($0) }
        let valid = raw.is_valid == 1
        return PhoneNumber(
            e164: e164, isValid: valid, region: region == "ZZ" || region.isEmpty ? nil : region,
            type: valid ? types[raw.type.rawValue] ?? .unknown : .unknown,
            international: international.isEmpty ? nil : international)
    }

    /// The NUL-terminated string at the start of a C buffer.
    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
