
/// Sensitive data (paper §4.3): a snippet can compute on it but never see it. Its content reaches no effect and no
/// hosted model: there is no `Display`, `Debug` shows nothing, comparing is not offered, and the only way in is
/// [`Classified::map`], whose closure safe mode checks is pure — it captures nothing from outside, prints nothing,
/// calls no host function, uses no capability, and has no hole except one routed to a model `lacuna.toml` marks
/// local (`[policy] local-models`). Only the host takes the content out ([`Classified::declassify`]).
pub struct Classified<T> {
    value: T,
}

impl<T> Classified<T> {
    /// Wraps `value`.
    pub fn new(value: T) -> Classified<T> {
        Classified { value }
    }

    /// A new classified value computed from the content by `f`, which safe mode checks is pure. If `f` panics,
    /// the panic's message (which could quote the content) is withheld.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Classified<U> {
        let value = self.value;
        Classified { value: withheld_panics(move || f(value)) }
    }

    /// [`Classified::map`] on a borrow of the content.
    pub fn map_ref<U>(&self, f: impl FnOnce(&T) -> U) -> Classified<U> {
        let value = &self.value;
        Classified { value: withheld_panics(move || f(value)) }
    }

    /// Both contents, still classified.
    pub fn zip<U>(self, other: Classified<U>) -> Classified<(T, U)> {
        Classified { value: (self.value, other.value) }
    }

    /// The content. Host only: safe mode denies it to snippets.
    pub fn declassify(self, _authority: cap::AmbientAuthority) -> T {
        self.value
    }
}

/// Runs `f`; a panic in it continues as a panic whose message says nothing of the content (a budget's stays as it
/// is, so the snippet still stops for it).
fn withheld_panics<R>(f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) if payload.is::<__budget::BudgetExceeded>() => std::panic::resume_unwind(payload),
        Err(_) => panic!("a closure given to Classified::map panicked (its message is withheld: it could quote classified data)"),
    }
}

impl<T: Clone> Clone for Classified<T> {
    fn clone(&self) -> Self {
        Classified { value: self.value.clone() }
    }
}

impl<T> fmt::Debug for Classified<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Classified(<withheld>)")
    }
}
