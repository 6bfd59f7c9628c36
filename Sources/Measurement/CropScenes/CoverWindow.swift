/// The largest window of a shape that fits a scene: what a cover crop of that shape cuts, wherever
/// its gravity puts it.
public struct CoverWindow: Sendable, Equatable {
    public var width: Double
    public var height: Double
    /// The window keeps the scene's whole height and moves along its width (else the other way).
    public var slidesHorizontally: Bool

    /// `aspect` is the window's width over its height.
    public init(sceneWidth: Int, sceneHeight: Int, aspect: Double) {
        let (w, h) = (Double(sceneWidth), Double(sceneHeight))
        slidesHorizontally = w / h > aspect
        // The kept side is the scene's own, so a square on a landscape scene is exactly its height.
        (width, height) = slidesHorizontally ? (min(w, h * aspect), h) : (w, min(h, w / aspect))
    }

    /// The window `offset` scene pixels along the side it moves on.
    public func placed(at offset: Double) -> SceneRect {
        slidesHorizontally
            ? SceneRect(x: offset, y: 0, width: width, height: height)
            : SceneRect(x: 0, y: offset, width: width, height: height)
    }

    /// The most of `product` any placement keeps (it lies inside the scene, so the window can
    /// always cover as much of its span as the window's side allows), and whether that is all of it.
    public func bestKept(_ product: SceneRect) -> KeptShare {
        KeptShare(share: min(1, width / product.width) * min(1, height / product.height),
                  whole: product.width <= width && product.height <= height)
    }
}
