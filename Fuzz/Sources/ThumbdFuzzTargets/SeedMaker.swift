/// Small inputs made here, for what no corpus holds (AVIF, EXIF TIFFs, upload forms, queries,
/// pages, configuration): the runner adds them to each target's seeds at run time.
public enum SeedMaker {
    public static func seeds(for target: FuzzTarget) -> [(name: String, bytes: [UInt8])] {
        switch target {
        case .thumbnail: SeedImages.all
        case .jpeg: SeedImages.all.filter { $0.name.hasSuffix(".jpg") }
        case .png: SeedImages.all.filter { $0.name.hasSuffix(".png") }
        case .webp: SeedImages.all.filter { $0.name.hasSuffix(".webp") }
        case .avif: SeedImages.all.filter { $0.name.hasSuffix(".avif") }
        // thumbd writes no HEIC: its seeds are TestImages/heic (made by Scripts/heic_testimages.py).
        case .heic: []
        // Nor GIF, TIFF, BMP or JPEG XL: TestImages/gif, tiff, bmp and jxl (Scripts/*_testimages.py).
        case .gif, .tiff, .bmp, .jxl: []
        case .exif: SeedTexts.exif
        case .multipart: SeedTexts.multipart
        case .query: SeedTexts.queries.enumerated().map { ("query-\($0.offset).txt", Array($0.element.utf8)) }
        case .page: SeedTexts.pages.enumerated().map { ("page-\($0.offset).json", Array($0.element.utf8)) }
        case .config: SeedTexts.configs.enumerated().map { ("config-\($0.offset).yaml", Array($0.element.utf8)) }
        }
    }
}
