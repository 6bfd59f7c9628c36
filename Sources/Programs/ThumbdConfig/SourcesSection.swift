import Foundation
import ObjectStorage
import Yams

/// `sources.s3`: where `s3://` photos are fetched from. The defaults are keys like any other
/// (`sources.s3.endpoint`, or THUMBD_SOURCES_S3_ENDPOINT); what they leave unset comes from the
/// variables every AWS tool reads (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
/// AWS_REGION, AWS_ENDPOINT_URL_S3). Buckets are a map in the file only (`sources.s3.buckets.NAME`),
/// since the layered reader cannot list a map's names: the buckets `s3://` URLs may read, each with
/// what it sets differently (`photos: {}` when nothing); `sources.s3.any_bucket` opens every bucket.
enum SourcesSection {
    static let fields = ["region", "endpoint", "path_style", "access_key_id", "secret_access_key", "session_token"]

    static func read(_ s: SettingReader, file: String?, environment: [String: String]) throws -> S3Settings {
        var settings: S3Settings
        do { settings = try S3Settings.fromEnvironment(environment) } catch { throw ConfigError(error.message) }
        let own = try bucketSettings(name: "sources.s3", value: { s.string("sources.s3.\($0)") }, pathStyle: {
            try s.bool("sources.s3.path_style", default: false)
        })
        if let region = own.region { settings.region = region }
        if let endpoint = own.endpoint { settings.endpoint = endpoint }
        settings.pathStyle = own.pathStyle
        if let credentials = own.credentials { settings.credentials = credentials }
        settings.buckets = try buckets(file: file)
        settings.anyBucket = try s.bool("sources.s3.any_bucket", default: false)
        return settings
    }

    /// One level's fields: the defaults' (through the layered reader) or a bucket's (from the file).
    private static func bucketSettings(name: String, value: (String) -> String?, pathStyle: () throws -> Bool) throws -> S3BucketSettings {
        var settings = S3BucketSettings()
        settings.region = value("region")
        if let text = value("endpoint") {
            do { settings.endpoint = try S3Endpoint(text) } catch {
                throw ConfigError("setting \(name).endpoint is \"\(text)\"; it must be the object store's http(s)://HOST[:PORT]")
            }
        }
        if value("path_style") != nil { settings.pathStyle = try pathStyle() }
        switch (value("access_key_id"), value("secret_access_key")) {
        case (let id?, let secret?):
            settings.credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("session_token"))
        case (nil, nil):
            if value("session_token") != nil { throw ConfigError("\(name).session_token needs access_key_id and secret_access_key beside it") }
        default:
            throw ConfigError("\(name).access_key_id and \(name).secret_access_key go together: one of them is set without the other")
        }
        return settings
    }

    private static func buckets(file: String?) throws -> [String: S3BucketSettings] {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [:] }
        let document: Any?
        do { document = try Yams.load(yaml: text) } catch { throw ConfigError("cannot read the configuration file \(file): \(error)") }
        let s3 = ((document as? [String: Any])?["sources"] as? [String: Any])?["s3"] as? [String: Any]
        guard let section = s3?["buckets"], !(section is NSNull) else { return [:] }
        guard let buckets = section as? [String: Any] else {
            throw ConfigError("sources.s3.buckets must be a map of bucket names to settings, like buckets: { photos-eu: { region: eu-west-1 } }")
        }
        var result: [String: S3BucketSettings] = [:]
        for (bucket, body) in buckets {
            let name = "sources.s3.buckets.\(bucket)"
            do { _ = try S3Location("s3://\(bucket)/k") } catch { throw ConfigError("\(name): \(error.message)") }
            // `photos: {}` or `photos:` lists a bucket that needs nothing of its own.
            guard let fields = body is NSNull ? [:] : body as? [String: Any] else {
                throw ConfigError("\(name) must be a map of \(Self.fields.joined(separator: ", ")) (or {} when the defaults suit it)")
            }
            if let unknown = fields.keys.first(where: { !Self.fields.contains($0) }) {
                throw ConfigError("\(name) has an unknown key \"\(unknown)\"; the keys are \(Self.fields.joined(separator: ", "))")
            }
            result[bucket] = try bucketSettings(name: name, value: { fields[$0].map { "\($0)" }.flatMap { $0.isEmpty ? nil : $0 } }, pathStyle: {
                switch "\(fields["path_style"]!)".lowercased() {
                case "true", "yes", "on", "1": return true
                case "false", "no", "off", "0": return false
                default: throw ConfigError("\(name).path_style must be true or false")
                }
            })
        }
        return result
    }
}
