//! A copy's operands as a program's `destination = { … }` says to read them: its sources, and
//! where each lands. Under an `into` option (`-t DIR`) every operand is a source landing in
//! `DIR/name`; otherwise the last operand is the destination, and a source lands inside it
//! (`DEST/name`) when it is spelled as a directory (`dir/`, `.`, `~`, `$HOME`) or several
//! sources go there, unless an `exact` option (`-T`) says it is the destination itself; a lone
//! operand lands in the program's `default` directory, or nowhere when it has none.

use super::super::super::getopt::Args;
use super::model::Destination;
use std::borrow::Cow;

/// Each source as written, with where it lands (`None`: the command names no destination).
pub(super) fn pairs<'w>(
    d: &Destination,
    args: &Args<'_>,
    rest: &'w [Cow<'_, str>],
) -> Vec<(&'w str, Option<String>)> {
    let named = |names: &str| names.split('|').any(|n| !n.is_empty() && args.has(n));
    let into_dir = args
        .opts
        .iter()
        .rev()
        .filter(|o| d.into.split('|').any(|n| !n.is_empty() && n == o.name))
        .find_map(|o| o.value.as_deref());
    if let Some(dir) = into_dir {
        let dir = format!("{}/", dir.trim_end_matches('/'));
        return rest.iter().map(|s| (&**s, Some(into(&dir, s)))).collect();
    }
    let Some((dest, srcs)) = rest.split_last().filter(|(_, srcs)| !srcs.is_empty()) else {
        let land = |s: &str| d.default.map(|dir| into(dir, s));
        return rest.iter().map(|s| (&**s, land(s))).collect();
    };
    let dest = if srcs.len() > 1 && !dest.ends_with('/') {
        format!("{dest}/")
    } else {
        dest.to_string()
    };
    let inside = is_dir_spelling(&dest) && !named(d.exact);
    srcs.iter()
        .map(|s| {
            let land = if inside { into(&dest, s) } else { dest.clone() };
            (&**s, Some(land))
        })
        .collect()
}

/// `src` as seen from the directory of `land`, where a symbolic link to it is made: a
/// relative target is relative to the link's directory (`ln -s ../x sub/link` points at
/// `sub/../x`); an absolute one, or one from home or a variable, is as written.
pub(super) fn seen_from(src: &str, land: Option<&str>) -> String {
    let relative = !src.starts_with(['/', '~', '$']);
    match land.and_then(|l| l.rfind('/').map(|i| &l[..i])) {
        Some(dir) if relative => format!("{dir}/{src}"),
        _ => src.to_string(),
    }
}

/// The last component of a path as written (`a/b/` → `b`).
pub(crate) fn base(path: &str) -> &str {
    let t = path.trim_end_matches('/');
    match t.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

/// Whether a destination as written is certainly a directory: it ends in `/`, or is `.`,
/// `..`, `~`, `~user`, `/`, `$HOME`, `$PWD` (or ends in `/.` or `/..`).
pub(crate) fn is_dir_spelling(dest: &str) -> bool {
    dest.ends_with('/')
        || matches!(
            dest,
            "." | ".." | "$HOME" | "${HOME}" | "$PWD" | "${PWD}" | "$OLDPWD" | "$TMPDIR"
        )
        || dest.ends_with("/.")
        || dest.ends_with("/..")
        || (dest.starts_with('~') && !dest.contains('/'))
}

/// Where `src` lands when copied or moved into directory `dir`: `dir/base(src)`.
pub(crate) fn into(dir: &str, src: &str) -> String {
    let b = base(src);
    if b.is_empty() || b == "." || b == ".." || b == "~" || b.starts_with('$') {
        return dir.to_string();
    }
    format!("{}/{}", dir.trim_end_matches('/'), b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::getopt::{read, Grammar};

    const CP: Grammar = Grammar {
        short: "nT",
        short_value: "t",
        long: &["no-target-directory"],
        long_value: &["target-directory"],
        posix: false,
    };

    const COPY: Destination = Destination {
        into: "t|target-directory",
        exact: "T|no-target-directory",
        keep: &[],
        default: None,
    };

    fn landings(d: &Destination, line: &str) -> Vec<(String, Option<String>)> {
        let words: Vec<Cow<'_, str>> = line.split(' ').map(Cow::Borrowed).collect();
        let args = read(&CP, &words);
        pairs(d, &args, &args.operands)
            .into_iter()
            .map(|(s, l)| (s.to_string(), l))
            .collect()
    }

    fn one(s: &str, l: &str) -> (String, Option<String>) {
        (s.to_string(), Some(l.to_string()))
    }

    #[test]
    fn every_spelling_of_a_destination() {
        // Over a file, and into a directory spelled as one (with or without a slash).
        assert_eq!(landings(&COPY, "a b"), vec![one("a", "b")]);
        assert_eq!(landings(&COPY, "a dir"), vec![one("a", "dir")]);
        assert_eq!(landings(&COPY, "a dir/"), vec![one("a", "dir/a")]);
        assert_eq!(
            landings(&COPY, "x/a.txt ~"),
            vec![one("x/a.txt", "~/a.txt")]
        );
        assert_eq!(landings(&COPY, "a $HOME"), vec![one("a", "$HOME/a")]);
        assert_eq!(landings(&COPY, "a ."), vec![one("a", "./a")]);
        // A variable that is no directory spelling is the destination itself.
        assert_eq!(landings(&COPY, "a $DEST"), vec![one("a", "$DEST")]);
        // Several sources: the destination is a directory.
        assert_eq!(
            landings(&COPY, "a b dir"),
            vec![one("a", "dir/a"), one("b", "dir/b")]
        );
        // -t and --target-directory: every operand lands inside.
        assert_eq!(
            landings(&COPY, "-t /etc a b/"),
            vec![one("a", "/etc/a"), one("b/", "/etc/b")]
        );
        assert_eq!(
            landings(&COPY, "--target-directory=.claude/ settings.json"),
            vec![one("settings.json", ".claude/settings.json")]
        );
        // -T: the last operand is the destination itself, whatever its spelling.
        assert_eq!(landings(&COPY, "-T build ~"), vec![one("build", "~")]);
        assert_eq!(
            landings(&COPY, "--no-target-directory a dir/"),
            vec![one("a", "dir/")]
        );
        // A lone operand lands nowhere, or in the default directory.
        assert_eq!(landings(&COPY, "a"), vec![("a".to_string(), None)]);
        let ln = Destination {
            default: Some("."),
            ..COPY
        };
        assert_eq!(
            landings(&ln, "/etc/shadow"),
            vec![one("/etc/shadow", "./shadow")]
        );
        // What cannot be a name lands as the directory itself.
        assert_eq!(landings(&COPY, "$F /tmp/"), vec![one("$F", "/tmp/")]);
        assert_eq!(landings(&COPY, ". ~/backup/"), vec![one(".", "~/backup/")]);
    }

    #[test]
    fn a_relative_link_target_is_seen_from_the_link() {
        assert_eq!(seen_from("../x", Some("sub/link")), "sub/../x");
        assert_eq!(seen_from("../x", Some("link")), "../x");
        assert_eq!(seen_from("/etc/passwd", Some("sub/link")), "/etc/passwd");
        assert_eq!(seen_from("~/.ssh", Some("a/keys")), "~/.ssh");
        assert_eq!(seen_from("$T", Some("a/b")), "$T");
        assert_eq!(seen_from("../../..", Some(".cache/up")), ".cache/../../..");
        assert_eq!(seen_from("x", None), "x");
    }
}
