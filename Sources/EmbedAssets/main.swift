import Foundation

// Turns text files into Swift: `EmbedAssets OUTPUT ENUM NAME=FILE…` writes `enum ENUM` with one
// `static let NAME: String` per file, holding the file exactly; `NAME:=VALUE` holds the value
// itself. The hosted page's script and stylesheet are kept as real files and built into the one
// binary this way, and so are the release's version (the VERSION file) and its commit.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedAssets OUTPUT ENUM NAME=FILE|NAME:=VALUE...\n".utf8))
    exit(2)
}
let enumName = arguments.dropFirst().first ?? "Assets"

/// A raw multi-line string literal of `text`: enough `#`s that nothing in the text ends it.
func literal(_ text: String) -> String {
    var hashes = 1
    while text.contains("\"\"\"" + String(repeating: "#", count: hashes))
        || text.contains("\\" + String(repeating: "#", count: hashes))
    {
        hashes += 1
    }
    let fence = String(repeating: "#", count: hashes)
    // A multi-line literal drops the line break before its closing quotes: add one back.
    return "\(fence)\"\"\"\n\(text)\n\"\"\"\(fence)"
}

var swift = "// Made by EmbedAssets at build time from the files named below; edit those files.\n\n"
swift += "enum \(enumName) {\n"
for pair in arguments.dropFirst(2) {
    if let marker = pair.range(of: ":=") {
        let name = pair[..<marker.lowerBound]
        swift += "    /// Given when the binary was built.\n"
        swift += "    static let \(name): String = \(literal(String(pair[marker.upperBound...])))\n"
        continue
    }
    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, let text = try? String(contentsOfFile: parts[1], encoding: .utf8) else {
        FileHandle.standardError.write(Data("EmbedAssets: cannot read \(pair)\n".utf8))
        exit(1)
    }
    swift += "    /// `\(URL(fileURLWithPath: parts[1]).lastPathComponent)`, as it is.\n"
    swift += "    static let \(parts[0]): String = \(literal(text))\n"
}
swift += "}\n"
do {
    try swift.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("EmbedAssets: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
