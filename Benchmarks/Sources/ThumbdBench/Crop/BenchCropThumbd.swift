import CropScenes
import Foundation
import ImageCore
import ThumbVariant
import Thumbnailer

/// thumbd's own crops, in this process: ThumbnailMaker (decode, crop, resize, JPEG q82) on
/// bytes already read. Centre and smart are interleaved file by file, which goes first alternating
/// from file to file and round to round (the second sees the file's bytes already in the CPU's
/// cache): on a shared machine the load changes within a round, and whole-round blocks per gravity
/// (as this bench first timed them) moved the smart crop's cost by ±10 points between runs.
enum BenchCropThumbd {
    struct Timing {
        /// Median over rounds of the round's mean time per thumbnail, by gravity.
        var milliseconds: [Gravity: Double]
        /// Where each file was cut, by gravity (upright source pixels), in file order.
        var crops: [Gravity: [SceneRect?]]
    }

    static func run(_ files: [[UInt8]], shape: BenchShape, rounds: Int) -> Timing {
        let maker = ThumbnailMaker()
        let requests = Gravity.allCases.map {
            Variant(width: shape.width, height: shape.height, fit: .cover, gravity: $0, format: .jpeg, quality: 82)
        }
        var perRound: [Gravity: [Double]] = [:]
        var crops: [Gravity: [SceneRect?]] = [:]
        let clock = ContinuousClock()
        for round in 0..<(max(1, rounds) + 1) {
            var elapsed = [Duration](repeating: .zero, count: requests.count)
            var windows = [[SceneRect?]](repeating: [], count: requests.count)
            for (number, bytes) in files.enumerated() {
                for index in (number + round) % 2 == 0 ? Array(requests.indices) : requests.indices.reversed() {
                    var thumbnail: Thumbnail?
                    elapsed[index] += clock.measure { thumbnail = try? maker.make(bytes, as: requests[index]) }
                    windows[index].append(thumbnail.map { SceneRect(x: $0.crop.x, y: $0.crop.y, width: $0.crop.width, height: $0.crop.height) })
                }
            }
            // Round 0 warms caches and the allocator, untimed.
            guard round > 0 else { continue }
            for (index, gravity) in Gravity.allCases.enumerated() {
                perRound[gravity, default: []].append(seconds(elapsed[index]) * 1000 / Double(max(1, files.count)))
                crops[gravity] = windows[index]
            }
        }
        return Timing(milliseconds: perRound.compactMapValues(BenchStats.median), crops: crops)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
