import Foundation
@_spi(Testing) import ThumbCache
import Testing

/// What opening a directory says of how the previous owner left it: a new directory is created,
/// not repaired, so an operator's first start does not read like a crash.
@Suite("Disk cache startup kind")
struct StartupKindTests {
    @Test("a new directory is created; closed and opened again it is clean; an existing one left open is a crash")
    func newThenCleanThenCrash() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let first = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: { _ in })
        #expect(first.startup.kind == .created)
        try first.store(DiskTest.key(1), DiskTest.bytes(3000), validators: CacheValidators(), contentType: "image/jpeg")
        first.close()

        let second = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: { _ in })
        #expect(second.startup.kind == .clean)
        #expect(second.usage.thumbnails.entries == 1)
        second.close()

        // Without the clean marker the previous owner did not close it: never "created" again,
        // even though the machine's boot is unchanged.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("clean-shutdown"))
        let third = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: { _ in })
        #expect(third.startup.kind != .created && third.startup.kind != .clean, "\(third.startup.kind)")
        #expect(third.usage.thumbnails.entries == 1)
        third.close()
    }

    @Test("a directory with no index and no files, but an owner's boot id, is not new: its owner died")
    func ownerTraceIsNotNew() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let first = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: { _ in })
        first.close()
        try FileManager.default.removeItem(at: dir.appendingPathComponent("clean-shutdown"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("index.sqlite"))
        try Data("00000000-0000-0000-0000-000000000000\n".utf8).write(to: dir.appendingPathComponent("owner-boot"))
        let second = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: { _ in })
        #expect(second.startup.kind == .crash)
        second.close()
    }
}
