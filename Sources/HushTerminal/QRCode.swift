import CQRencode

/// A QR code symbol (ISO/IEC 18004) made by libqrencode, drawn for a terminal.
/// Used for the scannable form of a safety number.
public struct QRCode: Sendable {
    /// Modules per side.
    public let width: Int
    /// Row-major, true = dark module.
    public let modules: [Bool]

    public enum EncodingError: Error, CustomStringConvertible {
        case tooLarge(bytes: Int)
        public var description: String {
            switch self {
            case let .tooLarge(bytes): return "\(bytes) bytes do not fit in a QR code"
            }
        }
    }

    /// Encodes `data` in 8-bit mode at error-correction level M, choosing the
    /// smallest version that fits.
    public init(data: [UInt8]) throws(EncodingError) {
        guard let symbol = data.withUnsafeBufferPointer({ buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, QR_ECLEVEL_M)
        }) else {
            throw .tooLarge(bytes: data.count)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        var modules = [Bool](repeating: false, count: width * width)
        for index in 0..<(width * width) {
            // libqrencode: bit 0 of each byte is the module colour (1 = dark).
            modules[index] = symbol.pointee.data[index] & 1 == 1
        }
        self.width = width
        self.modules = modules
    }

    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < width else { return false }
        return modules[y * width + x]
    }

    /// Two module rows per text line, with Unicode half blocks. Light modules
    /// are drawn as blocks and dark ones as blank cells, so that on the usual
    /// light-text-on-dark terminal the symbol appears with its true polarity
    /// (dark modules on a light field). A four-module quiet zone surrounds it,
    /// as the standard requires.
    public func renderForTerminal(quietZone: Int = 4) -> String {
        var lines: [String] = []
        let start = -quietZone
        let end = width + quietZone
        var y = start
        while y < end {
            var line = ""
            for x in start..<end {
                let top = !isDark(x: x, y: y)
                let bottom = y + 1 < end ? !isDark(x: x, y: y + 1) : false
                switch (top, bottom) {
                case (true, true): line.append("█")
                case (true, false): line.append("▀")
                case (false, true): line.append("▄")
                case (false, false): line.append(" ")
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
