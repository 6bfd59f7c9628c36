import Testing
import ThumbCache

struct UnkeyedQueryTests {
    @Test func signatureParametersLeaveTheKey() throws {
        let presigned = try NormalizedURL("https://b.s3.amazonaws.com/p/1.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&x-amz-credential=A%2F1&X-Amz-Date=1"
                                          + "&X-Amz-Expires=600&X-Amz-SignedHeaders=host&X-Amz-Signature=abc")
        #expect(UnkeyedQuery.defaults.keyed(presigned)?.value == "https://b.s3.amazonaws.com/p/1.jpg#signed")
        // No URL a client sends can name that key: its fragment is dropped.
        #expect(try NormalizedURL("https://b.s3.amazonaws.com/p/1.jpg#signed").value == "https://b.s3.amazonaws.com/p/1.jpg")
        let mixed = try NormalizedURL("https://storage.googleapis.com/b/o.jpg?w=1&X-Goog-Signature=x&v=2&GoogleAccessId=a&Expires=9")
        #expect(UnkeyedQuery.defaults.keyed(mixed)?.value == "https://storage.googleapis.com/b/o.jpg?w=1&v=2#signed")
        // Shown to a client without the mark: the object's URL, no signature.
        #expect(UnkeyedQuery.defaults.keyed(mixed)?.shown == "https://storage.googleapis.com/b/o.jpg?w=1&v=2")
        #expect(mixed.shown == mixed.value)
        let encodedName = try NormalizedURL("https://h/p?X%2DAmz%2DSignature=1&a=b")
        #expect(UnkeyedQuery.defaults.keyed(encodedName)?.value == "https://h/p?a=b#signed")
        #expect(UnkeyedQuery.defaults.keyed(try NormalizedURL("https://h/p?size=2&signatures=1")) == nil)
        #expect(UnkeyedQuery.defaults.keyed(try NormalizedURL("https://h/p")) == nil)
        #expect(UnkeyedQuery.none.keyed(presigned) == nil)
    }

    @Test func theListIsChecked() throws {
        #expect(try UnkeyedQuery(list: " token, X-Sig-* ,").patterns == ["token", "X-Sig-*"])
        #expect(throws: CacheKeyError.self) { try UnkeyedQuery(list: "a b") }
        #expect(throws: CacheKeyError.self) { try UnkeyedQuery(list: "*") }
        #expect(throws: CacheKeyError.self) { try UnkeyedQuery(list: "x*y") }
        let custom = try UnkeyedQuery(list: "token")
        #expect(custom.keyed(try NormalizedURL("https://h/p?Token=1&a=2"))?.value == "https://h/p?a=2#signed")
    }
}
