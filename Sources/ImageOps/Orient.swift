import ImageCore

extension PixelBuffer {
    /// Placeholder until orientation lands.
    public func oriented(_ orientation: Orientation) -> PixelBuffer { self }
}
