//! The `extern "C"` helpers generated code calls. Each one's symbol, address and Cranelift signature are one row
//! of [`crate::helper::Helper`]. They never unwind: a failure is a status or a fault written to the context.

pub(crate) mod heap;
pub(crate) mod map;
pub(crate) mod num;
pub(crate) mod seq;
pub(crate) mod text;
