extension SaliencyMap {
    /// The part of the map inside the given rectangle (map pixels, clamped to the map): a smart
    /// crop inside a trimmed frame looks only there, with saliency still judged on the whole photo.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> SaliencyMap {
        let x0 = min(max(0, x), self.width - 1), y0 = min(max(0, y), self.height - 1)
        let w = max(1, min(width, self.width - x0)), h = max(1, min(height, self.height - y0))
        var part = [Float]()
        part.reserveCapacity(w * h)
        for row in y0..<(y0 + h) {
            part.append(contentsOf: values[(row * self.width + x0)..<(row * self.width + x0 + w)])
        }
        return SaliencyMap(width: w, height: h, values: part)
    }
}
