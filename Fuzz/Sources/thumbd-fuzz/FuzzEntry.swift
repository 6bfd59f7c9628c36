import Foundation
import ThumbdFuzzTargets

// libFuzzer's entry points (`make fuzz-build` links libFuzzer, whose `main` calls them). Everything
// past the copy of the input into an array is safe Swift.

/// Called by libFuzzer before it reads its flags: takes `--list`, `--seeds` and a leading target
/// name out of the arguments, so `thumbd-fuzz jpeg -max_len=4096 corpus/` works.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let vector = argv.pointee else { return 0 }
    let count = Int(argc.pointee)
    let arguments = (1..<max(1, count)).map { vector[$0].map { String(cString: $0) } ?? "" }
    let kept = Commands.prepare(arguments)
    if kept.count < arguments.count {
        // The target name was the first argument: shift the rest down over it.
        for index in 1..<count - 1 { vector[index] = vector[index + 1] }
        vector[count - 1] = nil
        argc.pointee -= 1
    }
    return 0
}

/// One input for the target `THUMBD_FUZZ_TARGET` names.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = FuzzTarget.active else { fatalError("no fuzz target: set \(FuzzTarget.environmentVariable)") }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.run(bytes)
    } catch {
        // A broken promise stops libFuzzer as a crash does, so it writes the input out.
        fatalError(error.description)
    }
    return 0
}
