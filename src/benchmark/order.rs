//! `--random` (issue 32): the order of a dataset's transfers as a keyed bijection of
//! `0..n`, evaluated per transfer in O(1) without memory: three keyed rounds of bijections
//! of the smallest bit domain `0..2^b` holding `n` (add a key, multiply by an odd key,
//! xor-shift: each invertible modulo `2^b`), walked until the value lands in `0..n`
//! ("cycle walking": Black and Rogaway, "Ciphers with Arbitrary Finite Domains", CT-RSA
//! 2002, §3). The domain is less than `2n`, so a transfer costs fewer than 2 walks on
//! average (about 15 instructions each); the key is made once per dataset, outside the
//! raw timers, and nothing is allocated. Not a cipher: an order that read-ahead cannot
//! follow, the same for the same seed.

/// Which transfer is made `k`-th: a bijection of `0..n` keyed by the run's seed, the
/// rank, the file, the dataset and the phase ([`Order::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    /// Transfers of the dataset.
    n: u64,
    /// `2^b - 1`, the domain's mask.
    mask: u64,
    /// The xor-shift, `ceil(b / 2)` bits (at least 1).
    shift: u32,
    /// The round keys: an addend and an odd multiplier per round.
    keys: [(u64, u64); 3],
}

/// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014): a bijective 64-bit mix, for the keys.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Order {
    /// The order of `n` transfers for `seed`, `rank`, `file` (1-based), `dataset`
    /// (0-based) and the phase (`read`): each of these gives another permutation.
    pub fn new(n: u64, seed: u64, rank: u32, file: u64, dataset: u64, read: bool) -> Order {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let mut k = mix(seed ^ mix(u64::from(rank) ^ mix(file ^ mix(dataset))));
        k = mix(k ^ u64::from(read));
        let keys = [1u64, 2, 3].map(|i| {
            let a = mix(k.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
            (a, mix(a) | 1)
        });
        Order {
            n,
            mask: if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
            shift: bits.div_ceil(2).max(1),
            keys,
        }
    }

    /// Transfers ordered (`n`).
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether there is no transfer.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// One pass of the rounds over `0..2^b`: each step is a bijection modulo `2^b`.
    #[inline(always)]
    fn encrypt(&self, mut x: u64) -> u64 {
        for (add, mul) in self.keys {
            x = x.wrapping_add(add).wrapping_mul(mul) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }

    /// The transfer made `k`-th (`k < n`): a bijection of `0..n`.
    #[inline(always)]
    pub fn at(&self, k: u64) -> u64 {
        let mut x = self.encrypt(k);
        while x >= self.n {
            x = self.encrypt(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transfer_once_and_shuffled() {
        for n in [1u64, 2, 3, 5, 16, 17, 100, 1000, 4096, 65537] {
            let o = Order::new(n, 42, 1, 1, 0, false);
            let mut seen = vec![false; n as usize];
            for k in 0..n {
                let j = o.at(k);
                assert!(j < n && !seen[j as usize], "n {n}: {k} -> {j}");
                seen[j as usize] = true;
            }
            if n >= 16 {
                let fixed = (0..n).filter(|&k| o.at(k) == k).count();
                assert!(fixed < n as usize / 4, "n {n}: {fixed} in place");
            }
        }
    }

    #[test]
    fn the_key_decides() {
        let list = |o: Order| (0..64).map(|k| o.at(k)).collect::<Vec<_>>();
        let a = list(Order::new(64, 7, 0, 1, 0, false));
        assert_eq!(a, list(Order::new(64, 7, 0, 1, 0, false)));
        for other in [
            Order::new(64, 8, 0, 1, 0, false),
            Order::new(64, 7, 1, 1, 0, false),
            Order::new(64, 7, 0, 2, 0, false),
            Order::new(64, 7, 0, 1, 1, false),
            Order::new(64, 7, 0, 1, 0, true),
        ] {
            assert_ne!(a, list(other));
        }
    }
}
