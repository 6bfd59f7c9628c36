// swift-tools-version: 6.2
import PackageDescription

// One target per concern; a lower layer never imports a higher one. Sources/ is grouped by layer,
// bottom to top (ARCHITECTURE.md draws it):
//   C/         system libraries and the C bridges that keep longjmp and socket work inside C
//   Imaging/   ImageCore (pixel buffers, orientation, errors) below everything; ImageOps (resize, crop,
//              orient) and ImagePlaceholder; Thumbnailer joins codecs and ops
//   Codecs/    one per format, ColorManagement, and ImageCodecs (sniff + dispatch)
//   Cache/     ThumbCache: keys, memory and disk tiers; nothing of codecs or HTTP
//   Pipeline/  ThumbVariant, NetworkGuard, ThumbPipeline (downloads, coalescing jobs, CPU pool), UploadPreparation
//   Server/    ThumbServer (HTTP), ThumbFleet, UploadForms, ServiceNotify
//   Programs/  thumbd (the CLI) and ThumbdConfig (its settings)
//   Shared/    small helpers thumbd and the benchmarks use; Measurement/: SSIM and crop scenes for tests and benchmarks
// The benchmarks (thumbd-bench) are a package of their own, Benchmarks/, built on this one's libraries.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "thumbd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "thumbd", targets: ["thumbd"]),
        // What the benchmarks (Benchmarks/, a package of their own) build on: the layers they measure
        // and the tests' fixtures. thumbd's own build compiles no benchmark.
        .library(name: "ByteUnits", targets: ["ByteUnits"]),
        .library(name: "ChildProcess", targets: ["ChildProcess"]),
        .library(name: "ConsoleText", targets: ["ConsoleText"]),
        .library(name: "CropScenes", targets: ["CropScenes"]),
        .library(name: "ExitStatus", targets: ["ExitStatus"]),
        .library(name: "HeapTuning", targets: ["HeapTuning"]),
        .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
        .library(name: "JPEGCodec", targets: ["JPEGCodec"]),
        .library(name: "ImageCore", targets: ["ImageCore"]),
        .library(name: "ImageOps", targets: ["ImageOps"]),
        .library(name: "ImageQuality", targets: ["ImageQuality"]),
        .library(name: "InputFiles", targets: ["InputFiles"]),
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .library(name: "ThumbCache", targets: ["ThumbCache"]),
        .library(name: "ThumbFleet", targets: ["ThumbFleet"]),
        .library(name: "ThumbPipeline", targets: ["ThumbPipeline"]),
        .library(name: "ThumbServer", targets: ["ThumbServer"]),
        .library(name: "ThumbVariant", targets: ["ThumbVariant"]),
        .library(name: "Thumbnailer", targets: ["Thumbnailer"]),
        .library(name: "UploadPreparation", targets: ["UploadPreparation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
        // Already resolved for swift-configuration's YAML trait; read directly for `presets:`, a map
        // whose names the configuration reader cannot list.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already in the graph through async-http-client: named so downloads can trust an extra CA
        // and tell TLS failures apart, and so the test origin can speak HTTPS.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        // System libraries, found through pkg-config; apt names them for a fresh Debian machine.
        .systemLibrary(name: "CTurboJPEG", path: "Sources/C/CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CLCMS2", path: "Sources/C/CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CAVIF", path: "Sources/C/CAVIF", pkgConfig: "libavif", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CHEIF", path: "Sources/C/CHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/C/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/C/CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", path: "Sources/C/CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CJXL", path: "Sources/C/CJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CTIFF", path: "Sources/C/CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // TIFFGetField/TIFFSetField are variadic and libtiff's message handlers take a va_list: this bridge
        // does both, opens files from memory, and keeps libtiff's messages off stderr.
        .target(name: "CTIFFBridge", dependencies: ["CTIFF"], path: "Sources/C/CTIFFBridge"),
        // libpng reports errors with longjmp, which must never cross Swift frames: this C bridge keeps
        // every setjmp inside C and hands Swift plain status codes.
        .target(name: "CPNGBridge", dependencies: ["CPNG"], path: "Sources/C/CPNGBridge"),
        // TurboJPEG 2.1's decompressor refuses unusual chroma subsampling; libjpeg's own API (same
        // library, same SIMD) reads them all, so decoding goes through this bridge.
        .systemLibrary(name: "CJPEG", path: "Sources/C/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "CJPEGBridge", dependencies: ["CJPEG"], path: "Sources/C/CJPEGBridge"),
        // sd_notify's datagram without libsystemd (the socket address is C work); ServiceNotify is its Swift face.
        .target(name: "CSystemdNotify", path: "Sources/C/CSystemdNotify"),
        .target(name: "CMallocTuning", path: "Sources/C/CMallocTuning"),
        // glibc's malloc set to reuse a miss's large buffers: the daemon, the batch commands, the benchmarks.
        .target(name: "HeapTuning", dependencies: ["CMallocTuning"], path: "Sources/Shared/HeapTuning"),
        .target(name: "CFileSync", path: "Sources/C/CFileSync"),
        .target(name: "CBackgroundIO", path: "Sources/C/CBackgroundIO"),
        // SHA-256 and HMAC-SHA256 from the system's libcrypto (libssl-dev), not a copy of BoringSSL
        // compiled into every build; Digests is their Swift face.
        .target(name: "CDigest", path: "Sources/C/CDigest", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "Digests", dependencies: ["CDigest"], path: "Sources/Shared/Digests"),
        .target(name: "ServiceNotify", dependencies: ["CSystemdNotify"], path: "Sources/Server/ServiceNotify"),
        // The version, and the commit and date of the build, which BuildInfoPlugin rewrites when HEAD or a source changes.
        .target(name: "BuildInfo", path: "Sources/Shared/BuildInfo", plugins: ["BuildInfoPlugin"]),
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),

        .target(name: "ImageCore", path: "Sources/Imaging/ImageCore"),
        // Byte counts as people write and read them ("300KiB"), for settings, flags and messages.
        .target(name: "ByteUnits", path: "Sources/Shared/ByteUnits"),
        .target(name: "JPEGCodec", dependencies: ["ImageCore", "CTurboJPEG", "CJPEGBridge"], path: "Sources/Codecs/JPEGCodec"),
        .target(name: "PNGCodec", dependencies: ["ImageCore", "CPNGBridge", "CPNG"], path: "Sources/Codecs/PNGCodec"),
        .target(name: "WebPCodec", dependencies: ["ImageCore", "CWebP"], path: "Sources/Codecs/WebPCodec"),
        // The C modules too: ImageCodecs reports the libraries' versions.
        .target(name: "AVIFCodec", dependencies: ["ImageCore", "CAVIF"], path: "Sources/Codecs/AVIFCodec"),
        // HEIC in (iPhone photos) through libheif; never written.
        .target(name: "HEIFCodec", dependencies: ["ImageCore", "CHEIF"], path: "Sources/Codecs/HEIFCodec"),
        // Windows and OS/2 bitmaps: thumbd's own strict reader (no Debian library fits); never written.
        .target(name: "BMPCodec", dependencies: ["ImageCore"], path: "Sources/Codecs/BMPCodec", swiftSettings: optimisedInDebug),
        // GIF's first frame through giflib's record API; never written.
        .target(name: "GIFCodec", dependencies: ["ImageCore", "CGIF"], path: "Sources/Codecs/GIFCodec", swiftSettings: optimisedInDebug),
        // JPEG XL in and out through libjxl 0.7, single-threaded (thumbd runs one decode per core already).
        .target(name: "JXLCodec", dependencies: ["ImageCore", "CJXL"], path: "Sources/Codecs/JXLCodec"),
        // TIFF's first page through libtiff; never written.
        .target(name: "TIFFCodec", dependencies: ["ImageCore", "CTIFF", "CTIFFBridge"], path: "Sources/Codecs/TIFFCodec", swiftSettings: optimisedInDebug),
        // Colour management (Little CMS): any source's colours to sRGB, below the codecs' one door.
        .target(name: "ColorManagement", dependencies: ["ImageCore", "CLCMS2"], path: "Sources/Codecs/ColorManagement"),
        .target(name: "ImageCodecs", dependencies: ["ImageCore", "JPEGCodec", "PNGCodec", "WebPCodec", "AVIFCodec", "HEIFCodec", "BMPCodec",
                                                    "GIFCodec", "JXLCodec", "TIFFCodec", "ColorManagement", "CJPEG", "CPNG", "CWebP", "CAVIF"],
                path: "Sources/Codecs/ImageCodecs"),
        // Pixel loops run optimised in debug builds too: the tests resample 12-megapixel photos, which
        // unoptimised Swift does some 30 times slower.
        // The resizer's AVX2 row kernel, chosen at run time.
        .target(name: "CResampleKernels", path: "Sources/C/CResampleKernels", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(name: "ImageOps", dependencies: ["ImageCore", "CResampleKernels"], path: "Sources/Imaging/ImageOps", swiftSettings: optimisedInDebug),
        .target(name: "ImageQuality", dependencies: ["ImageCore"], path: "Sources/Measurement/ImageQuality", swiftSettings: optimisedInDebug),
        // Generated product photos with known product boxes, and the kept-share measure: the smart
        // crop's tests and `thumbd-bench crop` both use them; thumbd does not link them.
        .target(name: "CropScenes", dependencies: ["ImageCore", "ImageOps"], path: "Sources/Measurement/CropScenes", swiftSettings: optimisedInDebug),
        .target(name: "ChildProcess", path: "Sources/Shared/ChildProcess"),
        // What thumbd and thumbd-bench both print and do as command-line programs: aligned tables,
        // the input file read under its size cap, exit status 2 for usage errors.
        .target(name: "ConsoleText", path: "Sources/Shared/ConsoleText"),
        .target(name: "InputFiles", path: "Sources/Shared/InputFiles"),
        .target(name: "ExitStatus", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Sources/Shared/ExitStatus"),
        // The two-tier thumbnail cache: knows bytes and keys, nothing of codecs or HTTP.
        .target(
            name: "ThumbCache",
            dependencies: [
                "ByteUnits",
                "CFileSync",
                "CBackgroundIO",
                "Digests",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/Cache/ThumbCache"
        ),
        // ThumbHash placeholders: a few bytes that decode to a blurred preview of a photo.
        .target(name: "ImagePlaceholder", dependencies: ["ImageCore"], path: "Sources/Imaging/ImagePlaceholder", swiftSettings: optimisedInDebug),
        .target(name: "Thumbnailer", dependencies: ["ImageCore", "ImageCodecs", "ImageOps", "ColorManagement", "ImagePlaceholder"], path: "Sources/Imaging/Thumbnailer"),
        // A seller's photos made ready for upload: upright, no metadata, within a byte budget.
        .target(name: "UploadPreparation", dependencies: ["ByteUnits", "ImageCore", "ImageCodecs", "ImageOps", "Thumbnailer"], path: "Sources/Pipeline/UploadPreparation"),
        // multipart/form-data in and out: the seller's upload read under limits, the registration body written.
        .target(
            name: "UploadForms",
            dependencies: [
                "UploadPreparation",
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Server/UploadForms"
        ),
        // What to make of a photo: the one variant type, its parser, defaults and canonical text, for every door.
        .target(name: "ThumbVariant", dependencies: ["ImageCore", "ImageOps", "Thumbnailer", "ThumbCache"], path: "Sources/Pipeline/ThumbVariant"),
        // Which network addresses a download may reach: CIDR sets, the private-range guard, resolution.
        .target(name: "NetworkGuard", path: "Sources/Pipeline/NetworkGuard"),
        // S3 object addresses, endpoints, credentials and AWS Signature Version 4: nothing of HTTP
        // clients, so the downloader and the shared tier sign with the same code.
        .target(name: "ObjectStorage", dependencies: ["Digests"], path: "Sources/Pipeline/ObjectStorage"),
        // Guarded downloads, one coalesced cancellable job per (URL, variant), the bounded CPU pool.
        .target(
            name: "ThumbPipeline",
            dependencies: [
                "NetworkGuard", "ObjectStorage", "ThumbCache", "ThumbVariant", "Thumbnailer", "ImageCodecs", "ImageCore", "ColorManagement", "ImagePlaceholder",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Sources/Pipeline/ThumbPipeline"
        ),
        // One node of many behind a balancer: prefetch items through the entry point (the balancer's
        // hash finds each URL's home node), and what every node must hear (evict a host, fleet stats).
        .target(
            name: "ThumbFleet",
            dependencies: [
                "ThumbPipeline", "ThumbVariant", "ThumbCache",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Server/ThumbFleet"
        ),
        // The HTTP API: routes, problem+json errors, Prometheus metrics, signed URLs, admin token, the cache inspector (/ui).
        .target(
            name: "ThumbServer",
            dependencies: [
                "ThumbPipeline", "ThumbVariant", "ThumbCache", "ImageCore", "NetworkGuard", "ObjectStorage", "UploadPreparation", "UploadForms", "ServiceNotify", "ThumbFleet", "CMallocTuning", "HeapTuning",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "Digests",
            ],
            path: "Sources/Server/ThumbServer",
            // The cache inspector's page, compiled in: one binary, nothing to install beside it.
            resources: [
                .embedInCode("Inspector/Assets/index.html"),
                .embedInCode("Inspector/Assets/inspector.js"),
                .embedInCode("Inspector/Assets/inspector.css"),
                // The API's OpenAPI document, served at /openapi.yaml.
                .embedInCode("OpenAPI/openapi.yaml"),
            ]
        ),
        // The settings of every command: embedded defaults, then config/thumbd.yaml, then THUMBD_* variables.
        .target(
            name: "ThumbdConfig",
            dependencies: [
                "ThumbServer", "ThumbPipeline", "ThumbVariant", "ThumbCache", "NetworkGuard", "ObjectStorage", "Thumbnailer", "ImageCore", "UploadPreparation", "ByteUnits", "ThumbFleet",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/Programs/ThumbdConfig"
        ),
        .executableTarget(
            name: "thumbd",
            dependencies: [
                "Thumbnailer", "ImageCodecs", "ThumbCache",
                "ThumbdConfig", "ThumbServer", "ThumbPipeline", "ThumbVariant", "UploadPreparation", "UploadForms", "ByteUnits", "ImageCore", "BuildInfo", "ThumbFleet",
                "ConsoleText", "InputFiles", "ExitStatus", "ObjectStorage", "HeapTuning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Sources/Programs/thumbd"
        ),

        // libFuzzer targets for thumbd's parsers (Fuzz/README.md, `make fuzz`): the targets, safe Swift over
        // bytes, and `thumbd-fuzz`, libFuzzer's entry points when built with `--sanitize=fuzzer` and
        // `-DTHUMBD_LIBFUZZER` (`make fuzz-build`), a program that replays files through a target otherwise.
        .target(
            name: "ThumbdFuzzTargets",
            dependencies: [
                "ImageCore", "ImageCodecs", "JPEGCodec", "PNGCodec", "WebPCodec", "AVIFCodec", "HEIFCodec", "BMPCodec", "GIFCodec", "JXLCodec", "TIFFCodec", "Thumbnailer",
                "UploadForms", "UploadPreparation", "ThumbCache", "ThumbServer", "ThumbPipeline", "ThumbVariant", "ThumbdConfig",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/Sources/ThumbdFuzzTargets"
        ),
        .executableTarget(name: "thumbd-fuzz", dependencies: ["ThumbdFuzzTargets"], path: "Fuzz/Sources/thumbd-fuzz"),

        .target(name: "TestSupport", dependencies: ["ChildProcess", "Digests", "ImageCore", "ImageCodecs", "ImageOps", "ThumbCache", "CropScenes"], path: "Tests/TestSupport",
                exclude: ["Scripts"],
                swiftSettings: optimisedInDebug),
        // Writes cache entries until the crash tests SIGKILL it; built with them, found beside the test binary.
        .executableTarget(name: "thumbd-cache-crash-writer", dependencies: ["ThumbCache", "TestSupport"], path: "Tests/CacheCrashWriter"),
        // Stops itself by signal while it starts children and removes its folder, for TerminationTests.
        .executableTarget(name: "thumbd-termination-probe", dependencies: ["ChildProcess"], path: "Tests/TerminationProbe"),
        .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess", "TestSupport", "thumbd-termination-probe"]),
        .testTarget(name: "ThumbCacheTests", dependencies: ["TestSupport", "ThumbCache", "ChildProcess", "thumbd-cache-crash-writer"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "ImageCoreTests", dependencies: ["TestSupport", "ImageCore"]),
        .testTarget(name: "DigestsTests", dependencies: ["Digests", "TestSupport", "ChildProcess"]),
        .testTarget(name: "JPEGCodecTests", dependencies: ["TestSupport", "JPEGCodec", "CJPEGBridge", "ImageCore", "ImageOps", "ImageQuality"]),
        .testTarget(name: "PNGCodecTests", dependencies: ["TestSupport", "PNGCodec", "ImageCore"]),
        .testTarget(name: "WebPCodecTests", dependencies: ["TestSupport", "WebPCodec", "ImageCore"]),
        .testTarget(name: "ColorManagementTests", dependencies: ["TestSupport", "ColorManagement", "ImageCodecs", "ImageCore", "ImageQuality",
                                                                "ChildProcess", "CLCMS2", "Thumbnailer"],
                    exclude: ["Scripts"]),
        .testTarget(name: "AVIFCodecTests", dependencies: ["AVIFCodec", "ChildProcess", "ImageCore", "CAVIF", "TestSupport"]),
        // HEIC files are made in the tests with libheif's heif-enc (libheif-examples), and with
        // libheif's encoder API where heif-enc 1.15 has no option (irot/imir, an ICC profile).
        .testTarget(name: "HEIFCodecTests", dependencies: ["TestSupport", "HEIFCodec", "ImageCodecs", "ImageCore", "ImageQuality", "ImageOps", "CHEIF"]),
        .testTarget(name: "BMPCodecTests", dependencies: ["TestSupport", "BMPCodec", "ImageCore", "ImageQuality"]),
        .testTarget(name: "GIFCodecTests", dependencies: ["TestSupport", "ChildProcess", "GIFCodec", "ImageCore", "ImageQuality"]),
        // djxl (reference decoder) and cjxl from libjxl-tools; python3 with Pillow.
        .testTarget(name: "TIFFCodecTests", dependencies: ["TestSupport", "ChildProcess", "TIFFCodec", "ImageCore", "ImageQuality", "ColorManagement"]),
        .testTarget(name: "JXLCodecTests", dependencies: ["TestSupport", "ChildProcess", "JXLCodec", "CJXL", "ImageCore", "ImageQuality"]),
        .testTarget(name: "ImagePlaceholderTests", dependencies: ["TestSupport", "ChildProcess", "ImagePlaceholder", "ImageCore"], exclude: ["Scripts"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["TestSupport", "ImageCodecs", "ImageCore"]),
        .testTarget(name: "ImageOpsTests", dependencies: ["TestSupport", "ChildProcess", "ImageOps", "ImageCore", "ImageQuality"]),
        .testTarget(name: "UploadPreparationTests", dependencies: ["TestSupport", "UploadPreparation", "UploadForms", "ChildProcess",
                                                                   .product(name: "NIOCore", package: "swift-nio"), "ByteUnits", "ImageCodecs", "ImageCore", "ImageOps", "ImageQuality", "Thumbnailer"],
                    exclude: ["Scripts"]),
        .testTarget(name: "ThumbnailerTests", dependencies: ["TestSupport", "ChildProcess", "Thumbnailer", "ThumbVariant", "ImageCodecs", "ImageQuality", "ImageOps", "ImagePlaceholder", "CropScenes"]),
        // A real HTTP(S) origin on 127.0.0.1 with latency and faults, for the download and server tests;
        // its certificates are made at run time with the openssl command (ChildProcess).
        .target(
            name: "TestOrigin",
            dependencies: [
                "ChildProcess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestOrigin"
        ),
        .testTarget(name: "NetworkGuardTests", dependencies: ["NetworkGuard"]),
        .testTarget(name: "ServiceNotifyTests", dependencies: ["ServiceNotify", "CSystemdNotify"]),
        .testTarget(name: "ThumbVariantTests", dependencies: ["TestSupport", "ThumbVariant", "ThumbCache", "Thumbnailer", "ImageCore"]),
        .testTarget(name: "ThumbdConfigTests", dependencies: ["TestSupport", "ThumbdConfig", "ThumbServer", "ThumbPipeline", "ThumbVariant", "ThumbCache", "NetworkGuard", "Thumbnailer", "ObjectStorage"]),
        // The daemon in the test process (`TestDaemon`) and `thumbd serve` as a child (`ServeProcess`), for
        // the suites of the pipeline, the server, the fleet and the CLI that talk to a running daemon.
        .target(
            name: "DaemonTestSupport",
            dependencies: [
                "TestSupport", "ChildProcess", "ThumbServer", "ThumbPipeline", "ThumbCache", "NetworkGuard", "ImageCodecs", "ImageCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/DaemonTestSupport"
        ),
        // The downloader and the CPU pool alone, and downloads and coalesced jobs through a daemon
        // (origin faults, TLS, DNS, hostile origins).
        .testTarget(name: "ThumbPipelineTests", dependencies: ["TestSupport", "TestOrigin", "DaemonTestSupport", "ThumbPipeline", "ThumbServer", "ThumbVariant", "ThumbCache",
                                                               "NetworkGuard", "ImageCodecs", "ImageCore", "ImageQuality", "ChildProcess", "ObjectStorage"]),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ObjectStorage", "TestSupport", "ChildProcess"]),
        .testTarget(
            name: "ThumbServerTests",
            dependencies: [
                "ObjectStorage",
                "TestSupport", "TestOrigin", "DaemonTestSupport", "ThumbServer", "HeapTuning", "ThumbdConfig", "ThumbPipeline", "ThumbVariant", "ThumbCache", "NetworkGuard", "ImageCodecs", "ImageCore", "ChildProcess", "thumbd", "CSystemdNotify", "ThumbFleet", "ImagePlaceholder", "Thumbnailer", "UploadPreparation", "ImageQuality",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Nodes behind nginx (three `thumbd serve` children) and prefetch through the fleet's entry point.
        .testTarget(
            name: "ThumbFleetTests",
            dependencies: [
                "TestSupport", "TestOrigin", "DaemonTestSupport", "ThumbFleet", "ThumbServer", "ThumbPipeline", "ThumbVariant", "ThumbCache", "ChildProcess", "thumbd",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "ThumbdCLITests", dependencies: ["TestSupport", "TestOrigin", "DaemonTestSupport", "thumbd", "ChildProcess", "ConsoleText", "ImageCodecs", "ImageCore", "ImageQuality", "ThumbCache", "ThumbServer"]),
        // The inputs the fuzz targets found bugs with (TestImages/fuzz-regressions), run through them again.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["ThumbdFuzzTargets", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
