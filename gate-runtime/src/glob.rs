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
                    let from = from + utf8_len(t[from]);
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
pub fn path(pattern: &str, path: &str) -> bool {
    glob_match::glob_match(pattern, path)
}

#[cfg(test)]
mod tests {
    use super::*;

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
