
/// Capabilities: values that carry authority over a part of the world. Under safe mode a snippet reaches files,
/// the network, environment variables and the clock only through the capability values in its scope, through
/// their methods, and only what each one covers.
///
/// Only the host makes capabilities: every constructor needs an [`AmbientAuthority`], which only
/// [`ambient_authority`] makes, and safe mode denies both (and every constructor, and the scoped grants
/// [`with_dir`] and friends) to snippets. A capability carries a lifetime `'s`: the host's own are `'static`, a
/// scoped grant's ([`with_dir`]) live only as long as the grant, so a snippet cannot smuggle one out — returning a
/// closure that captures it, or storing it anywhere longer-lived, is a compile error.
pub mod cap {
    use std::fmt;
    use std::io::{ErrorKind, Read, Write};
    use std::marker::PhantomData;
    use std::path::{Component, Path, PathBuf};
    use std::time::{Duration, Instant, SystemTime};

    /// Proof of ambient authority: the host's, never a snippet's (safe mode denies naming it).
    #[derive(Clone, Copy)]
    pub struct AmbientAuthority(());

    impl fmt::Debug for AmbientAuthority {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("AmbientAuthority")
        }
    }

    /// The host's ambient authority, to make capabilities with. Denied to snippets.
    pub fn ambient_authority() -> AmbientAuthority {
        AmbientAuthority(())
    }

    /// Invariant in `'s`: a capability of one scope is never one of a longer scope.
    type Scope<'s> = PhantomData<fn(&'s ()) -> &'s ()>;

    /// Why a capability refused, or what failed behind it.
    #[derive(Debug)]
    #[non_exhaustive]
    pub enum CapError {
        /// Outside what the capability covers: a path escaping its directory, an endpoint or variable it does
        /// not name.
        Denied { what: String, why: &'static str },
        /// An environment variable the capability names is not set (or not UTF-8).
        Missing { name: String },
        /// The operation itself failed.
        Io(std::io::Error),
    }

    impl fmt::Display for CapError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                CapError::Denied { what, why } => write!(f, "`{what}` is not covered by this capability: {why}"),
                CapError::Missing { name } => write!(f, "environment variable `{name}` is not set"),
                CapError::Io(e) => write!(f, "{e}"),
            }
        }
    }

    impl std::error::Error for CapError {}

    impl From<std::io::Error> for CapError {
        fn from(e: std::io::Error) -> Self {
            CapError::Io(e)
        }
    }

    fn denied(what: impl Into<String>, why: &'static str) -> CapError {
        CapError::Denied { what: what.into(), why }
    }

    /// A directory subtree. Paths are relative to it; absolute paths, `..` above its root and symbolic links
    /// anywhere below it are refused, so nothing outside the subtree is reached through it. (A path is checked
    /// and then used: a process that can change the subtree meanwhile can race the check.)
    pub struct Dir<'s> {
        root: PathBuf,
        scope: Scope<'s>,
    }

    impl fmt::Debug for Dir<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Dir({})", self.root.display())
        }
    }

    impl Dir<'static> {
        /// The directory at `path` (which must exist) as a capability. Host only.
        pub fn open_ambient(path: impl AsRef<Path>, _authority: AmbientAuthority) -> Result<Self, CapError> {
            let root = std::fs::canonicalize(path.as_ref())?;
            if !root.is_dir() {
                return Err(CapError::Io(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("{} is not a directory", root.display()),
                )));
            }
            Ok(Dir { root, scope: PhantomData })
        }
    }

    impl<'s> Dir<'s> {
        /// Where `path` is under the root, refused if it would leave the subtree.
        fn resolve(&self, path: &str) -> Result<PathBuf, CapError> {
            let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
            for component in Path::new(path).components() {
                match component {
                    Component::Prefix(_) | Component::RootDir => {
                        return Err(denied(path, "absolute paths leave the directory"));
                    }
                    Component::CurDir => {}
                    Component::ParentDir => {
                        if parts.pop().is_none() {
                            return Err(denied(path, "`..` leads above the directory"));
                        }
                    }
                    Component::Normal(part) => parts.push(part),
                }
            }
            let mut full = self.root.clone();
            for part in parts {
                full.push(part);
                match std::fs::symlink_metadata(&full) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return Err(denied(path, "symbolic links may lead outside the directory"));
                    }
                    Ok(_) => {}
                    // The rest does not exist yet (a file about to be written): nothing to follow.
                    Err(_) => {}
                }
            }
            Ok(full)
        }

        /// The whole file as text.
        pub fn read_to_string(&self, path: &str) -> Result<String, CapError> {
            Ok(std::fs::read_to_string(self.resolve(path)?)?)
        }

        /// The whole file as bytes.
        pub fn read(&self, path: &str) -> Result<Vec<u8>, CapError> {
            Ok(std::fs::read(self.resolve(path)?)?)
        }

        /// Creates or replaces the file.
        pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> Result<(), CapError> {
            Ok(std::fs::write(self.resolve(path)?, contents)?)
        }

        /// Appends to the file, creating it if needed.
        pub fn append(&self, path: &str, contents: impl AsRef<[u8]>) -> Result<(), CapError> {
            let mut file = std::fs::OpenOptions::new().append(true).create(true).open(self.resolve(path)?)?;
            Ok(file.write_all(contents.as_ref())?)
        }

        /// Whether something is at `path` (false for paths the capability refuses).
        pub fn exists(&self, path: &str) -> bool {
            self.resolve(path).is_ok_and(|p| p.exists())
        }

        /// Whether `path` is a directory (false for paths the capability refuses).
        pub fn is_dir(&self, path: &str) -> bool {
            self.resolve(path).is_ok_and(|p| p.is_dir())
        }

        /// The names of the entries of the directory at `path` (`"."` for the root), sorted.
        pub fn entries(&self, path: &str) -> Result<Vec<String>, CapError> {
            let mut names = Vec::new();
            for entry in std::fs::read_dir(self.resolve(path)?)? {
                names.push(entry?.file_name().to_string_lossy().into_owned());
            }
            names.sort();
            Ok(names)
        }

        /// Creates the directory and its parents.
        pub fn create_dir_all(&self, path: &str) -> Result<(), CapError> {
            Ok(std::fs::create_dir_all(self.resolve(path)?)?)
        }

        /// Removes a file.
        pub fn remove_file(&self, path: &str) -> Result<(), CapError> {
            Ok(std::fs::remove_file(self.resolve(path)?)?)
        }

        /// A subdirectory as a capability of its own, no wider than this one and of the same scope.
        pub fn open_dir(&self, path: &str) -> Result<Dir<'s>, CapError> {
            let root = self.resolve(path)?;
            if !root.is_dir() {
                return Err(CapError::Io(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("{path} is not a directory"),
                )));
            }
            Ok(Dir { root, scope: PhantomData })
        }
    }

    /// One endpoint pattern: a host (`*` for any, `*.example.com` for its subdomains) and a port (`*` for any).
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Endpoint {
        host: String,
        port: Option<u16>,
    }

    impl Endpoint {
        fn parse(pattern: &str) -> Result<Endpoint, CapError> {
            let (host, port) = pattern
                .rsplit_once(':')
                .ok_or_else(|| denied(pattern, "an endpoint pattern is `host:port`, `host:*` or `*.domain:port`"))?;
            let port = match port {
                "*" => None,
                p => Some(p.parse().map_err(|_| denied(pattern, "the port is not a number or `*`"))?),
            };
            if host.is_empty() {
                return Err(denied(pattern, "the host is empty"));
            }
            Ok(Endpoint { host: host.to_ascii_lowercase(), port })
        }

        fn matches(&self, host: &str, port: u16) -> bool {
            let host = host.to_ascii_lowercase();
            let host_ok = match self.host.strip_prefix("*.") {
                _ if self.host == "*" => true,
                Some(domain) => host.len() > domain.len() && host.ends_with(domain) && {
                    let dot = host.len() - domain.len() - 1;
                    host.as_bytes()[dot] == b'.'
                },
                None => host == self.host,
            };
            host_ok && self.port.is_none_or(|p| p == port)
        }
    }

    /// Network endpoints by host and port pattern. The host name is matched as written, before any DNS lookup.
    pub struct Net<'s> {
        /// Every layer must allow an endpoint: a narrowed capability keeps its parent's layers.
        layers: Vec<Vec<Endpoint>>,
        scope: Scope<'s>,
    }

    impl fmt::Debug for Net<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let last = self.layers.last().map(|l| l.iter().map(|e| e.host.as_str()).collect::<Vec<_>>());
            write!(f, "Net({:?})", last.unwrap_or_default())
        }
    }

    impl Net<'static> {
        /// Endpoints matching any of `patterns` (`"api.example.com:443"`, `"127.0.0.1:*"`, `"*.example.com:80"`).
        /// Host only.
        pub fn from_ambient(patterns: &[&str], _authority: AmbientAuthority) -> Result<Self, CapError> {
            let layer = patterns.iter().map(|p| Endpoint::parse(p)).collect::<Result<Vec<_>, _>>()?;
            Ok(Net { layers: vec![layer], scope: PhantomData })
        }
    }

    impl<'s> Net<'s> {
        /// Whether `host:port` is covered.
        pub fn allows(&self, host: &str, port: u16) -> bool {
            self.layers.iter().all(|layer| layer.iter().any(|e| e.matches(host, port)))
        }

        /// A narrower capability: endpoints both this one and `patterns` cover.
        pub fn narrow(&self, patterns: &[&str]) -> Result<Net<'s>, CapError> {
            let layer = patterns.iter().map(|p| Endpoint::parse(p)).collect::<Result<Vec<_>, _>>()?;
            let mut layers = self.layers.clone();
            layers.push(layer);
            Ok(Net { layers, scope: PhantomData })
        }

        /// A TCP connection to `address` (`host:port`), if covered.
        pub fn connect(&self, address: &str) -> Result<Connection<'s>, CapError> {
            let (host, port) = address.rsplit_once(':').ok_or_else(|| denied(address, "an address is `host:port`"))?;
            let port: u16 = port.parse().map_err(|_| denied(address, "the port is not a number"))?;
            let host = host.trim_start_matches('[').trim_end_matches(']');
            if !self.allows(host, port) {
                return Err(denied(address, "no endpoint pattern of this capability matches it"));
            }
            let mut last = None;
            for address in std::net::ToSocketAddrs::to_socket_addrs(&(host, port))? {
                let attempt = within_budget(|span| match span {
                    Some(span) => std::net::TcpStream::connect_timeout(&address, span),
                    None => std::net::TcpStream::connect(address),
                });
                match attempt {
                    Ok(stream) => return Ok(Connection { stream, scope: PhantomData }),
                    Err(e) => last = Some(e),
                }
            }
            Err(last.unwrap_or_else(|| std::io::Error::other(format!("`{address}` resolves to no address"))).into())
        }

        /// Connects to `address`, sends `request`, closes the sending side and returns everything received.
        pub fn request(&self, address: &str, request: &[u8]) -> Result<Vec<u8>, CapError> {
            let mut connection = self.connect(address)?;
            connection.write_all(request)?;
            connection.stream.shutdown(std::net::Shutdown::Write)?;
            let mut reply = Vec::new();
            connection.read_to_end(&mut reply)?;
            Ok(reply)
        }
    }

    /// An open TCP connection made through a [`Net`]: `std::io::Read` and `Write`.
    pub struct Connection<'s> {
        stream: std::net::TcpStream,
        scope: Scope<'s>,
    }

    impl fmt::Debug for Connection<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Connection({:?})", self.stream.peer_addr().ok())
        }
    }

    /// Runs a blocking network call given how long it may block (`None`: as long as it takes, when the run has no
    /// deadline), again while it times out: each attempt lasts until the run's deadline (a slice in code left
    /// behind), after which the next look at the budget stops the thread, so a peer that never answers ends as the
    /// hole's time error instead of blocking the host.
    fn within_budget<T>(mut attempt: impl FnMut(Option<Duration>) -> std::io::Result<T>) -> std::io::Result<T> {
        let mut wait = crate::__budget::Wait::new();
        loop {
            let span = wait.span().map(|span| span.max(Duration::from_millis(1)));
            match attempt(span) {
                Err(e) if span.is_some() && matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                done => return done,
            }
        }
    }

    impl Read for Connection<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let stream = &mut self.stream;
            within_budget(|span| {
                stream.set_read_timeout(span)?;
                stream.read(buf)
            })
        }
    }

    impl Write for Connection<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let stream = &mut self.stream;
            within_budget(|span| {
                stream.set_write_timeout(span)?;
                stream.write(buf)
            })
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.stream.flush()
        }
    }

    /// Named environment variables, read only.
    pub struct Env<'s> {
        names: Vec<String>,
        scope: Scope<'s>,
    }

    impl fmt::Debug for Env<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Env({:?})", self.names)
        }
    }

    impl Env<'static> {
        /// The variables `names`. Host only.
        pub fn from_ambient(names: &[&str], _authority: AmbientAuthority) -> Self {
            Env { names: names.iter().map(|n| (*n).to_owned()).collect(), scope: PhantomData }
        }
    }

    impl<'s> Env<'s> {
        /// The value of `name`, if the capability names it and it is set.
        pub fn var(&self, name: &str) -> Result<String, CapError> {
            if !self.names.iter().any(|n| n == name) {
                return Err(denied(name, "this capability does not name the variable"));
            }
            std::env::var(name).map_err(|_| CapError::Missing { name: name.to_owned() })
        }

        /// The names this capability covers.
        pub fn names(&self) -> Vec<String> {
            self.names.clone()
        }
    }

    /// A moment read from a [`Clock`]; comparing and subtracting moments needs no clock.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct Stamp(Instant);

    impl Stamp {
        /// The time from `earlier` to this moment (zero if `earlier` is later).
        pub fn since(&self, earlier: Stamp) -> Duration {
            self.0.saturating_duration_since(earlier.0)
        }
    }

    /// The clock: reading the time and sleeping.
    pub struct Clock<'s> {
        scope: Scope<'s>,
    }

    impl fmt::Debug for Clock<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("Clock")
        }
    }

    impl Clock<'static> {
        /// The clock. Host only.
        pub fn from_ambient(_authority: AmbientAuthority) -> Self {
            Clock { scope: PhantomData }
        }
    }

    impl<'s> Clock<'s> {
        /// Now, on the monotonic clock.
        pub fn now(&self) -> Stamp {
            Stamp(Instant::now())
        }

        /// Time passed since `start`.
        pub fn elapsed(&self, start: Stamp) -> Duration {
            self.now().since(start)
        }

        /// Wall-clock time since the Unix epoch.
        pub fn unix_time(&self) -> Duration {
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default()
        }

        /// Sleeps; a sleep longer than the snippet's time budget ends with it (as `thread::sleep` in a snippet).
        pub fn sleep(&self, duration: Duration) {
            crate::__wait::slept(duration)
        }
    }

    /// Confinement by scope: `f` gets the directory at `path` as a capability that lives only during the call,
    /// so nothing `f` returns can hold it. Host only.
    pub fn with_dir<R>(path: impl AsRef<Path>, f: impl for<'s> FnOnce(&Dir<'s>) -> R) -> Result<R, CapError> {
        let dir = Dir::open_ambient(path, ambient_authority())?;
        Ok(f(&Dir { root: dir.root, scope: PhantomData }))
    }

    /// Confinement by scope for endpoints: see [`with_dir`]. Host only.
    pub fn with_net<R>(patterns: &[&str], f: impl for<'s> FnOnce(&Net<'s>) -> R) -> Result<R, CapError> {
        let net = Net::from_ambient(patterns, ambient_authority())?;
        Ok(f(&Net { layers: net.layers, scope: PhantomData }))
    }

    /// Confinement by scope for environment variables: see [`with_dir`]. Host only.
    pub fn with_env<R>(names: &[&str], f: impl for<'s> FnOnce(&Env<'s>) -> R) -> R {
        let env = Env::from_ambient(names, ambient_authority());
        f(&Env { names: env.names, scope: PhantomData })
    }

    /// Confinement by scope for the clock: see [`with_dir`]. Host only.
    pub fn with_clock<R>(f: impl for<'s> FnOnce(&Clock<'s>) -> R) -> R {
        f(&Clock { scope: PhantomData })
    }
}
