import Foundation
import ThumbCache
import Testing

@Suite("Disk cache location")
struct DiskLocationTests {
    @Test func precedence() {
        let all = ["THUMBD_CACHE_DIR": "/env/cache", "XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"]
        #expect(CacheLocation.resolution(explicit: "/flag", configured: "/conf", environment: all) == (URL(fileURLWithPath: "/flag", isDirectory: true), .explicit))
        #expect(CacheLocation.resolution(configured: "/conf", environment: all).source == .environment)
        #expect(CacheLocation.resolve(configured: "/conf", environment: all).path == "/env/cache")
        #expect(CacheLocation.resolve(configured: "/conf", environment: ["XDG_CACHE_HOME": "/xdg"]).path == "/conf")
        #expect(CacheLocation.resolve(environment: ["XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"]).path == "/xdg/thumbd")
        #expect(CacheLocation.resolve(environment: ["HOME": "/home/u"]).path == "/home/u/.cache/thumbd")
        #expect(CacheLocation.resolution(environment: ["HOME": "/home/u"]).source == .home)
    }

    @Test func tildeRelativeAndIgnoredValues() {
        let env = ["HOME": "/home/u", "XDG_CACHE_HOME": "relative/xdg", "THUMBD_CACHE_DIR": ""]
        // A relative XDG_CACHE_HOME is invalid per the spec; an empty THUMBD_CACHE_DIR counts as unset.
        #expect(CacheLocation.resolve(environment: env).path == "/home/u/.cache/thumbd")
        #expect(CacheLocation.resolve(explicit: "~/thumbs", environment: env).path == "/home/u/thumbs")
        #expect(CacheLocation.resolve(explicit: "~", environment: env).path == "/home/u")
        let relative = CacheLocation.resolve(explicit: "cache-here", environment: env)
        #expect(relative.path == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("cache-here").standardizedFileURL.path)
        #expect(CacheLocation.resolve(explicit: "/a/b/../c/", environment: env).path == "/a/c")
    }

    @Test func withoutHomeThePasswordDatabaseIsUsed() {
        let url = CacheLocation.resolve(environment: [:])
        #expect(url.path.hasSuffix("/.cache/thumbd"))
        #expect(url.path.hasPrefix("/"))
    }
}
