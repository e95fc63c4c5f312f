//! SipHash-1-3 of a whole byte string at once, under a key chosen for each
//! run: the hash the family keys what it remembers by ([`keyed_hash`]).
//!
//! std's `RandomState` computes SipHash-1-3 too, through a `Hasher`
//! that takes its input in pieces: it keeps a tail between writes and
//! hashes a `[u8]`'s length as one more write. The family hashes every
//! string a model reads, millions in a project, each whole and once; one
//! call that reads the string in words and pads the last one costs about
//! a fifth less (the 10k corpus, cachegrind). The function is the
//! reference one, checked against std's SipHash-2-4 with the same code and
//! other round counts.

use std::sync::LazyLock;

/// The hash of `bytes` under this run's key: a keyed pseudo-random
/// function, so that no manifest can be written to make two texts share
/// a hash (they do by chance once in 2^64).
pub(crate) fn keyed_hash(bytes: impl AsRef<[u8]>) -> u64 {
    static KEY: LazyLock<(u64, u64)> = LazyLock::new(|| {
        use std::hash::BuildHasher;
        // A key std draws from the system's randomness for this process,
        // read out as two of its own hashes.
        let secret = std::hash::RandomState::new();
        (secret.hash_one(0u64), secret.hash_one(1u64))
    });
    let (k0, k1) = *KEY;
    sip::<1, 3>(k0, k1, bytes.as_ref())
}

/// SipHash-`C`-`D` of `bytes` under the key `(k0, k1)`.
fn sip<const C: usize, const D: usize>(k0: u64, k1: u64, bytes: &[u8]) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let compress = |v: &mut [u64; 4], word: u64| {
        v[3] ^= word;
        for _ in 0..C {
            round(v);
        }
        v[0] ^= word;
    };
    let (words, rest) = bytes.as_chunks::<8>();
    for word in words {
        compress(&mut v, u64::from_le_bytes(*word));
    }
    // The last word: the bytes left, then the length's low byte on top.
    // They end the string, so they are the high bytes of its last eight
    // when it has as many.
    let mut last = u64::from(bytes.len() as u8) << 56;
    if !rest.is_empty() {
        match bytes.last_chunk::<8>() {
            Some(tail) => last |= u64::from_le_bytes(*tail) >> (8 * (8 - rest.len())),
            None => {
                for (i, &byte) in rest.iter().enumerate() {
                    last |= u64::from(byte) << (8 * i);
                }
            }
        }
    }
    compress(&mut v, last);
    v[2] ^= 0xff;
    for _ in 0..D {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// One SipRound.
fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same code with two compression and four finalization rounds is
    /// std's `SipHasher` (SipHash-2-4), fed the bytes in one write: on
    /// every length up to three words past a block, under several keys.
    #[test]
    #[allow(deprecated)]
    fn it_is_siphash() {
        use std::hash::{Hasher, SipHasher};
        let bytes: Vec<u8> = (0..=255u8).map(|b| b.wrapping_mul(167)).collect();
        for (k0, k1) in [
            (0, 0),
            (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908),
            (u64::MAX, 7),
        ] {
            for len in 0..=bytes.len() {
                let mut std = SipHasher::new_with_keys(k0, k1);
                std.write(&bytes[..len]);
                assert_eq!(
                    sip::<2, 4>(k0, k1, &bytes[..len]),
                    std.finish(),
                    "{len} bytes"
                );
            }
        }
        // The paper's test vector: key 00..0f, message 00..0e.
        let message: Vec<u8> = (0..15).collect();
        assert_eq!(
            sip::<2, 4>(0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908, &message),
            0xa129_ca61_49be_45e5
        );
    }

    #[test]
    fn one_byte_more_or_other_changes_the_hash() {
        let hashes: std::collections::HashSet<u64> = ["", "\0", "\0\0", "a", "b", "ab", "ba"]
            .into_iter()
            .map(keyed_hash)
            .collect();
        assert_eq!(hashes.len(), 7);
    }
}
