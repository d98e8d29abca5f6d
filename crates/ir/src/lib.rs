//! The snippet IR: the typed view of an accepted snippet that the lowering checks and the JIT compiles. Plain
//! data with no dependencies: every expression with its type, every name resolved to a snippet local, a hole
//! binding or a snippet function. The checker builds it from rust-analyzer (whose types never leave the
//! checker); anything it cannot express is [`Unsupported`], and the snippet runs on the rustc path.
//!
//! - [`ty`]: scalars, value types ([`Ty`]) and how a sequence holds its elements ([`Elem`]);
//! - [`expr`]: expressions ([`TExpr`], [`TKind`]);
//! - [`iter`]: iterator chains (source, adaptors, consumer);
//! - [`fmt`]: format strings;
//! - [`pat`]: patterns and `match` arms;
//! - [`place`]: what is read and written in place (host fields, sequences, assignment targets);
//! - [`snippet`]: blocks, locals, functions, the snippet;
//! - [`visit`]: the direct parts of each node, in evaluation order;
//! - [`method`]: the method vocabularies;
//! - [`scope`]: a hole's bindings and where an accepted snippet uses them;
//! - [`symbol`]: the names of the symbols an instrumented host exports for JIT code;
//! - [`dump()`]: a stable text form of a snippet's IR, for tests.

mod dump;
pub mod expr;
pub mod fmt;
pub mod iter;
pub mod method;
pub mod pat;
pub mod place;
pub mod scope;
pub mod snippet;
pub mod symbol;
pub mod ty;
pub mod visit;

use std::ops::Range;

pub use dump::dump;
pub use expr::*;
pub use fmt::*;
pub use iter::*;
pub use method::*;
pub use pat::*;
pub use place::*;
pub use scope::*;
pub use snippet::*;
pub use symbol::*;
pub use ty::*;
pub use visit::*;

/// Why a snippet is outside the typed subset (it then runs on the rustc path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub construct: String,
    /// Range in the snippet.
    pub range: Range<usize>,
}
