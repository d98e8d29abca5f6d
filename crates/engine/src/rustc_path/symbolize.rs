//! Where in a snippet library a fault happened, from the return addresses the runtime recorded: std's own
//! symbolizer lists the process's libraries once, at its first backtrace, so it cannot name lines in libraries
//! loaded after that (every snippet library but the first, now that they share one std).

use std::path::Path;

/// The return addresses in a run record's trace (`lacuna-ips:` line), innermost first.
pub(crate) fn recorded_addresses(trace: &str) -> Vec<usize> {
    trace
        .lines()
        .find_map(|l| l.strip_prefix("lacuna-ips:"))
        .map(|ips| ips.split(',').filter_map(|ip| usize::from_str_radix(ip.trim(), 16).ok()).collect())
        .unwrap_or_default()
}

/// (line, column) in `library`'s source of each address inside `library`, innermost first. The first address is
/// where the panic machinery was; every one is a return address, so the call before it is looked up.
pub(crate) fn library_positions(library: &Path, addresses: &[usize]) -> Vec<(u32, u32)> {
    let Ok(loader) = addr2line::Loader::new(library) else { return Vec::new() };
    let Some(wanted) = library.canonicalize().ok() else { return Vec::new() };
    let mut out = Vec::new();
    for &ip in addresses {
        let Some((file, base)) = containing_object(ip) else { continue };
        if Path::new(&file).canonicalize().ok().as_deref() != Some(wanted.as_path()) {
            continue;
        }
        let probe = (ip.saturating_sub(1)).saturating_sub(base) as u64;
        if let Ok(Some(location)) = loader.find_location(probe) {
            if let (Some(line), column) = (location.line, location.column) {
                out.push((line, column.unwrap_or(1)));
            }
        }
    }
    out
}

/// The file and load address of the loaded object that contains `address`.
fn containing_object(address: usize) -> Option<(String, usize)> {
    // SAFETY: `Dl_info` is plain data that `dladdr` fills; zeroed is a valid initial value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr` only reads the address (it need not be mapped) and writes `info`.
    let found = unsafe { libc::dladdr(address as *const libc::c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dli_fname` is a NUL-terminated string owned by the dynamic linker, alive while the object is loaded
    // (libraries are never unloaded).
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    Some((name, info.dli_fbase as usize))
}

#[cfg(test)]
mod tests {
    #[test]
    fn addresses_are_read_from_the_trace() {
        let trace = "lacuna-ips:7f00aa,10,zz,ff\n   0: std::backtrace\n";
        assert_eq!(super::recorded_addresses(trace), vec![0x7f00aa, 0x10, 0xff]);
        assert!(super::recorded_addresses("no addresses").is_empty());
    }
}
