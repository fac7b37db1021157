// Rounding to a fixed number of decimals, bit for bit as `Double.rounded()` does it
// (DecimalRoundingTests). Two users: the wire, where every number a message carries is rounded to
// its field's decimals so the JSON stays short and the same on every platform (HandyWire's table,
// the daemon's health fields); and the core's decisions that are made on a grid (a classifier's
// confidence on the 0.001 grid its threshold compares against, the covered region's corners told
// apart on theirs). Arithmetic, not a wire shape: it lives with the core, which the wire's modules
// all use, so the core imports the wire module for the shared enums only.

/// `rounded(v, d)` with `scale` = 10^d, the rounding done in a few inline instructions instead of
/// a call to libm's `round` (which `Double.rounded()` is, without SSE4.1: the baseline x86-64 the
/// package builds for). Bit for bit the same (DecimalRoundingTests); `decimalRounded` rounds the same way.
/// `@inlinable`: inlined across the module boundary (HandyWire, the daemon).
@inlinable @inline(__always) package func inlineRounded(_ v: Double, _ scale: Double) -> Double {
    nearestOrAwayFromZero(v * scale) / scale
}

/// `v.rounded()` (to the nearest integer, a tie away from zero), bit for bit.
@inlinable @inline(__always) package func nearestOrAwayFromZero(_ v: Double) -> Double {
    let a = v.magnitude
    // From 2^52 on every double is whole; NaN fails the test and comes back as it is.
    guard a < 0x1p52 else { return v }
    // Adding 2^52 leaves a spacing of 1: the sum is rounded to the nearest integer, a tie to even
    // (2^52 is even, so as `a` itself would be). No fast-math, so the compiler keeps both steps.
    var r = (a + 0x1p52) - 0x1p52
    // `a - r` is exact (`r` is 0, or within a factor 2 of `a`): a tie that went down to even goes
    // up, away from zero, instead.
    if a - r == 0.5 { r += 1 }
    // The sign of `v`: -0.3 gives -0.0 as `rounded()` does (and the wire writes "-0").
    return Double(signOf: v, magnitudeOf: r)
}

/// Rounds to `digits` decimals so the JSON stays short and stable across platforms.
@inlinable @inline(__always) package func rounded(_ v: Double, _ digits: Int) -> Double {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    return (v * p).rounded() / p
}

/// `rounded(_:_:)` for the hot paths (the wire's fields, the classifiers): the same result (10^digits is exact), no loop,
/// no call into libm (`inlineRounded`).
@inlinable @inline(__always) package func decimalRounded(_ v: Double, _ digits: Int) -> Double {
    let p: Double
    switch digits {
    case 1: p = 10
    case 2: p = 100
    case 3: p = 1_000
    case 4: p = 10_000
    case 5: p = 100_000
    default: return rounded(v, digits)
    }
    return inlineRounded(v, p)
}
