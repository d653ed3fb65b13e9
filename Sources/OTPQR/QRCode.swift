import CQRencode

/// A QR code made by libqrencode: a square of modules, dark or light, drawn as SVG, as terminal
/// half-blocks, or as a PGM image (for decoding it again in tests).
public struct QRCode: Sendable, Equatable {
    /// The modules, row by row; `true` is dark.
    public let modules: [[Bool]]

    /// The side, in modules.
    public var size: Int { modules.count }

    /// The QR code of some text (8-bit mode, error correction level M), or `nil` when libqrencode
    /// refuses it (too long for any version).
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        modules = (0..<width).map { row in
            (0..<width).map { column in data[row * width + column] & 1 == 1 }
        }
    }

    /// An SVG drawing with a quiet zone of four modules, one unit per module.
    public func svg(quietZone: Int = 4) -> String {
        let side = size + 2 * quietZone
        var path = ""
        for (row, line) in modules.enumerated() {
            for (column, dark) in line.enumerated() where dark {
                path += "M\(column + quietZone) \(row + quietZone)h1v1h-1z"
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" "
            + "shape-rendering=\"crispEdges\"><rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path d=\"\(path)\" fill=\"#000\"/></svg>"
    }

    /// The code in a terminal: two rows of modules per line with half-block characters, dark
    /// modules as spaces on a light background (so it scans on dark terminals too), with a quiet zone.
    public func terminalLines(quietZone: Int = 2) -> [String] {
        let side = size + 2 * quietZone
        func dark(_ row: Int, _ column: Int) -> Bool {
            let r = row - quietZone
            let c = column - quietZone
            return r >= 0 && r < size && c >= 0 && c < size && modules[r][c]
        }
        var lines: [String] = []
        for row in stride(from: 0, to: side, by: 2) {
            var line = ""
            for column in 0..<side {
                switch (dark(row, column), dark(row + 1, column)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// A binary PGM image, `scale` pixels per module, with a quiet zone of four modules.
    public func pgm(scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for (row, line) in modules.enumerated() {
            for (column, isDark) in line.enumerated() where isDark {
                for y in 0..<scale {
                    for x in 0..<scale {
                        pixels[((row + quietZone) * scale + y) * side + (column + quietZone) * scale + x] = 0
                    }
                }
            }
        }
        return Array("P5\n\(side) \(side)\n255\n".utf8) + pixels
    }
}
