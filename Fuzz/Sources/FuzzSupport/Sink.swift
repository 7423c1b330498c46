/// Keeps a fuzz target's results observable, so the optimizer cannot drop the work that produced them.
public enum Sink {
    /// Takes any value and does nothing with it, in a way the optimizer cannot see through.
    @inline(never)
    @_optimize(none)
    public static func consume<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
