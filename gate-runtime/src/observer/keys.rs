//! The digests targets and path scopes are remembered by ([`target_key`]): fixed size, no
//! secret stored, each computed once per event ([`EventKeys`]) and, for keys that serve many
//! events, remembered by the texts' bytes.

use std::collections::HashMap;

/// `a == b` for two digests of [`target_key`], comparing their first eight bytes inline first
/// (digests that differ almost always differ there).
pub(super) fn same_key(a: &str, b: &Key) -> bool {
    let head = |s: &[u8]| {
        s.get(..8)
            .map(|h| u64::from_ne_bytes(h.try_into().unwrap_or_default()))
    };
    let (a, b) = (a.as_bytes(), &b.0[..]);
    head(a) == head(b) && a == b
}

/// The digest a target is remembered by: fixed size, and no secret it carries is stored.
pub fn target_key(target: &str) -> String {
    Key::of(target.as_bytes()).as_str().to_string()
}

/// A [`target_key`] held inline: the first 24 hex digits of a SHA-256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Key(pub(super) [u8; 24]);

impl Key {
    /// The key of `data`.
    fn of(data: &[u8]) -> Key {
        use sha2::{Digest, Sha256};
        Key::hex(&Sha256::digest(data))
    }

    /// The key of the parts joined by `/` (what `Key::of(parts.join("/"))` gives, without
    /// building the joined text).
    fn of_joined<'a>(parts: impl Iterator<Item = &'a str>) -> Key {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for (i, part) in parts.enumerate() {
            if i > 0 {
                hasher.update(b"/");
            }
            hasher.update(part.as_bytes());
        }
        Key::hex(&hasher.finalize())
    }

    /// The first 12 bytes of `digest` in lowercase hex (`sha256_hex` truncated).
    fn hex(digest: &[u8]) -> Key {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [b'0'; 24];
        for (k, &b) in digest.iter().take(12).enumerate() {
            hex[2 * k] = HEX[usize::from(b >> 4)];
            hex[2 * k + 1] = HEX[usize::from(b & 15)];
        }
        Key(hex)
    }

    pub(super) fn as_str(&self) -> &str {
        // Hex digits are ASCII.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// The digests of one event's target and path scopes ([`target_key`]), each computed once and
/// shared by [`observe_with`](super::observe_with) and [`update_with`](super::update_with) (a
/// digest is the costliest part of both).
///
/// Keys used for many events ([`remember`](Self::remember), what the engine does from its
/// second evaluation on) also keep the digests of recent texts ([`DigestMemo`]): a replay
/// sees the same commands and directories again and again.
#[derive(Clone, Debug, Default)]
pub struct EventKeys {
    target: Option<Key>,
    /// (path index, depth, digest of the scope; `None` for an empty scope).
    scopes: Vec<(usize, usize, Option<Key>)>,
    /// Digests of earlier events' texts, once [`remember`](Self::remember) was called; not
    /// cleared between events.
    memo: Option<Box<DigestMemo>>,
}

impl EventKeys {
    /// Forget the digests (for the next event), keeping the room and the memo.
    pub fn clear(&mut self) {
        self.target = None;
        self.scopes.clear();
    }

    /// Keep recent texts' digests from now on (across [`clear`](Self::clear)), for keys that
    /// serve many events.
    pub fn remember(&mut self) {
        if self.memo.is_none() {
            self.memo = Some(Box::default());
        }
    }

    /// The digest of `target` (the event's target; the same text on every call).
    pub(super) fn target(&mut self, target: &str) -> Key {
        let memo = &mut self.memo;
        *self.target.get_or_insert_with(|| match memo {
            Some(memo) => memo.key(target.as_bytes()),
            None => Key::of(target.as_bytes()),
        })
    }

    /// The digest of the scope of `class.paths[i]` at `depth`, or `None` when it is empty.
    pub(super) fn scope(&mut self, i: usize, path: &str, cwd: &str, depth: usize) -> Option<Key> {
        let at = match self
            .scopes
            .iter()
            .position(|(pi, d, _)| *pi == i && *d == depth)
        {
            Some(at) => at,
            None => {
                let key = match &mut self.memo {
                    Some(memo) => memo.scope_key(path, cwd, depth),
                    None => scope_key(path, cwd, depth),
                };
                self.scopes.push((i, depth, key));
                self.scopes.len() - 1
            }
        };
        self.scopes[at].2
    }
}

/// Most texts a [`DigestMemo`] keeps, and most bytes of text.
const MEMO_ENTRIES: usize = 4096;
const MEMO_BYTES: usize = 1 << 20;
/// Longest text whose digest a [`DigestMemo`] keeps.
const MEMO_MAX_BYTES: usize = 4096;

/// The digests ([`Key::of`]) of recently digested texts, by the texts' bytes: a map that is
/// emptied when it is full ([`MEMO_ENTRIES`], [`MEMO_BYTES`]). An entry answers only for the
/// very bytes it was computed from, so a digest from the memo is always the digest of the
/// text asked for (`tests::a_memo_digest_is_the_digest`).
#[derive(Clone, Debug, Default)]
struct DigestMemo {
    /// Hashed with foldhash, seeded per process (a crafted stream cannot pick colliding
    /// texts in advance).
    digests: HashMap<Box<[u8]>, Key, foldhash::fast::RandomState>,
    /// The bytes of the texts in `digests`.
    bytes: usize,
    /// A scope's text, joined here before it is looked up (reused).
    joined: Vec<u8>,
}

impl DigestMemo {
    /// `Key::of(data)`, from the memo when `data` was digested recently.
    fn key(&mut self, data: &[u8]) -> Key {
        if data.len() > MEMO_MAX_BYTES {
            return Key::of(data);
        }
        if let Some(key) = self.digests.get(data) {
            return *key;
        }
        let key = Key::of(data);
        if self.digests.len() >= MEMO_ENTRIES || self.bytes + data.len() > MEMO_BYTES {
            self.digests.clear();
            self.bytes = 0;
        }
        self.digests.insert(data.into(), key);
        self.bytes += data.len();
        key
    }

    /// [`scope_key`], from the memo when the scope's text was digested recently.
    fn scope_key(&mut self, path: &str, cwd: &str, depth: usize) -> Option<Key> {
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        for (i, part) in scope_parts(path, cwd, depth).enumerate() {
            if i > 0 {
                joined.push(b'/');
            }
            joined.extend_from_slice(part.as_bytes());
        }
        // An empty scope has no parts (parts are never empty).
        let key = (!joined.is_empty()).then(|| self.key(&joined));
        self.joined = joined;
        key
    }
}

/// The components of the prefix of a path that names its scope: the first `depth`
/// directories under cwd, in order (the scope is their `/`-joined text).
fn scope_parts<'a>(path: &'a str, cwd: &str, depth: usize) -> impl Iterator<Item = &'a str> {
    let rel = path
        .strip_prefix(cwd)
        .filter(|_| !cwd.is_empty())
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(path);
    let parts = || rel.split('/').filter(|p| !p.is_empty());
    let n = parts().count();
    // The last component is the file itself; a scope is its directory prefix.
    let dirs = if n > 1 { n - 1 } else { n };
    parts().take(dirs.min(depth.max(1)))
}

/// The digest of the scope of `path` ([`scope_parts`] joined by `/`), or `None` when the
/// scope is empty; the scope text is not built.
fn scope_key(path: &str, cwd: &str, depth: usize) -> Option<Key> {
    let mut parts = scope_parts(path, cwd, depth).peekable();
    parts.peek()?;
    Some(Key::of_joined(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digest a target is remembered by is the first 24 hex digits of its SHA-256, as
    /// stored states have always held it.
    #[test]
    fn target_key_is_the_truncated_sha256_hex() {
        for t in ["", "ls -la", "rm -rf /", "über ✓", &"x".repeat(200)] {
            let mut want = gate_spec::hash::sha256_hex(t.as_bytes());
            want.truncate(24);
            assert_eq!(target_key(t), want, "{t:?}");
        }
    }

    /// The scope text as it was first built: components under cwd, the file dropped, the
    /// first `depth` kept, joined by `/`.
    fn scope_of(path: &str, cwd: &str, depth: usize) -> String {
        let rel = path
            .strip_prefix(cwd)
            .filter(|_| !cwd.is_empty())
            .map(|r| r.trim_start_matches('/'))
            .unwrap_or(path);
        let mut parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 {
            parts.pop();
        }
        parts.truncate(depth.max(1));
        parts.join("/")
    }

    proptest::proptest! {
        /// The streamed scope digest is the digest of the joined scope text, and is absent
        /// exactly when that text is empty.
        #[test]
        fn scope_key_is_the_digest_of_the_scope_text(
            path in "[a-c/.]{0,12}",
            cwd in "(/?[a-c/]{0,6})?",
            depth in 0usize..4,
        ) {
            let text = scope_of(&path, &cwd, depth);
            let want = (!text.is_empty()).then(|| target_key(&text));
            let got = scope_key(&path, &cwd, depth).map(|k| k.as_str().to_string());
            proptest::prop_assert_eq!(got, want);
        }

        /// A memo asked for the same few texts again and again, and for many others between
        /// (so that slots are shared and replaced), answers every text with its digest, and
        /// every scope with [`scope_key`].
        #[test]
        fn a_memo_digest_is_the_digest(
            texts in proptest::collection::vec("[a-c/.]{0,6}|[ -~]{0,40}", 1..24),
            others in 0usize..4200,
            long in 4090usize..4100,
            cwd in "(/?[a-c/]{0,6})?",
            depth in 0usize..4,
        ) {
            let mut memo = DigestMemo::default();
            let long = "y".repeat(long);
            for round in 0..3 {
                for (i, t) in texts.iter().enumerate() {
                    proptest::prop_assert_eq!(memo.key(t.as_bytes()), Key::of(t.as_bytes()));
                    proptest::prop_assert_eq!(
                        memo.scope_key(t, &cwd, depth),
                        scope_key(t, &cwd, depth)
                    );
                    let other = format!("{round}-{i}-{}", others * (i + 1));
                    proptest::prop_assert_eq!(
                        memo.key(other.as_bytes()),
                        Key::of(other.as_bytes())
                    );
                }
                for k in 0..others {
                    let other = format!("other {k}");
                    proptest::prop_assert_eq!(
                        memo.key(other.as_bytes()),
                        Key::of(other.as_bytes())
                    );
                }
                proptest::prop_assert_eq!(memo.key(long.as_bytes()), Key::of(long.as_bytes()));
            }
        }
    }

    /// An engine's keys remember digests from its second evaluation on, and a remembered
    /// digest is the digest.
    #[test]
    fn remembered_keys_are_the_keys() {
        let mut keys = EventKeys::default();
        let mut plain = EventKeys::default();
        for round in 0..2 {
            for (i, t) in ["ls", "git status", "src/a/b.rs", "", "a/b/c/d"]
                .iter()
                .enumerate()
            {
                keys.clear();
                plain.clear();
                assert_eq!(keys.target(t), plain.target(t), "round {round}, {t:?}");
                for depth in 0..4 {
                    assert_eq!(
                        keys.scope(i, t, "/w", depth),
                        plain.scope(i, t, "/w", depth),
                        "round {round}, {t:?} at {depth}"
                    );
                }
            }
            keys.remember();
        }
        assert!(keys.memo.as_ref().is_some_and(|m| !m.digests.is_empty()));
    }
}
