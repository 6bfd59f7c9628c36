/// How to write an image. Metadata is never written: thumbnails and prepared uploads carry pixels only.
public enum EncodeSettings: Sendable, Equatable {
    /// Baseline or progressive JPEG with 4:2:0 chroma subsampling.
    case jpeg(quality: Int, progressive: Bool = false)
    case png
    case webp(quality: Int)
    case webpLossless
    /// AV1 in HEIF (libavif with aom), 4:2:0. `quality` is thumbd's (JPEG's) scale, see
    /// `libavifQuality(matchingJPEG:)`; `speed` is libavif's 0 (slowest, smallest) to 10.
    case avif(quality: Int, speed: Int = EncodeSettings.defaultAVIFSpeed)
    /// JPEG XL (libjxl, lossy VarDCT): `quality` is thumbd's scale, mapped to a butteraugli distance
    /// as cjxl maps its own quality; `effort` is libjxl's 1 (fastest) to 9.
    case jxl(quality: Int, effort: Int = EncodeSettings.defaultJXLEffort)

    public var format: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp, .webpLossless: .webp
        case .avif: .avif
        case .jxl: .jxl
        }
    }

    /// Measured on 200 px thumbnails of real photos (aom 3.6, one thread): 8 makes files within 1%
    /// of 7's, 25% faster, at half the time of 6; 9 saves a few milliseconds for 7-28% more bytes.
    public static let defaultAVIFSpeed = 8

    /// Measured on 300x400 thumbnails of 13 photos at quality 82 (libjxl 0.7, one thread): effort 5
    /// is where files shrink (9.8 kB against 11.4 kB at 3) and SSIM rises (0.9885 against 0.9825);
    /// 6 and 7 cost 25-45% more time for nothing at thumbnail sizes.
    public static let defaultJXLEffort = 5

    /// thumbd's qualities are JPEG's: `quality` q means "as faithful as a JPEG at q", whatever the
    /// format. libavif's own scale reaches the same SSIM lower down: `thumbd-bench formats` on 32
    /// photos (200 px) matched JPEG 60, 82 and 92 with AVIF 49, 63 and 81.5 (medians). Linear between
    /// those points (and 1 and 100 at the ends), this is the libavif quality for a thumbd quality.
    public static func libavifQuality(matchingJPEG quality: Int) -> Int {
        let points: [(jpeg: Double, avif: Double)] = [(1, 1), (60, 49), (82, 63), (92, 81.5), (100, 100)]
        let q = Double(min(100, max(1, quality)))
        for (low, high) in zip(points, points.dropFirst()) where q <= high.jpeg {
            let t = (q - low.jpeg) / (high.jpeg - low.jpeg)
            return Int((low.avif + t * (high.avif - low.avif)).rounded())
        }
        return 100
    }

    public static let defaultQuality = 82
    public static let qualityRange = 1...100
}
