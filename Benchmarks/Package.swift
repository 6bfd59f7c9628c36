// swift-tools-version: 6.2
import PackageDescription

// thumbd's benchmarks: `thumbd-bench` and its tests, a package of their own on the product's library
// targets, so thumbd's build compiles no benchmark. Built into the product's build folder
// (`--scratch-path ../.build`, as the Makefile does), they reuse the modules that build already
// compiled, and thumbd-bench sits beside the thumbd it runs.
let package = Package(
    name: "thumbd-benchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "thumbd-bench", targets: ["ThumbdBench"]),
    ],
    dependencies: [
        // Named, because a package found by path is otherwise known by its folder's name, which a clone may change.
        .package(name: "thumbd", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // `thumbd-bench`, `thumbd-bench serve|fleet|prefetch|prepare|ui|cache|crash|soak|crop|formats|shared|sizes|progressive`.
        // It runs the thumbd built beside it as a child; the cache's micro-benchmarks reach ThumbCache's
        // `CacheFiles` SPI (its disk layout and file operations).
        .executableTarget(
            name: "ThumbdBench",
            dependencies: [
                .product(name: "Thumbnailer", package: "thumbd"),
                // thumbd's buffer reuse, so in-process rows measure what the daemon and the CLI run.
                .product(name: "HeapTuning", package: "thumbd"),
                .product(name: "ImageCodecs", package: "thumbd"),
                // `progressive` cuts JPEGs after their first scans.
                .product(name: "JPEGCodec", package: "thumbd"),
                .product(name: "ImageCore", package: "thumbd"),
                .product(name: "ImageOps", package: "thumbd"),
                .product(name: "ImageQuality", package: "thumbd"),
                .product(name: "ChildProcess", package: "thumbd"),
                .product(name: "ThumbCache", package: "thumbd"),
                .product(name: "ThumbPipeline", package: "thumbd"),
                .product(name: "ThumbVariant", package: "thumbd"),
                .product(name: "ThumbServer", package: "thumbd"),
                .product(name: "ThumbFleet", package: "thumbd"),
                .product(name: "UploadPreparation", package: "thumbd"),
                .product(name: "ByteUnits", package: "thumbd"),
                .product(name: "ConsoleText", package: "thumbd"),
                .product(name: "InputFiles", package: "thumbd"),
                .product(name: "ExitStatus", package: "thumbd"),
                .product(name: "CropScenes", package: "thumbd"),
                // `prepare` builds its phone photos, and `serve` and `fleet` their nginx configurations, with the fixtures the tests use.
                .product(name: "TestSupport", package: "thumbd"),
                // `crash` reads the cache's index with SQLite directly, not through ThumbCache's reading code.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/ThumbdBench",
            // The Python peers and origins it runs, in the binary (BenchScript) so any working directory will do.
            resources: [
                .embedInCode("Scripts/thumbor_crop.py"),
                .embedInCode("Scripts/pillow_thumbnails.py"),
                .embedInCode("Scripts/prefetch_origin.py"),
            ]
        ),
        // Runs the built thumbd-bench (with the thumbd that thumbd's build put beside it) and tests
        // its figures' arithmetic; the crash rounds and the cache at scale SIGKILL real daemons.
        .testTarget(
            name: "ThumbdBenchTests",
            dependencies: [
                "ThumbdBench",
                .product(name: "TestSupport", package: "thumbd"),
                .product(name: "ChildProcess", package: "thumbd"),
                .product(name: "ThumbCache", package: "thumbd"),
                .product(name: "CropScenes", package: "thumbd"),
                .product(name: "ImageCodecs", package: "thumbd"),
                .product(name: "ImageCore", package: "thumbd"),
                .product(name: "ImageOps", package: "thumbd"),
                .product(name: "Thumbnailer", package: "thumbd"),
            ],
            path: "Tests/ThumbdBenchTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
