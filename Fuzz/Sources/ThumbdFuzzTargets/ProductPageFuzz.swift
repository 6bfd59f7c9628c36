import Foundation
import ThumbPipeline

/// A product-list page, read as `POST /v1/prefetch` reads its body and as a prefetch job reads each
/// page it downloads: its items, and the next page's URL when it says there is one.
enum ProductPageFuzz {
    static let pageURL = "https://shop.example/api/products?category=shoes&page_no=1"

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let body = Data(data)
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            _ = object["pages"] is [Any]
        }
        guard let page = try? JSONDecoder().decode(ProductListPage.self, from: body) else { return }
        let items = page.items(includeImages: true)
        try FuzzSupport.require(items.count >= page.products.count, "fewer items than products")
        if page.hasNext {
            // The prefetcher counts pages fetched (1 here) when the page has no number.
            _ = ProductListPage.nextPageURL(pageURL, after: page.pageNumber ?? 1)
        }
    }
}
