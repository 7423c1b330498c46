internal import COpenSSL
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The OpenSSL library context a thread decodes certificates and public keys in: one per thread, up to
/// ``limit`` (threads beyond it share them in turn), each loading the configuration file the default context loads.
///
/// OpenSSL 3.0 builds a new decoder chain for every public key it decodes, `d2i_X509` included, and looks each
/// decoder up in its library context's method store under read locks, thousands per key. Two threads doing this
/// in the one default context contend on those locks: on the project's host one `d2i_X509` took 85 µs on one
/// thread and 185 µs on each of two, while two threads each in their own context took 85 µs each
/// (BENCHMARKS.md, "Sixteenth session"). A certificate whose chain fails is never cached, so this is what a
/// hostile receipt costs per certificate.
///
/// A certificate keeps the context it was decoded in and checks the signatures on it there (with an issuer's key
/// decoded in another context, an anchor's say, OpenSSL works on a copy of that key it keeps, one per context); a
/// ``PublicKey`` sets up its own checks in its context. So each context loads the configuration file the default
/// context loads (`OPENSSL_CONF`, or OpenSSL's default), with the same flags, and threads keep the default
/// context when that file does not load into a second context (a module that may run once per process, say; the
/// first failure is remembered), or when the default context runs in FIPS mode at the thread's first certificate.
/// What a program sets on the default context in code (providers it loads, default properties) is not copied: a
/// program that configures OpenSSL so should do it through FIPS mode or the configuration file, before its first
/// certificate. This is process-wide state of the library's own, like OpenSSL's: contexts live as long as the
/// process, since cached certificates and keys outlive the thread that decoded them.
enum DecodingContext {
    /// The most contexts made; about one per core that verifies concurrently, with room to spare.
    static let limit = 16

    /// The calling thread's context, made on its first use; `nil` (OpenSSL's default context) when the thread
    /// keeps the default one.
    static var current: OpaquePointer? {
        guard let threadKey else { return nil }
        if let stored = pthread_getspecific(threadKey) {
            return Int(bitPattern: stored) == defaultContextMark ? nil : OpaquePointer(stored)
        }
        let context = EVP_default_properties_is_fips_enabled(nil) == 1 ? nil : context(inSlot: takeSlot())
        // Failing only when out of memory: the thread then asks again next time.
        let stored = context.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: defaultContextMark)
        _ = pthread_setspecific(threadKey, stored)
        return context
    }

    /// Makes the context the next thread without one will be given, ahead of its first use; `nil` in FIPS mode
    /// or when it cannot be made.
    static func prepareNext() -> OpaquePointer? {
        guard EVP_default_properties_is_fips_enabled(nil) != 1 else { return nil }
        return context(inSlot: slot(nextSlot.load(ordering: .relaxed)))
    }

    /// Where each thread keeps its context; `nil` when the process has used up its keys (every thread then keeps
    /// the default context). No destructor: contexts outlive threads.
    private static let threadKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The address a thread that keeps the default context stores (no context lives at address 1).
    private static let defaultContextMark = 1

    /// The slot the next thread without a context takes (any value; reduced by ``slot(_:)``).
    static let nextSlot = Atomic<Int>(0)

    /// Set once the configuration file failed to load into a new context: no further context is attempted.
    private static let configurationFailed = Atomic<Bool>(false)

    /// The contexts made so far, by slot.
    private static let slots = Mutex<[ContextPointer?]>(Array(repeating: nil, count: limit))

    /// An `OSSL_LIB_CTX`. `@unchecked Sendable`: OpenSSL's library contexts are safe to use from any thread.
    private struct ContextPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static func takeSlot() -> Int {
        slot(nextSlot.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// A counter value as a slot, also once the counter has wrapped to negative values.
    private static func slot(_ counter: Int) -> Int {
        Int(UInt(bitPattern: counter) % UInt(limit))
    }

    private static func context(inSlot slot: Int) -> OpaquePointer? {
        slots.withLock { slots in
            if let made = slots[slot] { return made.pointer }
            guard let made = makeContext() else { return nil }
            slots[slot] = ContextPointer(pointer: made)
            return made
        }
    }

    /// A new library context with the default context's configuration file loaded, or `nil` (the caller keeps
    /// the default context) when it cannot be made or the file does not load.
    private static func makeContext() -> OpaquePointer? {
        guard !configurationFailed.load(ordering: .relaxed) else { return nil }
        ERR_set_mark()
        defer { ERR_pop_to_mark() }
        guard let context = OSSL_LIB_CTX_new() else { return nil }
        guard let file = CONF_get1_default_config_file() else { return context }
        defer { receipt_OPENSSL_free(file) }
        // The flags OpenSSL's own initialization loads the default context's file with: the `openssl_conf` section,
        // a missing file leaves the built-in defaults, a module's failure counts only under `config_diagnostics`.
        let flags = UInt(
            CONF_MFLAGS_DEFAULT_SECTION | CONF_MFLAGS_IGNORE_MISSING_FILE | CONF_MFLAGS_IGNORE_RETURN_CODES)
        guard CONF_modules_load_file_ex(context, file, nil, flags) > 0 else {
            configurationFailed.store(true, ordering: .relaxed)
            OSSL_LIB_CTX_free(context)
            return nil
        }
        return context
    }
}
