// swift-tools-version: 6.1
//
// The libFuzzer driver for Hush's parsers (see Sources/HushFuzzTargets). A
// package of its own so that the main build never links a fuzzer entry
// point. Built by `make fuzz` with:
//   swift build --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// and run as `HUSH_FUZZ_TARGET=content .build/debug/HushFuzz Corpus/content`.
import PackageDescription

let package = Package(
    name: "HushFuzz",
    dependencies: [.package(name: "Hush", path: "..")],
    targets: [
        .executableTarget(
            name: "HushFuzz",
            dependencies: [.product(name: "HushFuzzTargets", package: "Hush")]
        ),
    ]
)
