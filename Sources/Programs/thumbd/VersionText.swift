import BuildInfo
import ImageCodecs
import ThumbCache

/// `thumbd --version`: what was built, from which commit, and the libraries it runs with, so a bug
/// report names everything that decides how an image is read.
enum VersionText {
    static var text: String {
        let codecs = ImageCodecs.libraryVersions
        return """
            thumbd \(BuildInfo.version) (commit \(BuildInfo.commit ?? "unknown"), built \(BuildInfo.buildDate))
            libjpeg-turbo \(codecs.libjpegTurbo), libpng \(codecs.libpng), libwebp \(codecs.libwebp), libavif \(codecs.libavif), libheif \(codecs.libheif), giflib \(codecs.giflib), libtiff \(codecs.libtiff), libjxl \(codecs.libjxl), lcms2 \(codecs.lcms2), SQLite \(DiskCache.sqliteVersion)
            swift \(BuildInfo.compilerVersion)
            """
    }
}
