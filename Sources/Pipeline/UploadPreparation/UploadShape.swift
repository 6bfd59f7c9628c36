import Thumbnailer
import ImageOps

/// An exact box for every prepared photo (`--size 1200x1200 --fit pad`), as the marketplace's
/// listing rules may ask: `cover` fills it (cropping from the upload's gravity), `contain` fits
/// inside it, `pad` fits inside and fills the rest with `background`. Without one, a photo keeps
/// its own shape (or a square with `square`), capped by `maxSide`.
public struct UploadShape: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fit: Fit
    public var background: PadBackground

    public init(width: Int, height: Int, fit: Fit = .cover, background: PadBackground = .white) {
        (self.width, self.height, self.fit, self.background) = (width, height, fit, background)
    }

    /// Whether a photo of this upright size already is what the shape makes of it.
    func isMet(byWidth width: Int, height: Int) -> Bool {
        switch fit {
        case .cover, .pad: (width, height) == (self.width, self.height)
        case .contain: width <= self.width && height <= self.height && (width == self.width || height == self.height)
        }
    }
}
