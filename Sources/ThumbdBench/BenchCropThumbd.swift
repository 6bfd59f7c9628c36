import CropScenes
import Foundation
import ImageCore
import Thumbnailer

/// thumbd's own crops, in this process: Thumbnailer.make (decode, crop, resize, JPEG q82) on
/// bytes already read, centre and smart interleaved round by round so a change in load hits both.
enum BenchCropThumbd {
    struct Timing {
        /// Median over rounds of the round's mean time per thumbnail, by gravity.
        var milliseconds: [Gravity: Double]
        /// Where each file was cut, by gravity (upright source pixels), in file order.
        var crops: [Gravity: [SceneRect?]]
    }

    static func run(_ files: [[UInt8]], size: Int, rounds: Int) -> Timing {
        var perRound: [Gravity: [Double]] = [:]
        var crops: [Gravity: [SceneRect?]] = [:]
        let clock = ContinuousClock()
        for round in 0..<(max(1, rounds) + 1) {
            for gravity in Gravity.allCases {
                let request = ThumbnailRequest(size: size, fit: .cover, gravity: gravity, encoding: .jpeg(quality: 82))
                var windows: [SceneRect?] = []
                let elapsed = clock.measure {
                    for bytes in files {
                        let thumbnail = try? Thumbnailer.make(from: bytes, request)
                        windows.append(thumbnail.map { SceneRect(x: $0.crop.x, y: $0.crop.y, width: $0.crop.width, height: $0.crop.height) })
                    }
                }
                // Round 0 warms caches and the allocator, untimed.
                guard round > 0 else { continue }
                perRound[gravity, default: []].append(seconds(elapsed) * 1000 / Double(max(1, files.count)))
                crops[gravity] = windows
            }
        }
        return Timing(milliseconds: perRound.compactMapValues(BenchStats.median), crops: crops)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
