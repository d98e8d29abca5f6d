//! Helpers JIT code calls for numbers: float remainder, min, max, signum and `powi` (std's own), and integer
//! `pow` with its overflow check.

pub(crate) extern "C" fn helper_powi_f64(a: f64, n: i32) -> f64 {
    a.powi(n)
}
pub(crate) extern "C" fn helper_powi_f32(a: f32, n: i32) -> f32 {
    a.powi(n)
}
pub(crate) extern "C" fn helper_fmod_f64(a: f64, b: f64) -> f64 {
    a % b
}
pub(crate) extern "C" fn helper_fmod_f32(a: f32, b: f32) -> f32 {
    a % b
}
pub(crate) extern "C" fn helper_fmin_f64(a: f64, b: f64) -> f64 {
    a.min(b)
}
pub(crate) extern "C" fn helper_fmax_f64(a: f64, b: f64) -> f64 {
    a.max(b)
}
pub(crate) extern "C" fn helper_fmin_f32(a: f32, b: f32) -> f32 {
    a.min(b)
}
pub(crate) extern "C" fn helper_fmax_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}
pub(crate) extern "C" fn helper_signum_f64(a: f64) -> f64 {
    a.signum()
}
pub(crate) extern "C" fn helper_signum_f32(a: f32) -> f32 {
    a.signum()
}
/// `base.pow(exp)` for an integer of `bits` bits (signed or not), in i128: the result and whether it overflowed.
pub(crate) extern "C" fn helper_pow(base: i64, exp: u32, bits: u32, signed: u32, overflow: *mut u8) -> i64 {
    let (min, max): (i128, i128) =
        if signed != 0 { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    let base = if signed != 0 { base as i128 } else { (base as u64 as i128) & max };
    // Exponentiation by squaring in i128: if even i128 overflows, so does any 64-bit-or-narrower type.
    let (acc, over) = match base.checked_pow(exp) {
        Some(v) if v >= min && v <= max => (v, false),
        _ => (0, true),
    };
    // SAFETY: generated code passes a pointer to a stack slot of one byte.
    unsafe { *overflow = over as u8 };
    acc as i64
}
