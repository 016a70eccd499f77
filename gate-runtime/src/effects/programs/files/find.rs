//! `find ROOTS EXPR`: the set of files an action acts on, bounded by where it is drawn from
//! (each root) and what selects it. A branch of the expression that holds the action and a
//! positive name test (`-name`, `-iname`, `-path`, `-regex`, …) whose pattern is not
//! everything, or `-empty`, selects files below the root (`ROOT/**/PATTERN`), not the root
//! itself: `find . \( -name '*.bak' -o -name '*.backup' \) -type f -exec rm {} \;` removes
//! backup files in the project, `find . -name .git -prune -o -type f -exec sed -i … {} +`
//! edits every file (its action branch selects nothing), `find ~ -delete` the home
//! directory. `-type d -empty -delete` removes empty directories only: a change of the
//! directories that held them (a `write`), like `rmdir`.

use std::borrow::Cow;

use super::super::super::getopt::Args;
use super::super::super::places::is_everything;
use super::super::super::{Cmd, Sink};
use gate_spec::effect::Act;

/// Tests that select by name, each with its pattern.
const NAME_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
];

/// Primaries that take one argument (skipped when reading the expression).
const FIND_ONE: &[&str] = &[
    "-type",
    "-xtype",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-newer",
    "-anewer",
    "-cnewer",
    "-samefile",
    "-inum",
    "-links",
    "-maxdepth",
    "-mindepth",
    "-used",
    "-fstype",
    "-context",
    "-printf",
    "-regextype",
    "-files0-from",
    "-fprint",
    "-fprint0",
    "-fls",
];

/// Which action a selection is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// `-delete`.
    Delete,
    /// `-exec`, `-execdir`, `-ok`, `-okdir`: the command run on each match.
    Exec,
    /// `-print`, `-print0` (or no action: the whole expression prints): what a pipe hands on.
    Print,
}

/// What the branch holding an action selects.
#[derive(Debug, Default, PartialEq, Eq)]
struct Selection {
    /// The patterns that bound it (one per alternative); empty: unbounded by name.
    names: Vec<Pattern>,
    /// `-empty` bounds it.
    empty: bool,
    /// `-type d`: directories only.
    dirs: bool,
}

/// A pattern a name test bounds a selection with.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pattern {
    /// The last component's pattern (`-name '*.bak'`): a file at any depth below the root.
    Name(String),
    /// A whole path's pattern (`-path './build/*'`): itself when it starts at the root.
    Path(String),
}

impl Selection {
    fn bounded(&self) -> bool {
        !self.names.is_empty() || self.empty
    }
}

/// Where a `find`'s roots start and its expression starts (after leading `-H`, `-L`, `-P`,
/// `-D OPTS`, `-OLEVEL`).
fn split(args: &[Cow<'_, str>]) -> (usize, usize) {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match &**a {
            "-H" | "-L" | "-P" => k += 1,
            "-D" => k += 2,
            a if a.starts_with("-O") => k += 1,
            _ => break,
        }
    }
    let from = k.min(args.len());
    while let Some(a) = args.get(k) {
        if a.starts_with('-') || matches!(&**a, "(" | "\\(" | "!" | "\\!") {
            break;
        }
        k += 1;
    }
    (from, k.min(args.len()))
}

/// The expression words after the roots.
fn expression<'c, 'a>(args: &'c [Cow<'a, str>]) -> &'c [Cow<'a, str>] {
    &args[split(args).1..]
}

/// One term of an expression: a test or action with its arguments, or a group.
#[derive(Debug)]
enum Term {
    Word(String, Option<String>),
    Group(Vec<Vec<Term>>),
    Not,
}

/// Parse `words` into alternatives (split at `-o`, `-or` and `,`), each a list of terms;
/// returns where parsing stopped (a closing parenthesis or the end).
fn alternatives(words: &[Cow<'_, str>], mut k: usize, depth: usize) -> (Vec<Vec<Term>>, usize) {
    let mut alts = vec![Vec::new()];
    while let Some(w) = words.get(k) {
        k += 1;
        let current = alts.last_mut().expect("one alternative at least");
        match &**w {
            "-o" | "-or" | "," => alts.push(Vec::new()),
            "-a" | "-and" => {}
            "!" | "\\!" | "-not" => current.push(Term::Not),
            "(" | "\\(" if depth < 8 => {
                let (inner, next) = alternatives(words, k, depth + 1);
                current.push(Term::Group(inner));
                k = next;
            }
            ")" | "\\)" => return (alts, k),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                current.push(Term::Word(w.to_string(), None));
                while let Some(t) = words.get(k) {
                    k += 1;
                    if matches!(&**t, ";" | "\\;" | "+") {
                        break;
                    }
                }
            }
            t if NAME_TESTS.contains(&t) || FIND_ONE.contains(&t) => {
                current.push(Term::Word(
                    t.to_string(),
                    words.get(k).map(|v| v.to_string()),
                ));
                k += 1;
            }
            "-fprintf" => k += 2,
            t => current.push(Term::Word(t.to_string(), None)),
        }
    }
    (alts, k)
}

/// Whether a term list holds the action.
fn holds(terms: &[Term], action: Action) -> bool {
    terms.iter().any(|t| match t {
        Term::Word(w, _) => match action {
            Action::Delete => w == "-delete",
            Action::Exec => matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"),
            Action::Print => matches!(w.as_str(), "-print" | "-print0"),
        },
        Term::Group(alts) => alts.iter().any(|a| holds(a, action)),
        Term::Not => false,
    })
}

/// What a conjunction of terms selects (negated tests select nothing that bounds it).
fn select(terms: &[Term]) -> Selection {
    let mut s = Selection::default();
    let mut negated = false;
    for t in terms {
        match t {
            Term::Not => {
                negated = !negated;
                continue;
            }
            Term::Word(w, v) if !negated => match (w.as_str(), v) {
                (n, Some(p)) if NAME_TESTS.contains(&n) && !matches_everything(n, p) => {
                    if let (true, Some(p)) = (s.names.is_empty(), pattern_of(n, p)) {
                        s.names.push(p);
                    }
                }
                ("-empty", _) => s.empty = true,
                ("-type", Some(t)) if t == "d" => s.dirs = true,
                _ => {}
            },
            Term::Group(alts) if !negated => {
                let inner: Vec<Selection> = alts.iter().map(|a| select(a)).collect();
                if s.names.is_empty() && inner.iter().all(|i| !i.names.is_empty()) {
                    s.names = inner.into_iter().flat_map(|i| i.names).collect();
                } else if inner.iter().all(|i| i.empty) {
                    s.empty = true;
                }
            }
            _ => {}
        }
        negated = false;
    }
    s
}

/// Whether a test's pattern matches every name (`*`, `.*` as a regular expression; `*.*` is
/// not: it needs a dot), or for a path test every path (`./*`, `*`).
fn matches_everything(test: &str, p: &str) -> bool {
    let every = |c: &str| is_everything(c) || matches!(c, ".*" | "^.*$" | ".+" | "^.+$");
    if matches!(test, "-path" | "-ipath" | "-wholename" | "-iwholename") {
        return p.split('/').all(|c| c.is_empty() || c == "." || every(c));
    }
    let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
    last.is_empty() || every(last)
}

/// The pattern a name test bounds with: a path test's whole pattern, else the last
/// component's (`./src/*.rs` → `*.rs`). A regular expression is read as the glob it amounts
/// to (`.*\\.json$` → `*.json`); one with alternatives or groups bounds nothing (`None`).
fn pattern_of(test: &str, p: &str) -> Option<Pattern> {
    let regex = test.ends_with("regex");
    if regex && p.contains(['|', '(', '{']) {
        return None;
    }
    let glob = |s: &str| -> String {
        if !regex {
            return s.to_string();
        }
        s.replace(".*", "*")
            .replace(".+", "*")
            .replace(['\\', '^', '$'], "")
    };
    if matches!(test, "-path" | "-ipath" | "-wholename" | "-iwholename") {
        return Some(Pattern::Path(glob(p)));
    }
    let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
    Some(Pattern::Name(glob(last)))
}

/// What the branch holding `action` selects; `None` when no branch holds it.
fn selection(args: &[Cow<'_, str>], action: Action) -> Option<Selection> {
    let (alts, _) = alternatives(expression(args), 0, 0);
    match alts.iter().find(|a| holds(a, action)) {
        Some(a) => Some(select(a)),
        None if action == Action::Print => Some(select(&[Term::Group(alts)])),
        None => None,
    }
}

/// What an `-empty` selection names below its root: any name, at any depth, but only what
/// is empty (none of gate's files or credentials, which are not).
const EMPTY: &str = "*";

/// The targets an action acts on: each root, or what a bounded selection picks out below it
/// (`ROOT/**/NAME`, `ROOT/**/*` for `-empty`).
pub(crate) fn targets(args: &[Cow<'_, str>], action: Action) -> Vec<String> {
    let roots = roots(args);
    match selection(args, action) {
        Some(s) if s.bounded() => {
            let names = if s.names.is_empty() {
                vec![Pattern::Name(EMPTY.to_string())]
            } else {
                s.names
            };
            let mut out = Vec::new();
            for r in &roots {
                let r = r.trim_end_matches('/');
                for n in &names {
                    out.push(match n {
                        Pattern::Path(p) if p.starts_with(r) => p.clone(),
                        // `*/build/*`: below the root at any depth.
                        Pattern::Path(p) => {
                            let mut tail = p.as_str();
                            while let Some(t) = tail.strip_prefix("*/").or(tail.strip_prefix("**/"))
                            {
                                tail = t;
                            }
                            format!("{r}/**/{}", tail.trim_start_matches('/'))
                        }
                        Pattern::Name(n) => format!("{r}/**/{n}"),
                    });
                }
            }
            out
        }
        _ => roots,
    }
}

/// The starting points of a `find` (the operands before its expression); `.` when none.
pub(crate) fn roots(args: &[Cow<'_, str>]) -> Vec<String> {
    let (from, to) = split(args);
    let mut out: Vec<String> = args[from..to].iter().map(|a| a.to_string()).collect();
    if out.is_empty() {
        out.push(".".to_string());
    }
    out
}

/// `find` as `commands/files.toml` reaches it (`analyser = "find"`): the words read whole.
pub(crate) fn find(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    model(cmd, out);
}

/// `find ROOTS EXPR`: a read of each root; `-delete` a delete of what the expression
/// selects (a write of the directories that held them when only empty directories are);
/// `-fprint FILE` an overwrite. The commands of `-exec`/`-ok` are read by the parser on their
/// own, with `{}` bound to [`targets`].
fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) {
    // It reads names; what `-exec` runs reads content, as its own command.
    out.names_only = true;
    for r in roots(cmd.args) {
        out.path(Act::Read, &r);
    }
    let args = cmd.args;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        match &**a {
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = args.get(k) {
                    out.path(Act::Overwrite, f);
                }
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while let Some(w) = args.get(k) {
                    k += 1;
                    if matches!(&**w, ";" | "\\;" | "+") {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    let Some(s) = selection(args, Action::Delete) else {
        return;
    };
    let act = if s.empty && s.dirs {
        Act::Write
    } else {
        Act::Delete
    };
    for t in targets(args, Action::Delete) {
        out.path(act, &t);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};
    use super::*;

    fn of(line: &str, action: Action) -> Vec<String> {
        let parsed = crate::shell::parse(line);
        let words: Vec<Cow<'_, str>> = parsed.commands[0]
            .args
            .iter()
            .map(|a| Cow::Owned(a.to_string()))
            .collect();
        targets(&words, action)
    }

    #[test]
    fn a_bounded_selection_is_below_its_root() {
        for (line, action, want) in [
            (
                "find . -name '*.pyc' -delete",
                Action::Delete,
                vec!["./**/*.pyc"],
            ),
            (
                "find . \\( -name '*.bak' -o -name '*.backup' \\) -type f -exec rm {} \\;",
                Action::Exec,
                vec!["./**/*.bak", "./**/*.backup"],
            ),
            (
                "find . -type d -empty -delete",
                Action::Delete,
                vec!["./**/*"],
            ),
            (
                "find src build -name '*.o' -delete",
                Action::Delete,
                vec!["src/**/*.o", "build/**/*.o"],
            ),
            (
                "find . -path './src/*.rs' -exec sed -i s/a/b/ {} +",
                Action::Exec,
                vec!["./src/*.rs"],
            ),
            (
                "find . -path '*/build/*' -delete",
                Action::Delete,
                vec!["./**/build/*"],
            ),
            ("find . -path './*' -delete", Action::Delete, vec!["."]),
            (
                "find ~ -name '*.pyc' -delete",
                Action::Delete,
                vec!["~/**/*.pyc"],
            ),
            // Unbounded: the roots themselves.
            ("find . -delete", Action::Delete, vec!["."]),
            ("find ~ -type f -delete", Action::Delete, vec!["~"]),
            ("find / -name '*' -delete", Action::Delete, vec!["/"]),
            ("find . ! -name '*.rs' -delete", Action::Delete, vec!["."]),
            ("find . -not -name keep -delete", Action::Delete, vec!["."]),
            (
                "find . -name .git -prune -o -type f -exec sed -i s/a/b/ {} +",
                Action::Exec,
                vec!["."],
            ),
            (
                "find . -name node_modules -prune -o -type f -exec rm -f {} \\;",
                Action::Exec,
                vec!["."],
            ),
            (
                "find . \\( -name '*.a' -o -type f \\) -delete",
                Action::Delete,
                vec!["."],
            ),
        ] {
            assert_eq!(of(line, action), want, "{line}");
        }
    }

    #[test]
    fn effects_of_find() {
        assert_eq!(
            effects("find . -type d -empty -delete"),
            vec!["read@project", "write@source"]
        );
        assert_eq!(
            effects("find . -name '*.bak' -delete"),
            vec!["delete@source", "read@project"]
        );
        assert!(effects("find . -delete").contains(&"delete@project".to_string()));
        assert!(effects("find ~ -delete").contains(&"delete@home".to_string()));
        assert!(effects("find ~ -name '*.pyc' -delete").contains(&"delete@outside".to_string()));
        // A pattern that could name gate's files below the root reaches them.
        assert!(effects("find . -name '*.json' -delete").contains(&"delete@gate".to_string()));
        assert!(
            effects("find . -name 'settings.json' -delete").contains(&"delete@gate".to_string())
        );
        assert_eq!(
            effects("find build -fprint out.txt"),
            vec!["overwrite@source", "read@outputs"]
        );
    }

    #[test]
    fn find_delete_and_reads() {
        assert_eq!(effects("find . -name '*.rs'"), vec!["read@project"]);
        assert_eq!(effects("find src -type f"), vec!["read@source"]);
        assert!(has("find / -delete", "delete@root"));
        assert!(has("find ~ -type f -delete", "delete@home"));
        assert!(has("find ~ -mindepth 1 -delete", "delete@home"));
        assert!(has("find . -delete", "delete@project"));
        assert!(has("find -L ~/ -delete", "delete@home"));
        assert!(has("sudo find /var/log -type f -delete", "delete@system"));
        // One pattern narrows what goes.
        assert!(has("find . -name '*.pyc' -delete", "delete@source"));
        assert!(!has("find . -name '*.pyc' -delete", "delete@project"));
        assert!(has(
            "find . -name '__pycache__' -type d -delete",
            "delete@outputs"
        ));
        assert!(has("find . -name .env -delete", "delete@secrets"));
        assert!(has("find ~ -name '*' -delete", "delete@home"));
        assert!(has("find . -path './build/*' -delete", "delete@outputs"));
        // Alternatives and negations are not narrowed.
        assert!(has("find . ! -name keep -delete", "delete@project"));
        // `-delete` acts in its own branch: what `-name b` selects.
        assert!(has("find . -name a -o -name b -delete", "delete@source"));
        assert!(has("find . -name a -o -delete", "delete@project"));
        // -exec commands are the parser's; find itself only reads.
        assert!(has("find ~ -exec rm -rf {} +", "delete@home"));
        assert!(has("find . -name '*.o' -exec rm {} \\;", "read@project"));
        assert!(has("find . -type f -fprint /tmp/list", "overwrite@temp"));
        assert!(has("find . -fprintf ~/.bashrc '%p'", "overwrite@dotfiles"));
    }
}
