import Digests
import Foundation
import Hummingbird

/// Admin routes need `Authorization: Bearer <token>`; with no token configured they are off.
struct AdminGuard: Sendable {
    let token: String?

    func check(_ request: Request) throws {
        guard let token else {
            throw Problem(.forbidden, code: "admin_disabled",
                          detail: "admin routes are off; set server.admin_token (or THUMBD_ADMIN_TOKEN) to turn them on")
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw Problem(.unauthorized, code: "unauthorized", detail: "this route needs Authorization: Bearer <admin token>")
        }
        // Compare digests so the comparison's time says nothing about the token.
        let given = SHA256Digest(of: String(header.dropFirst("Bearer ".count)))
        let expected = SHA256Digest(of: token)
        guard given.matchesInConstantTime(expected) else {
            throw Problem(.unauthorized, code: "unauthorized", detail: "the admin token does not match")
        }
    }
}
