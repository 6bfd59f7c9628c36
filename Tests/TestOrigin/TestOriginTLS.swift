import NIOSSL

/// The certificate and key an HTTPS test origin presents, as PEM files (see `TestCertificates`).
public struct TestOriginTLS: Sendable {
    /// The leaf certificate first, then any intermediates.
    public let certificateChainFile: String
    public let privateKeyFile: String

    public init(certificateChainFile: String, privateKeyFile: String) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }

    func makeContext() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.file(certificateChainFile)],
                                                                     privateKey: .file(privateKeyFile))
        return try NIOSSLContext(configuration: configuration)
    }
}
