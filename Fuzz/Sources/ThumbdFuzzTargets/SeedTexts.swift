/// Seeds for the text and structure targets: EXIF TIFFs, upload forms, queries, pages, settings.
enum SeedTexts {
    /// A TIFF header and one IFD holding only Orientation (SHORT).
    static func tiff(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        return order + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
    }

    static var exif: [(name: String, bytes: [UInt8])] {
        (1...8).flatMap { orientation in
            [("ii-\(orientation).tiff", tiff(orientation: orientation, bigEndian: false)),
             ("mm-\(orientation).tiff", tiff(orientation: orientation, bigEndian: true))]
        } + [("prefixed-3.exif", Array("Exif".utf8) + [0, 0] + tiff(orientation: 3, bigEndian: false))]
    }

    static var multipart: [(name: String, bytes: [UInt8])] {
        let image = SeedImages.all.first { $0.name == "opaque.png" }?.bytes ?? Array("not an image".utf8)
        func part(_ boundary: String, _ disposition: String, _ type: String, _ body: [UInt8]) -> [UInt8] {
            Array("--\(boundary)\r\nContent-Disposition: form-data; \(disposition)\r\nContent-Type: \(type)\r\n\r\n".utf8) + body + Array("\r\n".utf8)
        }
        func form(_ header: String, _ boundary: String, _ parts: [[UInt8]]) -> [UInt8] {
            Array("\(header)\n".utf8) + parts.joined() + Array("--\(boundary)--\r\n".utf8)
        }
        let params = part("b0und", "name=\"params\"", "application/json", Array(#"{"title":"Shoe","price":12.5}"#.utf8))
        return [
            ("form-params-image.txt", form("multipart/form-data; boundary=b0und", "b0und",
                                           [params, part("b0und", "name=\"images\"; filename=\"a.png\"", "image/png", image)])),
            ("form-quoted.txt", form("Multipart/Form-Data; boundary=\"q;b=1\"; charset=utf-8", "q;b=1",
                                     [part("q;b=1", "name=\"images[]\"; filename=\"x \\\"y\\\".png\"", "image/png", image),
                                      part("q;b=1", "name=image", "image/png", image)])),
            ("form-empty-part.txt", form("multipart/form-data; boundary=e", "e", [part("e", "name=\"images\"", "image/jpeg", [])])),
        ]
    }

    static let queries = [
        "url=https%3A%2F%2Fimg.example%2Fp%2F1.jpg&size=200&fit=cover&format=auto&q=82\nimage/avif,image/webp,image/*;q=0.8,*/*;q=0.5",
        "url=http://IMG.Example:80/a%20b.png?x=1&size=64&fit=contain&format=webp\nimage/webp;q=0, image/avif",
        "url=https://user:pw@[::1]:8443/p.jpg#frag&size=1&format=png&q=100&sig=00ff",
        "url=HTTPS://shop.example:443?only=query&format=avif&size=2048\n*/*",
        "https://Host.Example:0443/path/../a.jpg?q=1#f",
        "200/cover/jpeg/q82",
    ]

    static let pages = [
        #"{"page_no":1,"pages":[{"thumbnail":"https://img.example/1.jpg","images":[{"url":"https://img.example/1b.jpg"},{"alt":"x"}]},{"images":[]}],"has_next":true}"#,
        #"{"page_no":7,"pages":[{"thumbnail":null,"images":[{"url":5}]}],"has_next":false,"include_images":true,"size":120}"#,
        #"{"pages":[],"has_next":"yes"}"#,
    ]

    static let configs = [
        """
        server:
          listen: "[::1]:8081"
          max_url_length: 4096
          access_log_format: json
          drain_grace: 2.5
        thumbnail:
          size: 320
          decode_headroom: 1.5
        decode:
          max_megapixels: 12.5
        download:
          allow_networks: 127.0.0.0/8, ::1/128, 10.0.0.0/8
          allow_hosts: img.example, *.cdn.example
          max_bytes: 1_000_000
        uploads:
          budget: 300KiB
          max_request_bytes: 20MB
          format: webp
        fleet:
          entry: http://127.0.0.1:8080
          nodes: http://10.0.0.1:8080,http://10.0.0.2:8080
        cache:
          memory_only: yes
          fsync: always
          ttl: 86400
        """,
        "server: {listen: ':80', log_level: debug}\nprefetch: {max_pages: 3}\n",
    ]
}
