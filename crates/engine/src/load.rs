//! A host compiled as a library and loaded into this process, and the symbols it exports.

use std::path::PathBuf;

use lacuna_checker::PreparedHost;

use crate::abi::{InstallFn, MainFn};
use crate::instrument::Instrumented;
use crate::ExecError;

impl LoadedHost {
    /// The address of a symbol the host library exports.
    pub(crate) fn symbol(&self, name: &str) -> Option<*const u8> {
        library_symbol(self.handle, name)
    }
}

pub(crate) fn library_symbol(handle: usize, name: &str) -> Option<*const u8> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: `handle` is a `dlopen` handle that is never closed; `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle as *mut libc::c_void, name.as_ptr()) };
    (!address.is_null()).then_some(address as *const u8)
}

/// Asks the host library where its std's `Vec` keeps its buffer pointer and length.
pub(crate) fn vec_layout(handle: usize) -> Option<(i32, i32)> {
    let probe = library_symbol(handle, lacuna_ir::symbol::HOST_VEC_LAYOUT)?;
    // SAFETY: the instrumented host defines `__lacuna_vec_layout` with this signature (`ENTRY_POINTS`); it writes
    // two words.
    let probe = unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut usize)>(probe) };
    let mut out = [usize::MAX; 2];
    // SAFETY: `out` has room for the two words.
    unsafe { probe(out.as_mut_ptr()) };
    Some((i32::try_from(out[0]).ok()?, i32::try_from(out[1]).ok()?))
}

/// A host compiled and loaded, ready to run (any number of times, with different snippets).
pub struct LoadedHost {
    pub prepared: PreparedHost,
    pub instrumented: Instrumented,
    pub library: PathBuf,
    pub compile_ms: f64,
    pub instrument_ms: f64,
    /// The host's item signatures, for prompts.
    pub signatures: Vec<String>,
    pub(crate) install: InstallFn,
    pub(crate) main: MainFn,
    /// The host library's `dlopen` handle (never closed), for the JIT's calls of host functions.
    pub(crate) handle: usize,
    /// Byte offsets of a `Vec`'s buffer pointer and length in the host's std (`__lacuna_vec_layout`).
    pub(crate) vec_fields: Option<(i32, i32)>,
}

pub(crate) fn load_library(path: &std::path::Path) -> Result<libloading::Library, ExecError> {
    use libloading::os::unix::{Library, RTLD_LAZY, RTLD_LOCAL};
    // Local: no library's symbols resolve another's; the hosts of one lineage have the same symbol names, and a
    // snippet library reaches its own host through its `DT_NEEDED` (ARCHITECTURE.md, invariant 8).
    // SAFETY: the library was just built by Lacuna from generated source; its initializers are std's and the
    // host's own (none run snippet code).
    unsafe { Library::open(Some(path), RTLD_LAZY | RTLD_LOCAL) }.map(Into::into).map_err(|e| load_error(path, e))
}

pub(crate) fn load_error(path: &std::path::Path, e: libloading::Error) -> ExecError {
    ExecError::Load { path: path.display().to_string(), detail: e.to_string() }
}
