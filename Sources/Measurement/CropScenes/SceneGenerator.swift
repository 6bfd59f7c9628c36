import Foundation
import ImageCore

/// Makes product photos with the product off-centre and its box known: every frame shape, every
/// kind of background, plain and patterned products, as many of each as asked. Deterministic for
/// a seed and the same input photos.
public struct SceneGenerator: Sendable {
    /// The longer side of every scene, in pixels.
    public var longSide: Int
    /// Patterned products are cut from these (at least one).
    public var productPhotos: [PixelBuffer]
    /// Sharp busy and blurred backgrounds are made from these; without any, busy scenes use
    /// textured clutter and blurred ones the product photos.
    public var backgroundPhotos: [PixelBuffer]

    public init(longSide: Int = 1200, productPhotos: [PixelBuffer], backgroundPhotos: [PixelBuffer] = []) {
        precondition(!productPhotos.isEmpty, "patterned products need a photo to be cut from")
        self.longSide = longSide
        self.productPhotos = productPhotos
        self.backgroundPhotos = backgroundPhotos
    }

    /// `repetitions` scenes of each frame, background and look.
    public func scenes(repetitions: Int, seed: UInt64) -> [CropScene] {
        var scenes: [CropScene] = []
        for index in 0..<repetitions {
            for frame in SceneFrame.allCases {
                for background in SceneBackground.allCases {
                    for look in ProductLook.allCases {
                        scenes.append(scene(frame: frame, background: background, look: look, index: index, seed: seed))
                    }
                }
            }
        }
        return scenes
    }

    public func scene(frame: SceneFrame, background: SceneBackground, look: ProductLook, index: Int, seed: UInt64) -> CropScene {
        let code = ((index * 8 + SceneFrame.allCases.firstIndex(of: frame)!) * 4 + SceneBackground.allCases.firstIndex(of: background)!) * 2
            + ProductLook.allCases.firstIndex(of: look)!
        var random = SceneRandom(seed: seed &+ UInt64(code) &* 0x1000_0000_01B3)
        _ = random.next()
        let (width, height) = frame.size(longSide: longSide)
        let product = placement(width: width, height: height, &random)

        var canvas: SceneCanvas
        switch background {
        case .studio:
            canvas = SceneBackgrounds.studio(width: width, height: height, &random)
            SceneProducts.paintShadow(under: product, on: &canvas)
        case .blurred:
            let sources = backgroundPhotos.isEmpty ? productPhotos : backgroundPhotos
            let photo = sources[(index + code) % sources.count]
            canvas = SceneBackgrounds.blurred(SceneBackgrounds.photo(photo, width: width, height: height, &random))
        case .busy:
            if backgroundPhotos.isEmpty {
                canvas = SceneBackgrounds.clutter(width: width, height: height, &random)
            } else {
                let photo = backgroundPhotos[(index + code) % backgroundPhotos.count]
                canvas = SceneCanvas(SceneBackgrounds.photo(photo, width: width, height: height, &random))
            }
        }
        let shape = SceneShape.allCases[random.index(SceneShape.allCases.count)]
        let photo = productPhotos[(index * 3 + code) % productPhotos.count]
        SceneProducts.paint(look, shape, in: product, photo: photo, on: &canvas, &random)
        return CropScene(name: "\(background.rawValue)-\(look.rawValue)-\(frame.rawValue)-\(index)", background: background,
                         look: look, frame: frame, image: canvas.pixelBuffer, product: product)
    }

    /// Where the product goes: 30–62 % of the short side, never wider than three quarters of it (so
    /// a square crop can always hold it whole; a window of another shape may not, see
    /// `CoverWindow.bestKept`), pushed towards one end of the long side.
    func placement(width: Int, height: Int, _ random: inout SceneRandom) -> SceneRect {
        let short = Double(min(width, height)), long = Double(max(width, height))
        let size = random.uniform(0.3...0.62) * short
        let aspect = random.uniform(0.6...1.5).squareRoot()
        let (alongLong, alongShort) = (min(0.75 * short, size * aspect), min(0.75 * short, size / aspect))
        let margin = 0.03 * long
        let furthest = long / 2 - alongLong / 2 - margin
        let offset = (random.coin() ? 1 : -1) * random.uniform(0.45...1.0) * max(0, furthest)
        let longStart = long / 2 + offset - alongLong / 2
        let shortMargin = 0.04 * short
        let shortStart = random.uniform(shortMargin...max(shortMargin, short - alongShort - shortMargin))
        return width >= height
            ? SceneRect(x: longStart, y: shortStart, width: alongLong, height: alongShort)
            : SceneRect(x: shortStart, y: longStart, width: alongShort, height: alongLong)
    }
}
