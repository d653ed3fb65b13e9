import OTPCore

/// The language a number's region speaks, among the languages messages exist in.
public enum RegionLanguages {
    /// The regions each language other than English is spoken for: German for Germany, Austria,
    /// Switzerland and Liechtenstein; Arabic for the 22 members of the Arab League; Japanese for Japan.
    public static let regions: [TextLanguage: Set<String>] = [
        .german: ["DE", "AT", "CH", "LI"],
        .arabic: [
            "AE", "BH", "DJ", "DZ", "EG", "IQ", "JO", "KM", "KW", "LB", "LY", "MA", "MR", "OM", "PS", "QA",
            "SA",
            "SD", "SO", "SY", "TN", "YE",
        ],
        .japanese: ["JP"],
    ]

    /// The language of `region` (an ISO 3166 alpha-2 code), or `nil` when no catalog speaks it.
    public static func language(ofRegion region: String?) -> TextLanguage? {
        guard let region else { return nil }
        return byRegion[region.uppercased()]
    }

    private static let byRegion: [String: TextLanguage] = {
        var table: [String: TextLanguage] = [:]
        for (language, regions) in regions {
            for region in regions { table[region] = language }
        }
        return table
    }()
}
