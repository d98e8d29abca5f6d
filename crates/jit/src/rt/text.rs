//! Helpers JIT code calls for text: formatting one argument as `format!` would (std's own formatting for the
//! digits, the spec's padding applied as `Formatter` applies it), appending to a `String` the snippet owns,
//! comparing, printing through the host.

use lacuna_ir::{CharMethod, FmtTrait, Scalar};

use crate::abi::{
    Fault, FindMode, JitContext, PiecesMode, RawSpec, TransformOp, TrimMode, KIND_BOOL, KIND_CHAR, KIND_FLOAT,
    KIND_SEQ, KIND_SIGNED, KIND_STR, KIND_STRING, KIND_UNSIGNED,
};
use crate::rt::heap::Heap;

/// `{:?}` of the `n` elements at `data` ([`KIND_SEQ`]; `layout` is `kind >> 8`): `[a, b, c]`, each element as
/// its own `Debug` writes it.
///
/// # Safety
/// `data` holds `n` initialized elements of the kind `layout` names, each text's bytes readable UTF-8.
unsafe fn format_seq(layout: u32, data: u64, n: u64) -> Option<String> {
    let element = layout & 0xffff;
    let (base, bits) = (element & 0xff, element >> 8);
    let (stride, ptr_at, len_at) = match base {
        KIND_STR => (16, 0, 8),
        KIND_STRING => (24, u64::from((layout >> 16) & 3) * 8, u64::from((layout >> 18) & 3) * 8),
        KIND_BOOL => (1, 0, 0),
        KIND_CHAR => (4, 0, 0),
        KIND_SIGNED | KIND_UNSIGNED | KIND_FLOAT if matches!(bits, 8 | 16 | 32 | 64) => (u64::from(bits / 8), 0, 0),
        _ => return None,
    };
    let debug = RawSpec::new(&lacuna_ir::FmtSpec { trait_: FmtTrait::Debug, ..Default::default() });
    let mut out = String::from("[");
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        let at = data + stride * i;
        let word = |offset: u64, size: u64| -> u64 {
            let mut bytes = [0u8; 8];
            // SAFETY: as the caller guarantees: element `i` is `stride` bytes at `at`, `size` of them at `offset`.
            unsafe { std::ptr::copy_nonoverlapping((at + offset) as *const u8, bytes.as_mut_ptr(), size as usize) };
            u64::from_le_bytes(bytes)
        };
        let one = match base {
            KIND_STR | KIND_STRING => format_one(KIND_STR, word(ptr_at, 8), word(len_at, 8), &debug)?,
            KIND_SIGNED => {
                // Sign-extended from its width, as generated code passes a signed value.
                let shift = 64 - bits;
                let v = ((word(0, stride) << shift) as i64 >> shift) as u64;
                format_one(element, v, 0, &debug)?
            }
            _ => format_one(element, word(0, stride), 0, &debug)?,
        };
        out.push_str(&one);
    }
    out.push(']');
    Some(out)
}

/// The formatted argument, as `format!` with this spec writes it (`None`: a combination the lowering does not
/// admit).
fn format_one(kind: u32, a: u64, b: u64, spec: &RawSpec) -> Option<String> {
    let bits = kind >> 8;
    let precision = (spec.precision != u64::MAX).then_some(spec.precision as usize);
    let plus = spec.plus != 0;
    let alt = spec.alternate != 0;
    match kind & 0xff {
        KIND_STR => {
            // SAFETY: generated code passes the pointer and length of text (a literal, a binding, a `String`).
            let text = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(a as *const u8, b as usize)) };
            match spec.trait_ {
                // `Debug` for `str` writes the quoted text and ignores width and precision.
                FmtTrait::Debug => Some(format!("{text:?}")),
                _ => Some(pad(truncate(text, precision), spec, '<')),
            }
        }
        KIND_CHAR => {
            let c = char::from_u32(a as u32)?;
            match spec.trait_ {
                FmtTrait::Debug => Some(format!("{c:?}")),
                _ => Some(pad(truncate(c.encode_utf8(&mut [0; 4]), precision), spec, '<')),
            }
        }
        KIND_BOOL => Some(pad(truncate(if a != 0 { "true" } else { "false" }, precision), spec, '<')),
        KIND_SIGNED | KIND_UNSIGNED => {
            let signed = kind & 0xff == KIND_SIGNED;
            let value = a as i64;
            // The bits of the value in its own width (hex, binary and octal print those).
            let raw = if bits >= 64 { a } else { a & ((1u64 << bits) - 1) };
            let magnitude = if signed { value.unsigned_abs() } else { a };
            let negative = signed && value < 0;
            let (prefix, digits) = match spec.trait_ {
                FmtTrait::Display | FmtTrait::Debug => ("", magnitude.to_string()),
                FmtTrait::LowerHex => ("0x", format!("{raw:x}")),
                FmtTrait::UpperHex => ("0x", format!("{raw:X}")),
                FmtTrait::Binary => ("0b", format!("{raw:b}")),
                FmtTrait::Octal => ("0o", format!("{raw:o}")),
                FmtTrait::LowerExp | FmtTrait::UpperExp => {
                    let e = match precision {
                        Some(p) => format!("{magnitude:.p$e}"),
                        None => format!("{magnitude:e}"),
                    };
                    let e = if spec.trait_ == FmtTrait::UpperExp { e.to_uppercase() } else { e };
                    return Some(pad_number(negative, plus, "", &e, spec));
                }
            };
            let negative = negative && matches!(spec.trait_, FmtTrait::Display | FmtTrait::Debug);
            Some(pad_number(negative, plus, if alt { prefix } else { "" }, &digits, spec))
        }
        KIND_FLOAT => {
            let (x, negative) = if bits == 32 {
                let x = f32::from_bits(a as u32);
                (x as f64, x.is_sign_negative() && !x.is_nan())
            } else {
                let x = f64::from_bits(a);
                (x, x.is_sign_negative() && !x.is_nan())
            };
            // The digits of the magnitude as std writes them for this width (f32 prints its own shortest digits).
            let body = |v: f64| -> String {
                let v = v.abs();
                match (bits == 32, spec.trait_, precision) {
                    (true, FmtTrait::Debug, None) => format!("{:?}", v as f32),
                    (true, FmtTrait::Debug, Some(p)) => format!("{:.p$?}", v as f32),
                    (true, FmtTrait::LowerExp, None) => format!("{:e}", v as f32),
                    (true, FmtTrait::LowerExp, Some(p)) => format!("{:.p$e}", v as f32),
                    (true, FmtTrait::UpperExp, None) => format!("{:E}", v as f32),
                    (true, FmtTrait::UpperExp, Some(p)) => format!("{:.p$E}", v as f32),
                    (true, _, None) => format!("{}", v as f32),
                    (true, _, Some(p)) => format!("{:.p$}", v as f32),
                    (false, FmtTrait::Debug, None) => format!("{v:?}"),
                    (false, FmtTrait::Debug, Some(p)) => format!("{v:.p$?}"),
                    (false, FmtTrait::LowerExp, None) => format!("{v:e}"),
                    (false, FmtTrait::LowerExp, Some(p)) => format!("{v:.p$e}"),
                    (false, FmtTrait::UpperExp, None) => format!("{v:E}"),
                    (false, FmtTrait::UpperExp, Some(p)) => format!("{v:.p$E}"),
                    (false, _, None) => format!("{v}"),
                    (false, _, Some(p)) => format!("{v:.p$}"),
                }
            };
            if matches!(spec.trait_, FmtTrait::LowerHex | FmtTrait::UpperHex | FmtTrait::Binary | FmtTrait::Octal) {
                return None;
            }
            Some(pad_number(negative, plus && !x.is_nan(), "", &body(x), spec))
        }
        _ => None,
    }
}

/// At most `precision` chars of `text`.
fn truncate(text: &str, precision: Option<usize>) -> &str {
    match precision.and_then(|p| text.char_indices().nth(p)) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `Formatter::pad`: `text` in `width` chars, aligned (by default `default`) with the fill char.
fn pad(text: &str, spec: &RawSpec, default: char) -> String {
    let width = if spec.width == u64::MAX { 0 } else { spec.width as usize };
    let len = text.chars().count();
    if len >= width {
        return text.to_owned();
    }
    let fill = char::from_u32(spec.fill).unwrap_or(' ');
    let align = if spec.align == 0 { default } else { spec.align as char };
    let gap = width - len;
    let (before, after) = match align {
        '<' => (0, gap),
        '^' => (gap / 2, gap - gap / 2),
        _ => (gap, 0),
    };
    let mut out = String::with_capacity(text.len() + gap);
    out.extend(std::iter::repeat_n(fill, before));
    out.push_str(text);
    out.extend(std::iter::repeat_n(fill, after));
    out
}

/// `Formatter::pad_integral` (and the float equivalent): the sign, a prefix, the digits; `0` pads with zeros
/// after the sign and prefix, otherwise the whole is padded (right-aligned by default).
fn pad_number(negative: bool, plus: bool, prefix: &str, digits: &str, spec: &RawSpec) -> String {
    let sign = if negative {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    };
    let width = if spec.width == u64::MAX { 0 } else { spec.width as usize };
    let len = sign.len() + prefix.len() + digits.chars().count();
    if spec.zero != 0 && len < width {
        let zeros = "0".repeat(width - len);
        return format!("{sign}{prefix}{zeros}{digits}");
    }
    pad(&format!("{sign}{prefix}{digits}"), spec, '>')
}

/// A `String` being changed, at a stack slot of the generated code: (pointer, capacity, length, owned) — owned
/// 1 for the snippet's own, 0 for a host `String` (which grows through the same allocator and stays the host's).
pub type TextSlot = [usize; 4];

/// Appends `bytes` to the `String` at `text`, growing it as `String` does.
///
/// # Safety
/// `text` is a live slot; `bytes` are readable.
unsafe fn append(ctx: &mut JitContext, text: *mut TextSlot, bytes: &[u8]) -> u32 {
    if bytes.is_empty() {
        return 0;
    }
    // SAFETY: as the caller guarantees.
    let [ptr, cap, len, owned] = unsafe { *text };
    let Some(needed) = len.checked_add(bytes.len()) else {
        ctx.fault = Fault::CapacityOverflow as u32;
        return 1;
    };
    let mut ptr = ptr;
    let mut cap = cap;
    if needed > cap {
        let new_cap = needed.max(cap.saturating_mul(2)).max(8);
        // SAFETY: `ctx` is the running snippet's context, `ptr` its buffer of `cap` bytes.
        ptr = unsafe { crate::rt::heap::helper_vec_grow(ctx, ptr, cap, new_cap, 1, 1, owned) };
        if ptr == 0 {
            return 1;
        }
        cap = new_cap;
    }
    // SAFETY: the buffer has room for `needed` bytes; `bytes` is not inside it (it was just formatted, or is
    // other text, which a `&mut String` cannot alias).
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (ptr as *mut u8).add(len), bytes.len()) };
    // SAFETY: as above.
    unsafe { *text = [ptr, cap, needed, owned] };
    0
}

/// JIT helper: appends one formatted argument (or literal text, `KIND_STR` with the `Display` spec) to the
/// `String` triple at `text`. Returns 1 on a fault (recorded in the context).
///
/// # Safety
/// `ctx` is the running snippet's context with a live heap; `text` its `String` triple; `spec` a live
/// [`RawSpec`]; for `KIND_STR`, `a` and `b` are the pointer and length of UTF-8 text; for `KIND_SEQ`, the address
/// and number of initialized elements of the kind it names.
pub(crate) unsafe extern "C" fn helper_fmt(
    ctx: *mut JitContext,
    text: *mut TextSlot,
    kind: u32,
    a: u64,
    b: u64,
    spec: *const RawSpec,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let (ctx, spec) = unsafe { (&mut *ctx, &*spec) };
    let plain =
        kind == KIND_STR && spec.trait_ == FmtTrait::Display && spec.width == u64::MAX && spec.precision == u64::MAX;
    if plain {
        // SAFETY: as the caller guarantees for text.
        let bytes = unsafe { std::slice::from_raw_parts(a as *const u8, b as usize) };
        // SAFETY: as the caller guarantees.
        return unsafe { append(ctx, text, bytes) };
    }
    // Integers with no spec: their digits straight from a buffer on the stack.
    let bare = spec.trait_ == FmtTrait::Display
        && spec.width == u64::MAX
        && spec.plus == 0
        && matches!(kind & 0xff, KIND_SIGNED | KIND_UNSIGNED);
    if bare {
        let negative = kind & 0xff == KIND_SIGNED && (a as i64) < 0;
        let mut magnitude = if negative { (a as i64).unsigned_abs() } else { a };
        let mut digits = [0u8; 21];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (magnitude % 10) as u8;
            magnitude /= 10;
            if magnitude == 0 {
                break;
            }
        }
        if negative {
            at -= 1;
            digits[at] = b'-';
        }
        // SAFETY: as the caller guarantees.
        return unsafe { append(ctx, text, &digits[at..]) };
    }
    let formatted = match kind & 0xff {
        // SAFETY: as the caller guarantees for a sequence.
        KIND_SEQ => unsafe { format_seq(kind >> 8, a, b) },
        _ => format_one(kind, a, b, spec),
    };
    match formatted {
        // SAFETY: as the caller guarantees.
        Some(s) => unsafe { append(ctx, text, s.as_bytes()) },
        None => {
            ctx.fault = Fault::Panic as u32;
            ctx.fault_values[0] = u64::MAX;
            1
        }
    }
}

/// JIT helper: appends a `char`, UTF-8 encoded, to the `String` triple at `text`.
///
/// # Safety
/// As [`helper_fmt`].
pub(crate) unsafe extern "C" fn helper_push_char(ctx: *mut JitContext, text: *mut TextSlot, c: u32) -> u32 {
    // SAFETY: as the caller guarantees.
    let ctx = unsafe { &mut *ctx };
    let c = char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER);
    // SAFETY: as the caller guarantees.
    unsafe { append(ctx, text, c.encode_utf8(&mut [0; 4]).as_bytes()) }
}

thread_local! {
    /// The message of the last text fault a helper raised on this thread, for the runner to report.
    static FAULT_MESSAGE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// JIT helper: the message of a panic the snippet formatted (`panic!("{} left", n)`), left for the runner, which
/// reports it with [`Fault::Panic`] and [`crate::abi::FORMATTED_MESSAGE`] for its message.
///
/// # Safety
/// `ptr` is readable UTF-8 for `len` bytes.
pub(crate) unsafe extern "C" fn helper_panic_message(_ctx: *mut JitContext, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    let text = unsafe { std::slice::from_raw_parts(ptr, len) };
    let message = String::from_utf8_lossy(text).into_owned();
    FAULT_MESSAGE.with(|m| *m.borrow_mut() = Some(message));
}

/// The message a helper left with [`Fault::StrSlice`], or with [`Fault::Panic`] for a formatted one, on this
/// thread.
pub fn take_fault_message() -> Option<String> {
    FAULT_MESSAGE.with(|m| m.borrow_mut().take())
}

/// JIT helper: `&text[start..end]` (pointer and length written to `out`), or, where that range is not one of
/// the text's, std's panic message left for the runner and 1.
///
/// # Safety
/// `ctx` is the running snippet's context; `ptr` is readable UTF-8 for `len` bytes; `out` has room for two words.
pub(crate) unsafe extern "C" fn helper_str_slice(
    ctx: *mut JitContext,
    ptr: *const u8,
    len: usize,
    start: usize,
    end: usize,
    out: *mut [usize; 2],
) -> u32 {
    // SAFETY: as the caller guarantees.
    let all = unsafe { text(ptr, len) };
    match all.get(start..end) {
        Some(piece) => {
            // SAFETY: as the caller guarantees.
            unsafe { *out = [piece.as_ptr() as usize, piece.len()] };
            0
        }
        None => {
            FAULT_MESSAGE.with(|m| *m.borrow_mut() = Some(str_slice_error(all, start, end)));
            // SAFETY: as the caller guarantees.
            unsafe { (*ctx).fault = Fault::StrSlice as u32 };
            1
        }
    }
}

/// std's panic message for `&s[begin..end]` where that is not a range of `s` (core's `slice_error_fail_rt`).
pub(crate) fn str_slice_error(s: &str, begin: usize, end: usize) -> String {
    const MAX_DISPLAY_LENGTH: usize = 256;
    let trunc_len = s.floor_char_boundary(MAX_DISPLAY_LENGTH);
    let s_trunc = &s[..trunc_len];
    let ellipsis = if trunc_len < s.len() { "[...]" } else { "" };
    let len = s.len();
    if begin > len {
        return format!("start byte index {begin} is out of bounds of `{s_trunc}`{ellipsis}");
    }
    if end > len {
        return format!("end byte index {end} is out of bounds of `{s_trunc}`{ellipsis}");
    }
    if begin > end {
        return format!("begin > end ({begin} > {end}) when slicing `{s_trunc}`{ellipsis}");
    }
    let (which, index) = if s.is_char_boundary(begin) { ("end", end) } else { ("start", begin) };
    let (floor, ceil) = (s.floor_char_boundary(index), s.ceil_char_boundary(index));
    let ch = s[floor..ceil].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
    format!(
        "{which} byte index {index} is not a char boundary; it is inside {ch:?} (bytes {:?}) of `{s_trunc}`{ellipsis}",
        floor..ceil
    )
}

/// The ASCII characters `char::is_whitespace` accepts (`u8::is_ascii_whitespace` leaves out U+000B).
fn ascii_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

/// JIT helper: appends `len` bytes at `src` to the `String` triple at `text`.
///
/// # Safety
/// As [`helper_fmt`]; `src` is readable for `len` bytes.
pub(crate) unsafe extern "C" fn helper_push_str(
    ctx: *mut JitContext,
    text: *mut TextSlot,
    src: *const u8,
    len: usize,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let (ctx, bytes) = unsafe { (&mut *ctx, std::slice::from_raw_parts(src, len)) };
    // SAFETY: as the caller guarantees.
    unsafe { append(ctx, text, bytes) }
}

/// # Safety
/// `ptr` is readable UTF-8 for `len` bytes.
unsafe fn text<'a>(ptr: *const u8, len: usize) -> &'a str {
    // SAFETY: as the caller guarantees (generated code passes only text it got from `&str`s and `String`s).
    unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) }
}

/// JIT helper: the [`TrimMode`] in `which`'s low byte (`trim`, `trim_start`, `trim_end` of the text, or the
/// `_matches` forms of the text `pattern` when not null, or else of the `char` in `which`'s upper bits): the
/// (pointer, length) written to `out`.
///
/// # Safety
/// `ptr` and (when not null) `pattern` are readable UTF-8 for their lengths; `out` has room for two words.
pub(crate) unsafe extern "C" fn helper_trim(
    ptr: *const u8,
    len: usize,
    which: u32,
    pattern: *const u8,
    pattern_len: usize,
    out: *mut [usize; 2],
) {
    // SAFETY: as the caller guarantees.
    let t = unsafe { text(ptr, len) };
    let c = char::from_u32(which >> 8).unwrap_or(char::REPLACEMENT_CHARACTER);
    // SAFETY: as the caller guarantees.
    let p = (!pattern.is_null()).then(|| unsafe { text(pattern, pattern_len) });
    let trimmed = match (TrimMode::from_code(which & 0xff), p) {
        (Some(TrimMode::Trim), _) => t.trim(),
        (Some(TrimMode::TrimStart), _) => t.trim_start(),
        (Some(TrimMode::TrimEnd), _) => t.trim_end(),
        // `trim_matches` needs a `DoubleEndedSearcher`, which text patterns are not (E0277): only a `char`.
        (Some(TrimMode::TrimMatches), _) => t.trim_matches(c),
        (Some(TrimMode::TrimStartMatches), Some(p)) => t.trim_start_matches(p),
        (Some(TrimMode::TrimStartMatches), None) => t.trim_start_matches(c),
        (Some(TrimMode::TrimEndMatches), Some(p)) => t.trim_end_matches(p),
        (Some(TrimMode::TrimEndMatches), None) => t.trim_end_matches(c),
        (None, _) => t,
    };
    // SAFETY: as the caller guarantees.
    unsafe { *out = [trimmed.as_ptr() as usize, trimmed.len()] };
}

/// JIT helper: the [`FindMode`] `which` (`contains`, `starts_with`, `ends_with`) of a text pattern, or of the
/// `char` `c` when `pattern` is null.
///
/// # Safety
/// `ptr` and (when not null) `pattern` are readable UTF-8 for their lengths.
pub(crate) unsafe extern "C" fn helper_find(
    ptr: *const u8,
    len: usize,
    pattern: *const u8,
    pattern_len: usize,
    c: u32,
    which: u32,
) -> u8 {
    // SAFETY: as the caller guarantees.
    let t = unsafe { text(ptr, len) };
    let mut buffer = [0; 4];
    // SAFETY: as the caller guarantees.
    let p = unsafe { pattern_text(pattern, pattern_len, c, &mut buffer) };
    let found = match FindMode::from_code(which) {
        Some(FindMode::Contains) => t.contains(p),
        Some(FindMode::StartsWith) => t.starts_with(p),
        Some(FindMode::EndsWith) => t.ends_with(p),
        None => false,
    };
    found.into()
}

/// A search pattern from the JIT's arguments: text when `pattern` is not null, else the `char` `c` (encoded into
/// `buffer`).
///
/// # Safety
/// `pattern`, when not null, is readable UTF-8 for `pattern_len` bytes.
unsafe fn pattern_text(pattern: *const u8, pattern_len: usize, c: u32, buffer: &mut [u8; 4]) -> &str {
    if pattern.is_null() {
        char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER).encode_utf8(buffer)
    } else {
        // SAFETY: as the caller guarantees.
        unsafe { text(pattern, pattern_len) }
    }
}

/// JIT helper: `find` (`from_end` 0) or `rfind` (1) of a pattern (text when `pattern` is not null, else the
/// `char` `c`): the byte index of the first (last) match, `u64::MAX` for none.
///
/// # Safety
/// `ptr` is readable UTF-8 for `len` bytes; `pattern`, when not null, for `pattern_len` bytes.
pub(crate) unsafe extern "C" fn helper_position(
    ptr: *const u8,
    len: usize,
    pattern: *const u8,
    pattern_len: usize,
    c: u32,
    from_end: u32,
) -> u64 {
    // SAFETY: as the caller guarantees.
    let t = unsafe { text(ptr, len) };
    let mut buffer = [0; 4];
    // SAFETY: as the caller guarantees.
    let p = unsafe { pattern_text(pattern, pattern_len, c, &mut buffer) };
    let at = if from_end != 0 { t.rfind(p) } else { t.find(p) };
    at.map_or(u64::MAX, |i| i as u64)
}

/// JIT helper: the [`TransformOp`] `op` (`to_uppercase`, `to_lowercase`, `repeat(n)`) of the text, appended to the new
/// `String` at `out`. `repeat` past `isize::MAX` bytes is `capacity overflow`, as std's.
///
/// # Safety
/// As [`helper_fmt`]; `ptr` is readable UTF-8 for `len` bytes.
pub(crate) unsafe extern "C" fn helper_transform(
    ctx: *mut JitContext,
    out: *mut TextSlot,
    ptr: *const u8,
    len: usize,
    op: u32,
    n: usize,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let (ctx, t) = unsafe { (&mut *ctx, text(ptr, len)) };
    let result = match TransformOp::from_code(op) {
        Some(TransformOp::ToUppercase) => t.to_uppercase(),
        Some(TransformOp::ToLowercase) => t.to_lowercase(),
        None => return 1,
        Some(TransformOp::Repeat) => {
            let Some(total) = len.checked_mul(n).filter(|&total| total <= isize::MAX as usize) else {
                ctx.fault = Fault::CapacityOverflow as u32;
                return 1;
            };
            // The whole buffer at once (as std's `repeat`), through the heap, so the memory budget sees it.
            // SAFETY: as the caller guarantees.
            let [mut buffer, mut cap, used, owned] = unsafe { *out };
            let Some(needed) = used.checked_add(total).filter(|&needed| needed <= isize::MAX as usize) else {
                ctx.fault = Fault::CapacityOverflow as u32;
                return 1;
            };
            if needed > cap {
                // SAFETY: `buffer` is the slot's buffer of `cap` bytes.
                let grown = unsafe { crate::rt::heap::helper_vec_grow(ctx, buffer, cap, needed, 1, 1, owned) };
                if grown == 0 {
                    return 1;
                }
                (buffer, cap) = (grown, needed);
            }
            if total > 0 {
                // One copy of the text, then the filled part doubled, as std's `repeat` does.
                // SAFETY: the buffer has room for `needed` bytes past its start; the text is not inside it (a
                // `&mut String` cannot alias it); each doubling copies from the filled part to the part after it.
                unsafe {
                    let start = (buffer as *mut u8).add(used);
                    std::ptr::copy_nonoverlapping(t.as_ptr(), start, len);
                    let mut filled = len;
                    while filled < total {
                        let chunk = filled.min(total - filled);
                        std::ptr::copy_nonoverlapping(start, start.add(filled), chunk);
                        filled += chunk;
                    }
                }
            }
            // SAFETY: as the caller guarantees.
            unsafe { *out = [buffer, cap, needed, owned] };
            return 0;
        }
    };
    // SAFETY: as the caller guarantees.
    unsafe { append(ctx, out, result.as_bytes()) }
}

/// JIT helper: `replace` of a pattern (text when `pattern` is not null, else the `char` `c`) by `to`, appended to
/// the new `String` at `out` piece by piece, as std's `str::replace` builds it: the text before each match, then
/// `to`; then the rest. Every piece goes through the heap, so the memory budget sees the result grow.
///
/// # Safety
/// As [`helper_fmt`]; `ptr` is readable UTF-8 for `len` bytes, `to` for `to_len`, and `pattern`, when not null,
/// for `pattern_len`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn helper_replace(
    ctx: *mut JitContext,
    out: *mut TextSlot,
    ptr: *const u8,
    len: usize,
    pattern: *const u8,
    pattern_len: usize,
    c: u32,
    to: *const u8,
    to_len: usize,
) -> u32 {
    let mut buffer = [0; 4];
    // SAFETY: as the caller guarantees.
    let (ctx, t, to, p) =
        unsafe { (&mut *ctx, text(ptr, len), text(to, to_len), pattern_text(pattern, pattern_len, c, &mut buffer)) };
    let mut last = 0;
    for (start, matched) in t.match_indices(p) {
        // SAFETY: `out` is the caller's new `String` slot, which neither text is in.
        let before = unsafe { append(ctx, out, &t.as_bytes()[last..start]) };
        // SAFETY: as above.
        if before != 0 || unsafe { append(ctx, out, to.as_bytes()) } != 0 {
            return 1;
        }
        last = start + matched.len();
    }
    // SAFETY: as above.
    unsafe { append(ctx, out, &t.as_bytes()[last..]) }
}

/// JIT helper: the next `char` of the text at `data` between the byte positions `state` = [front, back] —
/// from the front, or from the back when `from_back` — moving that position past it; `0x110000` once they meet.
///
/// # Safety
/// `data[front..back]` is readable UTF-8 and both positions are on `char` boundaries.
pub(crate) unsafe extern "C" fn helper_next_char(data: *const u8, state: *mut [usize; 2], from_back: u32) -> u32 {
    // SAFETY: as the caller guarantees.
    let [front, back] = unsafe { *state };
    // SAFETY: as the caller guarantees.
    let rest = unsafe { text(data.add(front), back - front) };
    let next = if from_back != 0 { rest.chars().next_back() } else { rest.chars().next() };
    let Some(c) = next else { return 0x11_0000 };
    let step = c.len_utf8();
    // SAFETY: as the caller guarantees.
    unsafe { *state = if from_back != 0 { [front, back - step] } else { [front + step, back] } };
    c as u32
}

/// JIT helper: the next piece of `data[..state[1]]` as `split_whitespace`, `lines` or `split` (by the `&str`
/// `pat[..pat_len]`, or by the `char` `pat_len`) yield it, from the state `[position, length, search from, done,
/// piece start, piece length]` (`[0, length, 0, 0, _, _]` at first). Returns 1 with the piece in `state[4..6]`, or
/// 0 at the end.
///
/// # Safety
/// `data[..state[1]]` is readable UTF-8, `pat[..pat_len]` too for a `&str` pattern, and the state is this
/// helper's own from the start (its positions on `char` boundaries).
pub(crate) unsafe extern "C" fn helper_next_piece(
    data: *const u8,
    state: *mut [usize; 6],
    how: u32,
    pat: *const u8,
    pat_len: usize,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let st = unsafe { &mut *state };
    let [pos, len, from, done, ..] = *st;
    // SAFETY: as the caller guarantees.
    let all = unsafe { text(data, len) };
    if done != 0 {
        return 0;
    }
    let Some(how) = PiecesMode::from_code(how) else { return 0 };
    let (start, end) = match how {
        PiecesMode::Whitespace => {
            // ASCII bytes are scanned directly; from the first other byte, `char`s are decoded (every index
            // reached through ASCII bytes alone is a char boundary).
            let bytes = all.as_bytes();
            let mut start = pos;
            while start < len && ascii_whitespace(bytes[start]) {
                start += 1;
            }
            if start < len && !bytes[start].is_ascii() {
                let rest = &all[start..];
                start += rest.len() - rest.trim_start().len();
            }
            if start == len {
                st[3] = 1;
                return 0;
            }
            let mut end = start;
            while end < len && bytes[end].is_ascii() && !ascii_whitespace(bytes[end]) {
                end += 1;
            }
            if end < len && !bytes[end].is_ascii() {
                end = all[end..].find(char::is_whitespace).map_or(len, |i| end + i);
            }
            st[0] = end;
            (start, end)
        }
        PiecesMode::Lines => {
            if pos >= len {
                st[3] = 1;
                return 0;
            }
            // As `str::lines`: a line ends at `\n`, and a `\r` right before that `\n` is not part of it.
            match all[pos..].find('\n') {
                Some(i) => {
                    st[0] = pos + i + 1;
                    let line = &all[pos..pos + i];
                    (pos, pos + line.strip_suffix('\r').map_or(i, str::len))
                }
                None => {
                    st[0] = len;
                    (pos, len)
                }
            }
        }
        PiecesMode::LinesBack => {
            if pos >= len {
                st[3] = 1;
                return 0;
            }
            // As `str::lines().next_back()`: the last line of what is left, whose `\n` (the text's last byte, if it
            // is one) is not part of it, nor a `\r` right before that `\n`; what is left then ends where it starts.
            let body_end = if all.as_bytes()[len - 1] == b'\n' { len - 1 } else { len };
            let start = all[pos..body_end].rfind('\n').map_or(pos, |i| pos + i + 1);
            st[1] = start;
            let line = &all[start..body_end];
            let end = match line.strip_suffix('\r') {
                Some(stripped) if body_end < len => start + stripped.len(),
                _ => body_end,
            };
            (start, end)
        }
        PiecesMode::SplitStr | PiecesMode::SplitChar => {
            let mut buffer = [0u8; 4];
            let pattern: &str = if how == PiecesMode::SplitChar {
                match char::from_u32(pat_len as u32) {
                    Some(c) => c.encode_utf8(&mut buffer),
                    None => return 0,
                }
            } else {
                // SAFETY: as the caller guarantees.
                unsafe { text(pat, pat_len) }
            };
            // The search resumes after the last match; an empty pattern matches once at every `char` boundary,
            // so its search resumes one `char` further (past the end: no more matches).
            let found = all.get(from..).and_then(|rest| rest.find(pattern)).map(|i| from + i);
            match found {
                Some(m) => {
                    st[0] = m + pattern.len();
                    st[2] = if pattern.is_empty() {
                        all[m..].chars().next().map_or(len + 1, |c| m + c.len_utf8())
                    } else {
                        m + pattern.len()
                    };
                    (pos, m)
                }
                None => {
                    st[3] = 1;
                    (pos, len)
                }
            }
        }
    };
    st[4] = start;
    st[5] = end - start;
    1
}

/// JIT helper: the `char` method numbered `op` ([`CharMethod::op`]) on `c`: a `bool` as 0 or 1, or a `char`.
pub(crate) extern "C" fn helper_char_op(c: u32, op: u32) -> u32 {
    let (Some(c), Some(method)) = (char::from_u32(c), CharMethod::from_op(op)) else { return 0 };
    let answer = match method {
        CharMethod::IsAlphabetic => c.is_alphabetic(),
        CharMethod::IsNumeric => c.is_numeric(),
        CharMethod::IsAlphanumeric => c.is_alphanumeric(),
        CharMethod::IsWhitespace => c.is_whitespace(),
        CharMethod::IsUppercase => c.is_uppercase(),
        CharMethod::IsLowercase => c.is_lowercase(),
        CharMethod::IsAscii => c.is_ascii(),
        CharMethod::IsAsciiDigit => c.is_ascii_digit(),
        CharMethod::IsAsciiAlphabetic => c.is_ascii_alphabetic(),
        CharMethod::IsAsciiAlphanumeric => c.is_ascii_alphanumeric(),
        CharMethod::IsAsciiUppercase => c.is_ascii_uppercase(),
        CharMethod::IsAsciiLowercase => c.is_ascii_lowercase(),
        CharMethod::IsAsciiPunctuation => c.is_ascii_punctuation(),
        CharMethod::IsAsciiWhitespace => c.is_ascii_whitespace(),
        CharMethod::ToAsciiUppercase => return c.to_ascii_uppercase() as u32,
        CharMethod::ToAsciiLowercase => return c.to_ascii_lowercase() as u32,
    };
    answer.into()
}

/// The scalar types `parse` reads, by the code generated code passes.
pub const PARSE_TARGETS: &[Scalar] = &[
    Scalar::I8,
    Scalar::I16,
    Scalar::I32,
    Scalar::I64,
    Scalar::Isize,
    Scalar::U8,
    Scalar::U16,
    Scalar::U32,
    Scalar::U64,
    Scalar::Usize,
    Scalar::F32,
    Scalar::F64,
    Scalar::Bool,
    Scalar::Char,
];

/// `text.parse::<target>()`: the value's bits (integers extended to 64 bits, floats' own bits) or the error's
/// `Debug` text.
fn parse(text: &str, target: Scalar) -> Result<u64, String> {
    fn bits<T, E: std::fmt::Debug>(r: Result<T, E>, f: impl Fn(T) -> u64) -> Result<u64, String> {
        r.map(f).map_err(|e| format!("{e:?}"))
    }
    match target {
        Scalar::I8 => bits(text.parse::<i8>(), |v| v as i64 as u64),
        Scalar::I16 => bits(text.parse::<i16>(), |v| v as i64 as u64),
        Scalar::I32 => bits(text.parse::<i32>(), |v| v as i64 as u64),
        Scalar::I64 => bits(text.parse::<i64>(), |v| v as u64),
        Scalar::Isize => bits(text.parse::<isize>(), |v| v as i64 as u64),
        Scalar::U8 => bits(text.parse::<u8>(), u64::from),
        Scalar::U16 => bits(text.parse::<u16>(), u64::from),
        Scalar::U32 => bits(text.parse::<u32>(), u64::from),
        Scalar::U64 => bits(text.parse::<u64>(), |v| v),
        Scalar::Usize => bits(text.parse::<usize>(), |v| v as u64),
        Scalar::F32 => bits(text.parse::<f32>(), |v| u64::from(v.to_bits())),
        Scalar::F64 => bits(text.parse::<f64>(), f64::to_bits),
        Scalar::Bool => bits(text.parse::<bool>(), u64::from),
        Scalar::Char => bits(text.parse::<char>(), |c| u64::from(c as u32)),
        _ => Err("a type `parse` does not read".into()),
    }
}

/// The `Debug` texts of every error `parse` can give for `target`, in a fixed order: the helper reports an error
/// as its position here (plus one), so the compiled code can name the panic message.
pub fn parse_errors(target: Scalar) -> Vec<String> {
    let mut out = Vec::new();
    for probe in
        ["", "x", "99999999999999999999999999999999999999999", "-99999999999999999999999999999999999999999", "ab"]
    {
        if let Err(e) = parse(probe, target) {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// JIT helper: parses the text as the scalar numbered `target` in [`PARSE_TARGETS`]: 0 with the value's bits in
/// `out`, or 1 + the error's position in [`parse_errors`].
///
/// # Safety
/// `ptr` is readable UTF-8 for `len` bytes; `out` is writable.
pub(crate) unsafe extern "C" fn helper_parse(ptr: *const u8, len: usize, target: u32, out: *mut u64) -> u32 {
    let Some(&target) = PARSE_TARGETS.get(target as usize) else { return 1 };
    // SAFETY: as the caller guarantees.
    match parse(unsafe { text(ptr, len) }, target) {
        Ok(bits) => {
            // SAFETY: as the caller guarantees.
            unsafe { *out = bits };
            0
        }
        Err(e) => parse_errors(target).iter().position(|known| *known == e).map_or(1, |i| i as u32 + 1),
    }
}

/// JIT helper: whether two byte strings are equal (1) or not (0).
///
/// # Safety
/// Both are readable for their lengths.
pub(crate) unsafe extern "C" fn helper_bytes_eq(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> u8 {
    // SAFETY: as the caller guarantees.
    unsafe { std::slice::from_raw_parts(a, a_len) == std::slice::from_raw_parts(b, b_len) }.into()
}

/// JIT helper: prints the `String` triple at `text` through the host's stdout (`stderr` 0) or stderr, then
/// frees it.
///
/// # Safety
/// As [`helper_fmt`].
pub(crate) unsafe extern "C" fn helper_print(ctx: *mut JitContext, text: *mut TextSlot, stderr: u32) {
    // SAFETY: as the caller guarantees.
    let ctx = unsafe { &mut *ctx };
    if ctx.heap == 0 {
        return;
    }
    // SAFETY: the runner sets `heap` whenever the snippet allocates or prints.
    let heap = unsafe { &mut *(ctx.heap as *mut Heap) };
    // SAFETY: as the caller guarantees.
    let [ptr, _, len, _] = unsafe { *text };
    heap.print(ptr as *const u8, len, stderr != 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> RawSpec {
        let parsed = lacuna_ir::parse_format(&format!("{{:{s}}}")).expect("a spec");
        RawSpec::new(&parsed[0].2)
    }

    #[test]
    fn arguments_format_as_std_formats_them() {
        let int = |v: i64, bits: u32, s: &str| format_one(KIND_SIGNED | bits << 8, v as u64, 0, &spec(s));
        assert_eq!(int(42, 64, "+08").as_deref(), Some(format!("{:+08}", 42).as_str()));
        assert_eq!(int(-1, 8, "#010x").as_deref(), Some(format!("{:#010x}", -1i8).as_str()));
        assert_eq!(int(-7, 32, "^9").as_deref(), Some(format!("{:^9}", -7i32).as_str()));
        assert_eq!(int(1234, 64, ".2e").as_deref(), Some(format!("{:.2e}", 1234i64).as_str()));
        let float = |v: f64, s: &str| format_one(KIND_FLOAT | 64 << 8, v.to_bits(), 0, &spec(s));
        assert_eq!(float(-3.25159, "08.2").as_deref(), Some(format!("{:08.2}", -3.25159).as_str()));
        assert_eq!(float(1e16, "?").as_deref(), Some(format!("{:?}", 1e16).as_str()));
        assert_eq!(float(f64::NAN, "+").as_deref(), Some(format!("{:+}", f64::NAN).as_str()));
        let single = format_one(KIND_FLOAT | 32 << 8, u64::from(0.1f32.to_bits()), 0, &spec(""));
        assert_eq!(single.as_deref(), Some("0.1"));
        let text = "abcdef";
        let s = |sp: &str| format_one(KIND_STR, text.as_ptr() as u64, text.len() as u64, &spec(sp));
        assert_eq!(s("*^9.2").as_deref(), Some(format!("{:*^9.2}", text).as_str()));
        assert_eq!(s("10?").as_deref(), Some(format!("{:10?}", text).as_str()));
        assert_eq!(s("05").as_deref(), Some(format!("{:05}", text).as_str()));
        let c = format_one(KIND_CHAR, 'é' as u64, 0, &spec(">4"));
        assert_eq!(c.as_deref(), Some(format!("{:>4}", 'é').as_str()));
        assert_eq!(format_one(KIND_BOOL, 1, 0, &spec("<6")).as_deref(), Some("true  "));
    }

    /// `split_whitespace` pieces as the helper cuts them.
    fn helper_pieces(text: &str) -> Vec<&str> {
        let mut state = [0, text.len(), 0, 0, 0, 0];
        let mut out = Vec::new();
        // SAFETY: `text` is readable UTF-8 for its length; `state` is the helper's six words.
        while unsafe {
            helper_next_piece(text.as_ptr(), &mut state, PiecesMode::Whitespace.code(), std::ptr::null(), 0)
        } != 0
        {
            let [_, _, _, _, start, len] = state;
            out.push(&text[start..start + len]);
        }
        out
    }

    #[test]
    fn whitespace_pieces_are_std_split_whitespace() {
        for text in [
            "",
            "   ",
            "the cat\tsaw\n\nthe\r\ndog ",
            "\u{b}vertical\u{c}feed\u{b}",
            "caf\u{e9} na\u{ef}ve\u{a0}nbsp\u{2003}em\u{3000}",
            "\u{85}next\u{85}line\u{2028}",
            "\u{e9}\u{e9} \u{1F600}x",
        ] {
            assert_eq!(helper_pieces(text), text.split_whitespace().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn text_slice_messages_are_std_messages() {
        let cases: [(&str, usize, usize); 6] = [
            ("hello", 2, 9),
            ("hello", 7, 8),
            ("apple", 3, 1),
            ("n\u{e9}!", 2, 3),
            ("n\u{e9}!", 0, 2),
            ("\u{1F600}", 1, 4),
        ];
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        for (text, begin, end) in cases {
            let caught = std::panic::catch_unwind(|| text[begin..end].len());
            let payload = caught.expect_err("the range is not one of the text's");
            let std_message = payload.downcast_ref::<String>().cloned().unwrap_or_default();
            assert_eq!(str_slice_error(text, begin, end), std_message, "{text:?}[{begin}..{end}]");
        }
        std::panic::set_hook(quiet);
    }
}
