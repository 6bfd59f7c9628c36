import ImageCore

/// HEIF's transformative properties and EXIF orientation, both ways.
///
/// `irot` turns the image `angle` quarter turns anticlockwise; `imir` then mirrors it, mode 0
/// exchanging top and bottom, mode 1 left and right (HEIF: rotation before mirroring). AVIF
/// carries no EXIF orientation that counts: an Exif item's Orientation tag is ignored, as browsers
/// do, and only irot/imir say how to stand the image up.
enum AVIFOrientation {
    /// `rotation` is irot's angle (nil: no irot box), `mirror` imir's mode (nil: no imir box).
    static func orientation(rotation: UInt8?, mirror: UInt8?) -> Orientation {
        // Quarter turns anticlockwise as EXIF orientations: 0 up, 1 left (8), 2 down (3), 3 right (6).
        let turns = Int(rotation ?? 0) & 3
        guard let mirror else {
            return [.up, .left, .down, .right][turns]
        }
        // Mirroring left-right after a half turn is mirroring top-bottom, and so on: rotate, then
        // flip, expressed as one of the four mirrored orientations.
        switch (turns, mirror & 1) {
        case (0, 1), (2, 0): return .upMirrored      // 2: flipped left-right
        case (0, 0), (2, 1): return .downMirrored    // 4: flipped top-bottom
        case (1, 0), (3, 1): return .leftMirrored    // 5: transposed
        default: return .rightMirrored               // 7: transversed: (1, 1), (3, 0)
        }
    }

    /// The irot angle and imir mode that libavif writes for an EXIF orientation (its own table in
    /// avifImageSetMetadataExif), nil where the box is left out.
    static func transform(for orientation: Orientation) -> (rotation: UInt8?, mirror: UInt8?) {
        switch orientation {
        case .up: (nil, nil)
        case .upMirrored: (nil, 1)
        case .down: (2, nil)
        case .downMirrored: (nil, 0)
        case .leftMirrored: (1, 0)
        case .right: (3, nil)
        case .rightMirrored: (3, 0)
        case .left: (1, nil)
        }
    }
}
