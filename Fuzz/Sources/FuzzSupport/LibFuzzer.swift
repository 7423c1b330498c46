internal import CLibFuzzer

/// The bridge between a fuzz target's executable and libFuzzer.
///
/// SwiftPM links every executable with `main` renamed to `<module>_main` (so tests can link it); libFuzzer's
/// own `main` is then never called. Each target therefore defines `<module>_main` with `@_cdecl` and calls
/// ``run(argc:argv:testOneInput:)``, which hands the process arguments to libFuzzer's driver.
public enum LibFuzzer {
    /// The signature of `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer with the process arguments (`-max_total_time=…`, corpus folders, …) and returns its
    /// exit code: 0 when the run ended without a finding.
    public static func run(
        argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, testOneInput: TestOneInput
    ) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
    }

    /// One input as an array. libFuzzer's buffer is only valid during the call; the copy also gives
    /// AddressSanitizer an allocation of exactly the input's size, so a read one byte past it is reported.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
