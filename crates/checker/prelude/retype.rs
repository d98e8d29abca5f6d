
#[doc(hidden)]
pub mod __retype {
    //! A host binding whose type the snippet settled (an unsuffixed literal: `let workers = 4;` is `i32` in the
    //! host alone and `usize` once the snippet divides a length by it) reaches the snippet converted: numbers with
    //! `as` (the value is the literal's, which fits), containers element by element. What the snippet writes goes
    //! back the same way.
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
    use std::hash::Hash;

    /// A value as the same shape with other number types.
    pub trait Retype<T> {
        fn retype(&self) -> T;
    }

    macro_rules! numbers {
        ($($from:ty),*) => { $( numbers!(@to $from; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64); )* };
        (@to $from:ty; $($to:ty),*) => { $(
            impl Retype<$to> for $from {
                fn retype(&self) -> $to {
                    *self as $to
                }
            }
        )* };
    }
    numbers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

    macro_rules! same {
        ($($t:ty),*) => { $(
            impl Retype<$t> for $t {
                fn retype(&self) -> $t {
                    self.clone()
                }
            }
        )* };
    }
    same!(bool, char, String, ());

    impl<'a> Retype<&'a str> for &'a str {
        fn retype(&self) -> &'a str {
            self
        }
    }

    impl<A: Retype<B>, B> Retype<Vec<B>> for Vec<A> {
        fn retype(&self) -> Vec<B> {
            self.iter().map(Retype::retype).collect()
        }
    }

    impl<A: Retype<B>, B> Retype<VecDeque<B>> for VecDeque<A> {
        fn retype(&self) -> VecDeque<B> {
            self.iter().map(Retype::retype).collect()
        }
    }

    impl<A: Retype<B>, B> Retype<Option<B>> for Option<A> {
        fn retype(&self) -> Option<B> {
            self.as_ref().map(Retype::retype)
        }
    }

    impl<A: Retype<B>, B, const N: usize> Retype<[B; N]> for [A; N] {
        fn retype(&self) -> [B; N] {
            std::array::from_fn(|i| self[i].retype())
        }
    }

    impl<A: Retype<B>, B: Ord> Retype<BTreeSet<B>> for BTreeSet<A> {
        fn retype(&self) -> BTreeSet<B> {
            self.iter().map(Retype::retype).collect()
        }
    }

    impl<A: Retype<B>, B: Eq + Hash> Retype<HashSet<B>> for HashSet<A> {
        fn retype(&self) -> HashSet<B> {
            self.iter().map(Retype::retype).collect()
        }
    }

    impl<K: Retype<K2>, V: Retype<V2>, K2: Eq + Hash, V2> Retype<HashMap<K2, V2>> for HashMap<K, V> {
        fn retype(&self) -> HashMap<K2, V2> {
            self.iter().map(|(k, v)| (k.retype(), v.retype())).collect()
        }
    }

    impl<K: Retype<K2>, V: Retype<V2>, K2: Ord, V2> Retype<BTreeMap<K2, V2>> for BTreeMap<K, V> {
        fn retype(&self) -> BTreeMap<K2, V2> {
            self.iter().map(|(k, v)| (k.retype(), v.retype())).collect()
        }
    }

    macro_rules! tuples {
        ($(($($a:ident $b:ident $i:tt),+)),*) => { $(
            impl<$($a: Retype<$b>, $b),+> Retype<($($b,)+)> for ($($a,)+) {
                fn retype(&self) -> ($($b,)+) {
                    ($(self.$i.retype(),)+)
                }
            }
        )* };
    }
    tuples!((A0 B0 0), (A0 B0 0, A1 B1 1), (A0 B0 0, A1 B1 1, A2 B2 2), (A0 B0 0, A1 B1 1, A2 B2 2, A3 B3 3));
}
