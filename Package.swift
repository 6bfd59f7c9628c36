// swift-tools-version: 6.0
import PackageDescription

// One target per concern; a lower layer never imports a higher one:
//   C system libraries -> per-format codecs -> ImageCodecs (sniff + dispatch)
//   ImageCore (pixel buffers, orientation, errors) is below everything.
//   ImageOps (crop/resize/orient) knows nothing of codecs.
//   Thumbnailer joins codecs and ops; the thumbd executable is the only CLI.
let package = Package(
    name: "thumbd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "thumbd", targets: ["thumbd"]),
        .library(name: "Thumbnailer", targets: ["Thumbnailer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // System libraries, found through pkg-config; apt names them for a fresh Debian machine.
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // libpng reports errors with longjmp, which must never cross Swift frames: this C bridge keeps
        // every setjmp inside C and hands Swift plain status codes.
        .target(name: "CPNGBridge", dependencies: ["CPNG"]),
        // TurboJPEG 2.1's decompressor refuses unusual chroma subsampling; libjpeg's own API (same
        // library, same SIMD) reads them all, so decoding goes through this bridge.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "CJPEGBridge", dependencies: ["CJPEG"]),

        .target(name: "ImageCore"),
        .target(name: "JPEGCodec", dependencies: ["ImageCore", "CTurboJPEG", "CJPEGBridge"]),
        .target(name: "PNGCodec", dependencies: ["ImageCore", "CPNGBridge", "CPNG"]),
        .target(name: "WebPCodec", dependencies: ["ImageCore", "CWebP"]),
        .target(name: "ImageCodecs", dependencies: ["ImageCore", "JPEGCodec", "PNGCodec", "WebPCodec"]),
        .target(name: "ImageOps", dependencies: ["ImageCore"]),
        .target(name: "ImageQuality", dependencies: ["ImageCore"]),
        .target(name: "ChildProcess"),
        // The two-tier thumbnail cache: knows bytes and keys, nothing of codecs or HTTP.
        .target(
            name: "ThumbCache",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(name: "Thumbnailer", dependencies: ["ImageCore", "ImageCodecs", "ImageOps"]),
        .executableTarget(
            name: "thumbd",
            dependencies: [
                "Thumbnailer", "ImageCodecs", "ImageOps", "ImageQuality", "ChildProcess", "ThumbCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .target(name: "TestSupport", dependencies: ["ChildProcess", "ImageCore", "ThumbCache"], path: "Tests/TestSupport"),
        // Writes cache entries until the crash tests SIGKILL it; built with them, found beside the test binary.
        .executableTarget(name: "thumbd-cache-crash-writer", dependencies: ["ThumbCache", "TestSupport"], path: "Tests/CacheCrashWriter"),
        .testTarget(name: "ThumbCacheTests", dependencies: ["TestSupport", "ThumbCache", "ChildProcess", "thumbd-cache-crash-writer"]),
        .testTarget(name: "ImageCoreTests", dependencies: ["TestSupport", "ImageCore"]),
        .testTarget(name: "JPEGCodecTests", dependencies: ["TestSupport", "JPEGCodec", "ImageCore"]),
        .testTarget(name: "PNGCodecTests", dependencies: ["TestSupport", "PNGCodec", "ImageCore"]),
        .testTarget(name: "WebPCodecTests", dependencies: ["TestSupport", "WebPCodec", "ImageCore"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["TestSupport", "ImageCodecs", "ImageCore"]),
        .testTarget(name: "ImageOpsTests", dependencies: ["TestSupport", "ImageOps", "ImageCore", "ImageQuality"]),
        .testTarget(name: "ThumbnailerTests", dependencies: ["TestSupport", "Thumbnailer", "ImageCodecs", "ImageQuality", "ImageOps"]),
        .testTarget(name: "ThumbdCLITests", dependencies: ["TestSupport", "thumbd", "ChildProcess", "ImageCodecs", "ImageCore", "ThumbCache"]),
    ],
    swiftLanguageModes: [.v6]
)
