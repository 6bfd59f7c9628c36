import CropScenes

/// A seeded generator so random tests replay the same way (the scene generator's SplitMix64).
public typealias SeededRandom = SceneRandom
