//! What generated code and the runtime helpers share: the context every compiled snippet reads its budgets from
//! and writes its fault to, the fault codes, the entry's signature, the format spec as code passes it, and the
//! host library's functions the helpers call. Below both `codegen` and `rt`, so neither depends on the other.

use lacuna_ir::{FmtSpec, FmtTrait};

/// What generated code reads (budgets) and writes (a fault). Shared layout with the generated code: fields at
/// fixed offsets.
#[repr(C)]
#[derive(Debug, Default)]
pub struct JitContext {
    /// Fuel left (offset 0).
    pub fuel: u64,
    /// Lowest stack address allowed (offset 8; 0: unchecked).
    pub stack_limit: u64,
    /// [`Fault`] code (offset 16; 0: none).
    pub fault: u32,
    /// Snippet byte offset of the faulting operation (offset 20).
    pub fault_at: u32,
    /// The `lacuna::__private::RawRun` host function calls run under (offset 24; null when the snippet calls
    /// none): a panic in one leaves its message there.
    pub run: u64,
    /// Values for a fault's message (offsets 32 and 40): an index fault's length and index.
    pub fault_values: [u64; 2],
    /// The run's [`Heap`](crate::Heap) (offset 48; null when the snippet builds no vectors). Read by helpers only.
    pub heap: u64,
    /// Set (non-zero) by another thread to stop the snippet with [`Fault::Time`] within 1,024 fuel counts or at its
    /// next return from a host call (offset 56): how the time budget holds whatever the fuel setting.
    pub interrupt: std::sync::atomic::AtomicU32,
}

pub(crate) const FUEL_OFFSET: i32 = 0;
pub(crate) const STACK_OFFSET: i32 = 8;
pub(crate) const FAULT_OFFSET: i32 = 16;
pub(crate) const FAULT_AT_OFFSET: i32 = 20;
pub(crate) const RUN_OFFSET: i32 = 24;
pub(crate) const FAULT_VALUES_OFFSET: i32 = 32;
pub(crate) const INTERRUPT_OFFSET: i32 = 56;

/// Why generated code stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Fault {
    Add = 1,
    Sub,
    Mul,
    DivByZero,
    RemByZero,
    DivOverflow,
    RemOverflow,
    Neg,
    Shl,
    Shr,
    /// A host function the snippet called panicked (the message is in the context's `run`).
    HostPanic,
    /// An index past a sequence's end (the length and the index are in the context's `fault_values`).
    IndexOutOfBounds,
    /// `unwrap()` of `None`.
    UnwrapNone,
    /// A panic with a fixed message: index `fault_values[0]` into [`Compiled::messages`](crate::Compiled::messages);
    /// or, where that is [`FORMATTED_MESSAGE`], one the snippet formatted, left by the helper on this thread
    /// ([`take_fault_message`](crate::take_fault_message)).
    Panic,
    /// `capacity overflow`: a vector's size past `isize::MAX` bytes.
    CapacityOverflow,
    /// Text sliced outside its length or inside a `char`: std's message, left by the helper on this thread
    /// ([`take_fault_message`](crate::take_fault_message)).
    StrSlice,
    /// `&v[a..b]` with `a` past the length (`fault_values`: `a`, the length).
    SliceStart,
    /// `&v[a..b]` with `b` past the length (`fault_values`: `b`, the length).
    SliceEnd,
    /// `&v[a..b]` with `a` past `b` (`fault_values`: `a`, `b`).
    SliceOrder,
    Fuel = 100,
    Stack = 101,
    /// The snippet's vectors would hold more than its memory budget (the bytes asked for in `fault_values[0]`).
    Memory = 102,
    /// The context's `interrupt` was set: the run's time is up.
    Time = 103,
}

impl Fault {
    const ALL: [Fault; 23] = {
        use Fault::*;
        [
            Add,
            Sub,
            Mul,
            DivByZero,
            RemByZero,
            DivOverflow,
            RemOverflow,
            Neg,
            Shl,
            Shr,
            HostPanic,
            IndexOutOfBounds,
            UnwrapNone,
            Panic,
            CapacityOverflow,
            StrSlice,
            SliceStart,
            SliceEnd,
            SliceOrder,
            Fuel,
            Stack,
            Memory,
            Time,
        ]
    };

    pub fn from_code(code: u32) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| *f as u32 == code)
    }

    /// rustc's panic message for the same fault in a debug build.
    pub fn message(self) -> &'static str {
        match self {
            Fault::Add => "attempt to add with overflow",
            Fault::Sub => "attempt to subtract with overflow",
            Fault::Mul => "attempt to multiply with overflow",
            Fault::DivByZero => "attempt to divide by zero",
            Fault::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            Fault::DivOverflow => "attempt to divide with overflow",
            Fault::RemOverflow => "attempt to calculate the remainder with overflow",
            Fault::Neg => "attempt to negate with overflow",
            Fault::Shl => "attempt to shift left with overflow",
            Fault::Shr => "attempt to shift right with overflow",
            Fault::HostPanic => "a host function panicked",
            Fault::IndexOutOfBounds => "index out of bounds",
            Fault::UnwrapNone => "called `Option::unwrap()` on a `None` value",
            Fault::Panic => "explicit panic",
            Fault::Fuel => "out of fuel",
            Fault::Stack => "out of stack",
            Fault::CapacityOverflow => "capacity overflow",
            Fault::StrSlice => "byte index out of bounds of the text or not a char boundary",
            Fault::SliceStart => "range start index out of range for slice",
            Fault::SliceEnd => "range end index out of range for slice",
            Fault::SliceOrder => "slice index starts after it ends",
            Fault::Memory => "out of memory",
            Fault::Time => "out of time",
        }
    }
}

/// The native entry of a compiled snippet.
pub type JitEntry = unsafe extern "C" fn(*const *mut u8, *mut u8, *mut JitContext) -> u32;

/// `__lacuna_realloc(ptr, old_size, align, new_size) -> ptr` of the instrumented host (null when refused).
pub type ReallocFn = unsafe extern "C" fn(*mut u8, usize, usize, usize) -> *mut u8;
/// `__lacuna_dealloc(ptr, size, align)` of the instrumented host.
pub type DeallocFn = unsafe extern "C" fn(*mut u8, usize, usize);
/// `__lacuna_print(ptr, len, stderr)` of the instrumented host.
pub type PrintFn = unsafe extern "C" fn(*const u8, usize, u32);

/// The instrumented host's functions a snippet's buffers go through.
#[derive(Clone, Copy)]
pub struct HostFns {
    pub realloc: ReallocFn,
    pub dealloc: DeallocFn,
    pub print: PrintFn,
}

/// A host struct's drop shim (`instrument`'s `__lacuna_struct_shims::drop`): never unwinds.
pub type DropFn = unsafe extern "C" fn(*mut u8);

/// A [`FmtSpec`] as generated code passes it (by address; the compiled snippet owns it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawSpec {
    /// `u32::MAX`: none.
    pub fill: u32,
    /// 0 none, `<`, `^`, `>` as bytes.
    pub align: u8,
    pub plus: u8,
    pub alternate: u8,
    pub zero: u8,
    pub trait_: FmtTrait,
    /// `u64::MAX`: none.
    pub width: u64,
    pub precision: u64,
}

impl RawSpec {
    pub fn new(s: &FmtSpec) -> RawSpec {
        RawSpec {
            fill: s.fill.map_or(u32::MAX, u32::from),
            align: s.align.map_or(0, |c| c as u8),
            plus: s.plus.into(),
            alternate: s.alternate.into(),
            zero: s.zero.into(),
            trait_: s.trait_,
            width: s.width.map_or(u64::MAX, |w| w as u64),
            precision: s.precision.map_or(u64::MAX, |p| p as u64),
        }
    }
}

/// What kind of value an argument is (`kind & 0xff`; the integer or float width in bits is `kind >> 8`).
/// [`Fault::Panic`]'s `fault_values[0]` for a message the snippet formatted (`panic!("{} left", n)`).
pub const FORMATTED_MESSAGE: u64 = u64::MAX;

pub const KIND_STR: u32 = 0;
pub const KIND_SIGNED: u32 = 1;
pub const KIND_UNSIGNED: u32 = 2;
pub const KIND_FLOAT: u32 = 3;
pub const KIND_BOOL: u32 = 5;
pub const KIND_CHAR: u32 = 6;
/// `{:?}` of a sequence (`a` its elements' address, `b` how many): `kind >> 8` is the element's kind (one of the
/// above with its width, or [`KIND_STRING`]) in 16 bits, then (for [`KIND_STRING`]) the byte offsets of a
/// `String`'s pointer and length in the host's layout, in eighths, two bits each.
pub const KIND_SEQ: u32 = 7;
/// A `String` element of a sequence (24 bytes in the host's layout).
pub const KIND_STRING: u32 = 8;

/// Declares an operation code that crosses the FFI as a `u32`: generated code passes `code()`, the helper decodes it
/// with `from_code` (`None` for a code no member has: a bug on the generating side, which the helper answers with
/// its failure value rather than guessing).
macro_rules! ffi_code {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u32)]
        pub(crate) enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The code generated code passes.
            pub(crate) fn code(self) -> u32 {
                self as u32
            }

            /// The operation a helper was passed.
            pub(crate) fn from_code(code: u32) -> Option<$name> {
                $name::ALL.get(code as usize).copied()
            }
        }
    };
}

ffi_code! {
    /// What `lacuna_trim` does (the low byte of its `mode`; a `char` pattern rides in the bits above).
    TrimMode {
        Trim,
        TrimStart,
        TrimEnd,
        TrimMatches,
        TrimStartMatches,
        TrimEndMatches,
    }
}

ffi_code! {
    /// What `lacuna_find` asks of the text.
    FindMode {
        Contains,
        StartsWith,
        EndsWith,
    }
}

ffi_code! {
    /// What `lacuna_transform` makes of the text.
    TransformOp {
        ToUppercase,
        ToLowercase,
        Repeat,
    }
}

ffi_code! {
    /// How `lacuna_next_piece` cuts text ([`lacuna_ir::Pieces`]).
    PiecesMode {
        Whitespace,
        Lines,
        /// At each match of a `&str`.
        SplitStr,
        /// At each match of a `char`.
        SplitChar,
        /// `lines().rev()`: the last line first.
        LinesBack,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Generated code reads and writes the context at these offsets.
    #[test]
    fn context_offsets_match_the_struct() {
        assert_eq!(std::mem::offset_of!(JitContext, fuel), FUEL_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, stack_limit), STACK_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault), FAULT_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault_at), FAULT_AT_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, run), RUN_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault_values), FAULT_VALUES_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, interrupt), INTERRUPT_OFFSET as usize);
    }
}
