import Foundation

/// A marketplace product-list page as its API sends it:
/// `{"page_no":1,"pages":[{"thumbnail":"…","images":[{"url":"…"}]},…],"has_next":true}`.
/// Entries are read leniently: a product without a usable thumbnail becomes a listed failure, not
/// a refusal of the whole page.
public struct ProductListPage: Sendable, Decodable {
    public struct Product: Sendable, Decodable {
        public var thumbnail: String?
        public var images: [String?]

        enum CodingKeys: String, CodingKey { case thumbnail, images }
        struct Image: Decodable {
            var url: String?
            init(from decoder: any Decoder) throws {
                url = try? decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .url)
            }
            enum CodingKeys: String, CodingKey { case url }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            thumbnail = try? container.decode(String.self, forKey: .thumbnail)
            images = ((try? container.decode([Image].self, forKey: .images)) ?? []).map(\.url)
        }
    }

    public var pageNumber: Int?
    public var products: [Product]
    public var hasNext: Bool

    enum CodingKeys: String, CodingKey {
        case pageNumber = "page_no", products = "pages", hasNext = "has_next"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pageNumber = try? container.decode(Int.self, forKey: .pageNumber)
        products = try container.decode([Product].self, forKey: .products)
        hasNext = (try? container.decode(Bool.self, forKey: .hasNext)) ?? false
    }

    /// What to prefetch from this page: each product's thumbnail, and with `includeImages` its
    /// detail images too. A missing one is an item that fails with `missing_url`.
    public func items(includeImages: Bool) -> [PrefetchItem] {
        var items: [PrefetchItem] = []
        for (index, product) in products.enumerated() {
            let label = "page \(pageNumber.map(String.init) ?? "?") product \(index + 1)"
            items.append(product.thumbnail.map(PrefetchItem.url) ?? .missing("\(label): no thumbnail"))
            if includeImages {
                for (imageIndex, url) in product.images.enumerated() {
                    items.append(url.map(PrefetchItem.url) ?? .missing("\(label) image \(imageIndex + 1): no url"))
                }
            }
        }
        return items
    }

    /// The URL of the page after this one: `page_no` set to this page's number plus one in `url`'s query.
    public static func nextPageURL(_ url: String, after pageNumber: Int) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        var query = (components.queryItems ?? []).filter { $0.name != "page_no" }
        query.append(URLQueryItem(name: "page_no", value: String(pageNumber + 1)))
        components.queryItems = query
        return components.string
    }
}

/// One thing a prefetch job makes: a URL, or an entry of a page that had none.
public enum PrefetchItem: Sendable, Hashable {
    case url(String)
    case missing(String)
}
