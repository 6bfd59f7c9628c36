import ThumbCache
import ThumbVariant

extension ThumbnailPipeline {
    /// `picture` made in the failed request's variant (same shape, format and size): from the cache
    /// when it was made before, else made now on the CPU pool and cached under the picture's own
    /// key. Not written to the shared tier: every node has the file.
    public func fallback(_ picture: FallbackPicture, for failed: KeyedVariant, priority: WorkPriority) async throws -> PipelineResult {
        let key = picture.key(for: failed.key)
        if let hit = cache.get(key), !hit.isStale { return PipelineResult(hit) }
        let body = OriginBody(bytes: picture.bytes, contentType: nil, validators: CacheValidators(), finalURL: picture.path)
        return try await process(key, priority: PriorityCell(priority), variant: failed.variant, source: body, keepOriginal: false, sharing: false)
    }
}
