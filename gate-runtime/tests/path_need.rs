//! The literal need of a path glob (`glob::PathNeed`) rejects only paths the glob cannot
//! match: for every path glob of every shipped spec, and for generated globs, on paths built
//! from the globs' own pieces (so that many of them match) and on random paths, the
//! observer's `path_matches` (need first) equals `path_matches_plain` (the glob matcher on the
//! path and on its working-directory-relative form), and a path lacking one of the glob's
//! literal bytes (`PathNeed::literal_bytes`) is matched in neither form.

use gate_runtime::glob::{self, PathNeed};
use gate_runtime::observer::{path_matches, path_matches_plain};
use proptest::prelude::*;

/// Every path glob of the shipped specs: rule `paths` and `except_paths`, checkpoint
/// `targets` (matched as paths too).
fn shipped_globs() -> Vec<String> {
    let mut out = Vec::new();
    for compiled in gate_specs::ALL {
        let spec = compiled.ir();
        for rule in &spec.rules {
            out.extend(rule.paths.iter().map(|g| g.text.to_string()));
            out.extend(rule.except_paths.iter().map(|g| g.text.to_string()));
        }
        for c in &spec.checkpoints {
            out.extend(c.targets.iter().map(|g| g.text.to_string()));
        }
    }
    out.sort();
    out.dedup();
    assert!(out.len() > 20, "the shipped specs have path globs");
    out
}

/// Path pieces: the literal parts of every shipped glob plus a few path words.
fn pieces() -> Vec<String> {
    let mut out: Vec<String> = shipped_globs()
        .iter()
        .flat_map(|g| {
            g.split(['*', '?', '{', '}', ',', '[', ']'])
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|p| !p.is_empty())
        .collect();
    for w in [
        "/",
        "/home/u/proj",
        "src",
        "a",
        ".",
        "..",
        "x.rs",
        "README.md",
        "~",
        "-",
        "é",
        "id_rsa",
    ] {
        out.push(w.to_string());
    }
    out.sort();
    out.dedup();
    out
}

fn check(g: &str, path: &str, cwd: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        path_matches(g, path, cwd),
        path_matches_plain(g, path, cwd),
        "glob {:?} path {:?} cwd {:?}",
        g,
        path,
        cwd
    );
    if !PathNeed::of(g).admits(path) {
        prop_assert!(!glob::path(g, path), "need of {:?} rejected {:?}", g, path);
    }
    // The literal bytes reject only paths the glob matches in neither form.
    if !glob::holds_bytes(&PathNeed::literal_bytes(g), path) {
        prop_assert!(
            !path_matches_plain(g, path, cwd),
            "bytes of {:?} rejected {:?} (cwd {:?})",
            g,
            path,
            cwd
        );
    }
    Ok(())
}

#[test]
fn shipped_globs_have_needs() {
    // Most shipped globs give a need, or the prefilter would buy nothing.
    let globs = shipped_globs();
    let known = globs
        .iter()
        .filter(|g| PathNeed::of(g) != PathNeed::Unknown)
        .count();
    assert!(known * 10 >= globs.len() * 8, "{known} of {}", globs.len());
    assert_eq!(
        PathNeed::of("**/Cargo.toml"),
        PathNeed::Suffix("Cargo.toml")
    );
    assert_eq!(PathNeed::of("**/.git/**"), PathNeed::Contains(".git"));
    assert_eq!(PathNeed::of("**/*.tf"), PathNeed::Suffix(".tf"));
    assert_eq!(PathNeed::of("*.{yml,yaml}"), PathNeed::Contains("."));
    assert_eq!(
        PathNeed::of("**/.ssh/id_{rsa,ed25519}"),
        PathNeed::Contains(".ssh/id_")
    );
    assert_eq!(PathNeed::of("{a,b}/x"), PathNeed::Unknown);
    assert_eq!(PathNeed::of("a\\*b"), PathNeed::Unknown);
    assert_eq!(PathNeed::of("!**/x"), PathNeed::Unknown);
    assert_eq!(PathNeed::of("**"), PathNeed::Unknown);
}

#[test]
fn shipped_globs_on_their_own_literals() {
    let globs = shipped_globs();
    let pieces = pieces();
    let mut matched = 0;
    for g in &globs {
        for a in &pieces {
            for b in ["", "/", "/x/", "x"] {
                let path = format!("{b}{a}");
                matched += usize::from(path_matches_plain(g, &path, ""));
                check(g, &path, "").unwrap();
                check(g, &format!("/home/u/proj/{a}"), "/home/u/proj").unwrap();
                check(g, &format!("/home/u/proj/{a}{b}"), "/home/u/proj/").unwrap();
            }
        }
    }
    // The comparison covers matches, not only rejections.
    assert!(matched > globs.len(), "{matched} matches");
}

fn path_strategy() -> impl Strategy<Value = String> {
    let pieces = pieces();
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(pieces),
            "[a-z./_~-]{0,4}".prop_map(|s| s),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Shipped globs against generated paths, with and without a working directory.
    #[test]
    fn shipped_globs_agree(
        g in prop::sample::select(shipped_globs()),
        path in path_strategy(),
        cwd in prop::sample::select(vec!["", "/home/u/proj", "/home/u/proj/", "src", "/"]),
    ) {
        check(&g, &path, cwd)?;
        check(&g, &format!("{cwd}/{path}"), cwd)?;
    }

    /// Generated globs (every special character of the path flavour) against generated paths.
    #[test]
    fn generated_globs_agree(
        g in "[ab./*?!{},\\[\\]\\\\-]{0,10}",
        path in "[ab./{}\\[\\]!,-]{0,10}",
        cwd in prop::sample::select(vec!["", "a", "a/", "/"]),
    ) {
        check(&g, &path, cwd)?;
    }
}
