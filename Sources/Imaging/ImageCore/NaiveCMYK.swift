extension PixelBuffer {
    /// CMYK to RGB with no profile: each ink darkens its complementary channel, scaled by black.
    /// What thumbd does for a CMYK JPEG that has no ICC profile (or one that cannot be used);
    /// with a profile, `ColorManagement` converts instead.
    public mutating func convertNaiveCMYKToRGBA(inverted: Bool) {
        pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                var c = Int(p[i]), m = Int(p[i + 1]), y = Int(p[i + 2]), k = Int(p[i + 3])
                if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                p[i] = UInt8((c * k + 127) / 255)
                p[i + 1] = UInt8((m * k + 127) / 255)
                p[i + 2] = UInt8((y * k + 127) / 255)
                p[i + 3] = 255
            }
        }
        hasAlpha = false
    }
}
