/// The hosted page's script and stylesheet, served from the binary.
enum HostedAssets {
    /// The page's script.
    static let script: String = #"""
        "use strict";
        """#
    /// The page's stylesheet.
    static let stylesheet: String = #"""
        body { font-family: system-ui, sans-serif; }
        """#
}
