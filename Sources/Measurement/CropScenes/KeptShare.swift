/// How much of a scene's product a crop window kept.
public struct KeptShare: Sendable, Equatable {
    /// The share of the product's box inside the window, 0...1.
    public var share: Double
    /// The whole box is inside the window, give or take 1 % of the window's shorter side (two pixels
    /// of a 200 px thumbnail: what locating a peer's crop from its thumbnail may be off by). The
    /// same slack on both axes, because a locating error is a few thumbnail pixels either way.
    public var whole: Bool

    public init(share: Double, whole: Bool) {
        (self.share, self.whole) = (share, whole)
    }

    public init(product: SceneRect, window: SceneRect) {
        share = product.area > 0 ? min(1, product.intersectionArea(window) / product.area) : 0
        let slack = 0.01 * min(window.width, window.height)
        whole = product.x >= window.x - slack && product.y >= window.y - slack
            && product.maxX <= window.maxX + slack && product.maxY <= window.maxY + slack
    }
}

/// Kept shares added up, overall and by background.
public struct KeptShareTally: Sendable {
    public struct Line: Sendable {
        public var scenes = 0
        public var whole = 0
        public var shareSum = 0.0
        public var wholePercent: Double { scenes > 0 ? 100 * Double(whole) / Double(scenes) : 0 }
        public var meanShare: Double { scenes > 0 ? shareSum / Double(scenes) : 0 }

        mutating func add(_ kept: KeptShare) {
            scenes += 1
            whole += kept.whole ? 1 : 0
            shareSum += kept.share
        }
    }

    public private(set) var overall = Line()
    public private(set) var byBackground: [SceneBackground: Line] = [:]

    public init() {}

    public mutating func add(_ kept: KeptShare, background: SceneBackground) {
        overall.add(kept)
        byBackground[background, default: Line()].add(kept)
    }

    public func line(_ background: SceneBackground) -> Line { byBackground[background] ?? Line() }
}
