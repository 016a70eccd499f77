//! Run-time matching for the two glob flavours of the spec language (see
//! `gate_spec::pattern`): nothing is compiled, no regex is built in a hook process.

/// A *text glob*: `*` matches any run of characters (including `/`), `?` exactly one
/// character, every other character is literal. The whole of `s` must match.
pub fn text(pattern: &str, s: &str) -> bool {
    wildmatch::WildMatch::new(pattern).matches(s)
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
