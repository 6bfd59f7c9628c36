/// The comparisons the benchmark exists for, worked out from figures measured in the same run.
extension BenchResults {
    mutating func computeRatios() {
        ratios = []
        func rate(_ t: Throughput?) -> Double? {
            guard let t, t.imagesPerSecond > 0 else { return nil }
            return t.imagesPerSecond
        }
        func ratio(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b, b > 0 else { return nil }
            return a / b
        }
        guard let main = thumbd.first else { return }
        let h = BenchReport.number(main.headroom)
        ratios.append(Ratio(name: "thumbd / vipsthumbnail, one core", value: ratio(rate(main.oneCore), rate(vips.oneCore)),
                            meaning: "images/s of thumbd's sequential loop (headroom \(h)) over vipsthumbnail pinned to one core; above 1: thumbd is faster"))
        ratios.append(Ratio(name: "thumbd / vipsthumbnail, all cores", value: ratio(rate(main.allCores), rate(vips.allCores)),
                            meaning: "thumbd with one worker per core over vipsthumbnail unrestricted; above 1: thumbd is faster"))
        ratios.append(Ratio(name: "thumbd CLI / vipsthumbnail, one core", value: ratio(rate(thumbdCLI.oneCore), rate(vips.oneCore)),
                            meaning: "both as one child process over the batch, pinned to core 0 (start-up and file writes on both sides)"))
        ratios.append(Ratio(name: "thumbd CLI / vipsthumbnail, all cores", value: ratio(rate(thumbdCLI.allCores), rate(vips.allCores)),
                            meaning: "both as one child process over the batch, unrestricted"))
        ratios.append(Ratio(name: "thumbd / Pillow, one core", value: ratio(rate(main.oneCore), rate(pillow.oneCore)),
                            meaning: "thumbd's sequential loop over Pillow's (draft + LANCZOS), both timed in-process"))
        ratios.append(Ratio(name: "djpeg floor / thumbd, JPEG only", value: ratio(rate(floor.djpeg.oneCore), rate(main.jpegOneCore)),
                            meaning: "how many times faster `djpeg -scale 1/8` (one process per file) gets through the JPEGs than thumbd does on one core"))
        ratios.append(Ratio(name: "in-process floor / thumbd, JPEG only", value: ratio(rate(floor.inProcess), rate(main.jpegOneCore)),
                            meaning: "how many times faster a bare 1/8-scale decode (read + decode, no start-up) is than thumbd's whole thumbnail on one core"))
        if let shape {
            let box = "\(shape.width)x\(shape.height)"
            ratios.append(Ratio(name: "thumbd / vipsthumbnail \(box), one core", value: ratio(rate(shape.thumbd.oneCore), rate(shape.vips.oneCore)),
                                meaning: "as the one-core row above, both making \(box) cover thumbnails from the centre"))
            ratios.append(Ratio(name: "thumbd / vipsthumbnail \(box), all cores", value: ratio(rate(shape.thumbd.allCores), rate(shape.vips.allCores)),
                                meaning: "as the all-cores row above, at \(box)"))
            ratios.append(Ratio(name: "thumbd CLI / vipsthumbnail \(box), one core", value: ratio(rate(shape.thumbdCLI.oneCore), rate(shape.vips.oneCore)),
                                meaning: "both as one child process over the batch, pinned to core 0, at \(box)"))
            ratios.append(Ratio(name: "thumbd CLI / vipsthumbnail \(box), all cores", value: ratio(rate(shape.thumbdCLI.allCores), rate(shape.vips.allCores)),
                                meaning: "both as one child process over the batch, unrestricted, at \(box)"))
        }
        for other in thumbd.dropFirst() {
            let o = BenchReport.number(other.headroom)
            ratios.append(Ratio(name: "thumbd headroom \(o) / headroom \(h), one core", value: ratio(rate(other.oneCore), rate(main.oneCore)),
                                meaning: "speed at decode headroom \(o) relative to \(h); above 1: \(o) is faster"))
        }
    }
}
