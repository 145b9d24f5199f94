import Foundation
import HushFuzzTargets

/// The target this process fuzzes, from HUSH_FUZZ_TARGET (read once).
private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["HUSH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("HUSH_FUZZ_TARGET must name one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target.run(input)
    return 0
}
