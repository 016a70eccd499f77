//! Run-time matching for the two glob flavours of the spec language (see
//! `gate_spec::pattern`): nothing is compiled, no regex is built in a hook process.

/// A *text glob*: `*` matches any run of characters (including `/`), `?` exactly one
/// character, every other character is literal. The whole of `s` must match.
///
/// Matched in place without allocating (every command pattern's program is tried against
/// every command, so this runs thousands of times per classification): a greedy scan that
/// backtracks only to the last `*`, linear in practice and at worst O(pattern × text).
pub fn text(pattern: &str, s: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), s.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // After a `*`: where the pattern resumes and the text position the `*` has reached.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'*') => {
                pi += 1;
                star = Some((pi, ti));
            }
            Some(b'?') => {
                pi += 1;
                ti += utf8_len(t[ti]);
            }
            // Literal bytes: both sides are UTF-8, so equal bytes keep `ti` on a character
            // boundary whenever `pi` is on one.
            Some(&c) if c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((resume, from)) => {
                    let mut from = from + utf8_len(t[from]);
                    // Where the pattern resumes with a literal byte, every start before the
                    // next occurrence of that byte fails on its first comparison: skip them.
                    // The byte is ASCII or a UTF-8 leading byte (the pattern resumes on a
                    // character boundary), so the skip lands on a character boundary.
                    if let Some(&c) = p.get(resume).filter(|c| !matches!(**c, b'*' | b'?')) {
                        match t[from..].iter().position(|&b| b == c) {
                            Some(k) => from += k,
                            None => return false,
                        }
                    }
                    star = Some((resume, from));
                    pi = resume;
                    ti = from;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Length of the UTF-8 sequence a leading byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// A *path glob*: `*` stays within one path component, `**` crosses components, `?` one
/// character, `[abc]` / `[a-z]` / `[!a]` a class, `{a,b}` alternatives. The whole of `path`
/// must match; no normalisation is done (callers pass paths as they want them compared).
/// The matcher is the spec language's own ([`gate_spec::pattern::path_glob`]), the one the
/// spec checker validates globs for.
pub fn path(pattern: &str, path: &str) -> bool {
    gate_spec::pattern::path_glob(pattern, path)
}

/// What a path must contain for a path glob to match it: a cheap test that rejects most
/// paths before [`path`] runs (see [`PathNeed::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathNeed<'a> {
    /// Every path the glob matches ends with this text.
    Suffix(&'a str),
    /// Every path the glob matches contains this text.
    Contains(&'a str),
    /// Nothing is known; only [`path`] can tell.
    Unknown,
}

impl<'a> PathNeed<'a> {
    /// The literal text a match of `pattern` needs, derived from the pattern alone.
    ///
    /// Why it is sound for `glob_match` (the matcher of [`path`]): outside braces, a literal
    /// pattern byte is only passed by matching an equal path byte, and the pattern position
    /// moves backwards only to a wildcard (`*`, `**`), so in the successful pass a run of
    /// literal bytes with no wildcard in it matches a contiguous, equal run of the path, and
    /// a run that ends the pattern ends the path. The one literal the matcher can skip is the
    /// `/` right after a `**` (`**/a` matches `a`), so runs are taken without their leading
    /// and trailing `/`. Patterns with a leading `!` (negation) or escapes are left `Unknown`,
    /// and only the part after the last character class is looked at. With braces, only the
    /// part before the first brace or comma counts (the matcher reaches the first `{` only
    /// through it, and skips pattern text only once inside braces), and no suffix is known;
    /// a character class before the first brace character may hold it, so then nothing is.
    pub fn of(pattern: &'a str) -> PathNeed<'a> {
        let b = pattern.as_bytes();
        if b.first() == Some(&b'!') || b.contains(&b'\\') {
            return PathNeed::Unknown;
        }
        let (head, braced) = match b.iter().position(|c| matches!(*c, b'{' | b'}' | b',')) {
            Some(at) => (&pattern[..at], true),
            None => (pattern, false),
        };
        // A `{`, `}` or `,` inside a character class (`*[!{]`) is no brace: the part before
        // it is no literal. A class before the first brace leaves the need unknown.
        if braced && head.contains('[') {
            return PathNeed::Unknown;
        }
        let tail_from = head
            .as_bytes()
            .iter()
            .rposition(|c| matches!(*c, b'[' | b']'))
            .map_or(0, |i| i + 1);
        let tail = &head[tail_from..];
        let ends_literal = !braced && !tail.ends_with(['*', '?']);
        let mut runs = tail.split(['*', '?']);
        if ends_literal {
            if let Some(last) = runs.next_back() {
                let last = last.trim_start_matches('/');
                if !last.is_empty() {
                    return PathNeed::Suffix(last);
                }
            }
        }
        match runs
            .map(|r| r.trim_matches('/'))
            .max_by_key(|r| r.len())
            .filter(|r| !r.is_empty())
        {
            Some(run) => PathNeed::Contains(run),
            None => PathNeed::Unknown,
        }
    }

    /// The bytes every path a path glob matches holds: the literal bytes of the part of
    /// `pattern` that [`PathNeed::of`] reads (after the last character class, before the
    /// first brace character), without `*`, `?` and `/` (the `/` after a `**` can be
    /// skipped); empty where that gives `Unknown` for its reasons (negation, escapes, a class
    /// before a brace). A 256-bit set, bit `b` for byte `b`. Sound by the argument of
    /// [`PathNeed::of`]: each of those bytes is passed only by matching an equal path byte.
    /// A path lacking one is not matched, nor is any suffix of it.
    pub fn literal_bytes(pattern: &str) -> [u64; 4] {
        let mut set = [0u64; 4];
        let b = pattern.as_bytes();
        if b.first() == Some(&b'!') || b.contains(&b'\\') {
            return set;
        }
        let (head, braced) = match b.iter().position(|c| matches!(*c, b'{' | b'}' | b',')) {
            Some(at) => (&b[..at], true),
            None => (b, false),
        };
        if braced && head.contains(&b'[') {
            return set;
        }
        let tail_from = head
            .iter()
            .rposition(|c| matches!(*c, b'[' | b']'))
            .map_or(0, |i| i + 1);
        for &c in &head[tail_from..] {
            if !matches!(c, b'*' | b'?' | b'/') {
                set[usize::from(c >> 6)] |= 1 << (c & 63);
            }
        }
        set
    }

    /// False only when no path glob with this need can match `path` (nor any suffix of it).
    pub fn admits(self, path: &str) -> bool {
        match self {
            // The last bytes first: most paths fail there, without a call to compare.
            PathNeed::Suffix(s) => match s.as_bytes().last() {
                Some(last) => path.as_bytes().last() == Some(last) && path.ends_with(s),
                None => true,
            },
            PathNeed::Contains(s) => contains(path.as_bytes(), s.as_bytes()),
            PathNeed::Unknown => true,
        }
    }
}

/// Every byte of `need` (a set from [`PathNeed::literal_bytes`]) occurs in `path`.
pub fn holds_bytes(need: &[u64; 4], path: &str) -> bool {
    if need.iter().all(|w| *w == 0) {
        return true;
    }
    bytes_within(need, &path_bytes(path))
}

/// The set of the bytes of `path` (bit `b` for byte `b`), for [`bytes_within`]: computed
/// once, it serves the tests of many globs against the same path.
pub fn path_bytes(path: &str) -> [u64; 4] {
    byte_set(path.as_bytes())
}

/// The set of the bytes of `bytes`, bit `b & 63` of word `b >> 6` for byte `b`. Four
/// bytes in a row go to four sets, merged at the end: one set alone is a chain of loads and
/// stores of the same word (most text bytes fall in one word), each waiting for the last.
pub fn byte_set(bytes: &[u8]) -> [u64; 4] {
    let mut sets = [[0u64; 4]; 4];
    let mut quads = bytes.chunks_exact(4);
    for quad in &mut quads {
        for (set, &c) in sets.iter_mut().zip(quad) {
            set[usize::from(c >> 6)] |= 1 << (c & 63);
        }
    }
    for &c in quads.remainder() {
        sets[0][usize::from(c >> 6)] |= 1 << (c & 63);
    }
    let mut out = [0u64; 4];
    for set in &sets {
        for (o, w) in out.iter_mut().zip(set) {
            *o |= w;
        }
    }
    out
}

/// Every byte of `need` is in `have`: [`holds_bytes`] of a path whose [`path_bytes`] are
/// `have`.
pub fn bytes_within(need: &[u64; 4], have: &[u64; 4]) -> bool {
    need.iter().zip(have).all(|(n, h)| n & !h == 0)
}

/// Substring test for short needles and haystacks (paths): a first-byte scan, then a compare.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if hay.len() < needle.len() {
        return false;
    }
    let last_start = hay.len() - needle.len();
    let mut i = 0;
    while i <= last_start {
        match hay[i..=last_start].iter().position(|&c| c == first) {
            None => return false,
            Some(k) => {
                i += k;
                if &hay[i + 1..i + needle.len()] == rest {
                    return true;
                }
                i += 1;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A brace character inside a class is not a brace (found by `tests/path_need.rs`).
    #[test]
    fn a_brace_character_in_a_class_gives_no_need() {
        for (g, p) in [("*[!{]", ","), ("a[,]b{c,d}", "a,bc"), ("*[}]", "}")] {
            assert!(path(g, p), "{g} {p}");
            assert!(PathNeed::of(g).admits(p), "{g} {p}");
        }
    }

    #[test]
    fn text_star_crosses_slashes() {
        assert!(text("mcp__*", "mcp__github__create_issue"));
        assert!(text("/*", "/etc/passwd"));
        assert!(text("~*", "~/x"));
        assert!(text("+*", "+main"));
        assert!(!text("+*", "main"));
        assert!(text("Bas?", "Bash"));
        assert!(!text("Bas?", "Bas"));
        assert!(text("*:(){*", ":(){ :|:& };:"));
        assert!(!text("rm", "rmdir"));
    }

    #[test]
    fn text_handles_multibyte_characters() {
        assert!(text("?", "é"));
        assert!(!text("??", "é"));
        assert!(text("*é*", "caféine"));
        assert!(text("caf?ine", "caféine"));
        assert!(text("**", ""));
        assert!(!text("?", ""));
        assert!(text("a*b*c", "axxbyyc"));
        assert!(!text("a*b*c", "axxbyy"));
    }

    proptest::proptest! {
        /// The in-place matcher agrees with the `wildmatch` crate it replaced.
        #[test]
        fn text_agrees_with_wildmatch(
            pattern in "[ab/é*?]{0,8}",
            s in "[ab/é]{0,10}",
        ) {
            proptest::prop_assert_eq!(
                text(&pattern, &s),
                wildmatch::WildMatch::new(&pattern).matches(&s)
            );
        }
    }

    proptest::proptest! {
        /// A suffix need admits exactly the paths that end with the suffix.
        #[test]
        fn suffix_need_is_ends_with(suffix in "[a/é.]{0,3}", p in "[a/é.]{0,6}") {
            proptest::prop_assert_eq!(PathNeed::Suffix(&suffix).admits(&p), p.ends_with(&*suffix));
        }
    }

    proptest::proptest! {
        /// The set built four bytes at a time is the set of the bytes.
        #[test]
        fn byte_set_is_the_set_of_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            let mut set = [0u64; 4];
            for &c in &bytes {
                set[usize::from(c >> 6)] |= 1 << (c & 63);
            }
            proptest::prop_assert_eq!(byte_set(&bytes), set);
        }

        /// A path's byte set, computed once, answers the literal-bytes test of every glob:
        /// each byte the glob needs occurs in the path.
        #[test]
        fn path_bytes_answer_holds_bytes(glob in "[a.*/{,é]{0,8}", p in "[a./é]{0,8}") {
            let need = PathNeed::literal_bytes(&glob);
            let direct = (0..=255u8)
                .filter(|&b| need[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
                .all(|b| p.as_bytes().contains(&b));
            proptest::prop_assert_eq!(bytes_within(&need, &path_bytes(&p)), direct);
            proptest::prop_assert_eq!(holds_bytes(&need, &p), direct);
        }
    }

    #[test]
    fn text_brackets_are_literal() {
        assert!(text("[ab]", "[ab]"));
        assert!(!text("[ab]", "a"));
    }

    #[test]
    fn path_star_stays_in_component() {
        assert!(path("src/*.rs", "src/lib.rs"));
        assert!(!path("src/*.rs", "src/a/lib.rs"));
        assert!(path("src/**/*.rs", "src/a/b/lib.rs"));
        assert!(path("**/.env", "app/.env"));
        assert!(path("**/.env", ".env"));
        assert!(path("/etc/**", "/etc/ssh/sshd_config"));
        assert!(path("*.{yml,yaml}", "ci.yaml"));
        assert!(path("file[0-9].txt", "file7.txt"));
        assert!(!path("file[!0-9].txt", "file7.txt"));
        assert!(path("?.md", "a.md"));
        assert!(!path("/etc/**", "/etcx/passwd"));
    }
}
