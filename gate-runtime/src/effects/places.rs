//! Locations: a target as written, resolved as the shell would (working directory, `~`,
//! `~user`, `$HOME`, `$PWD`, `$OLDPWD`, `${VAR:?}`, `.`/`..`/`//`, braces), and classed into a
//! [`Place`]. Globs are expanded symbolically: a wildcard level means everything at that
//! level, and a pattern that could match a protected name (`.cl*` and `.claude`) is classed
//! as that name. Names are compared case-insensitively (macOS and Windows file systems are).

use gate_spec::effect::Place;

/// Where the action happens: the directories a target is resolved against, and gate's own
/// locations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Where {
    /// The working directory of the command (the payload's `cwd`); `cd` within a line moves
    /// from here.
    pub cwd: String,
    /// The project root: the payload's `cwd` (the directory the agent was started in).
    pub project: String,
    /// The user's home directory.
    pub home: String,
    /// gate's own absolute locations beyond the names every project and home has (its home
    /// and state directory, its config directory, the binary, runtimes' settings homes such
    /// as `$CODEX_HOME`): each a directory or file; everything under a directory counts.
    pub gate: Vec<String>,
    /// Look at the file system: follow symbolic links in targets, and read the input files a
    /// command names (a patch, an SQL script). Only for a live hook call: a replay or a test
    /// must not depend on what is on the disk now.
    pub disk: bool,
}

impl Where {
    /// A context for `cwd`, with home and gate's locations taken from the environment.
    pub fn from_env(cwd: &str) -> Where {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let home = var("HOME").unwrap_or_default();
        let mut gate = Vec::new();
        let mut push = |p: Option<String>| {
            if let Some(p) = p {
                if p.starts_with('/') {
                    gate.push(normalise(&p));
                }
            }
        };
        push(var("GATE_HOME"));
        // The database named by `GATE_DB` keeps its companions beside it: SQLite's journal
        // files and the audit key (see `store`).
        if let Some(db) = var("GATE_DB") {
            for companion in ["-wal", "-shm", "-journal"] {
                push(Some(format!("{db}{companion}")));
            }
            // The key is `<db stem>.key` (`gate.key` beside `gate.db`).
            let stem = match db.rsplit_once('.') {
                Some((stem, ext)) if !ext.contains('/') => stem,
                _ => db.as_str(),
            };
            push(Some(format!("{stem}.key")));
            // The backup store of mode `reversible` (`backup::store_dir`).
            push(Some(format!("{stem}.backups")));
            push(Some(db));
        }
        push(var("XDG_STATE_HOME").map(|s| format!("{s}/gate")));
        push(var("XDG_CONFIG_HOME").map(|s| format!("{s}/gate")));
        push(var("CODEX_HOME"));
        // Gemini CLI's variable stands for home: its settings are in `.gemini` below it.
        push(var("GEMINI_CLI_HOME").map(|h| format!("{h}/.gemini")));
        push(var("COPILOT_HOME"));
        push(var("CLAUDE_CONFIG_DIR"));
        push(
            std::env::current_exe()
                .ok()
                .and_then(|p| p.to_str().map(str::to_string)),
        );
        Where {
            cwd: cwd.to_string(),
            project: cwd.to_string(),
            home,
            gate,
            disk: false,
        }
    }
}

/// Directory names that hold a runtime's hook settings or gate's own config, wherever they
/// are (project or home): any non-read effect on them or below is on gate.
pub(crate) const GATE_DIRS: &[&str] = &[".claude", ".codex", ".gemini", ".copilot", ".gate"];
/// Files under home that are gate's or a runtime's settings.
pub(crate) const GATE_HOME_FILES: &[&str] = &[".claude.json", ".gate"];
/// Paths under home that are gate's state or config.
pub(crate) const GATE_HOME_PATHS: &[&[&str]] = &[
    &[".local", "state", "gate"],
    &[".config", "gate"],
    &[".cargo", "bin", "gate"],
    &[".local", "bin", "gate"],
];
/// Files inside gate's and the runtimes' directories: a selection at any depth below a
/// directory (`find . -name '*.json'`, `ROOT/**/PATTERN`) that could name one of them may
/// reach into `.claude/` or `.codex/`.
const GATE_LEAF_NAMES: &[&str] = &[
    "settings.json",
    "settings.local.json",
    "hooks.json",
    "config.toml",
    "gate.db",
    "gate.key",
    ".claude.json",
];
/// gate's backup store (`gate.backups/` beside `gate.db`, mode `reversible`), by name at any
/// depth: the copies of what actions lost are gate's, not the agent's to change or read.
pub(crate) const GATE_STORE_NAMES: &[&str] = &["gate.backups"];
/// Version-control metadata.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj", ".bzr"];
/// Secret files and directories, by name (at any depth): credentials, keys, tokens and the
/// stores programs keep them in.
const SECRET_NAMES: &[&str] = &[
    ".env",
    ".envrc",
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".kube",
    ".password-store",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".my.cnf",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".vault-token",
    ".dockercfg",
    ".s3cfg",
    ".boto",
    ".htpasswd",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ecdsa_sk",
    "id_ed25519",
    "id_ed25519_sk",
    "credentials",
    "credentials.json",
    "credentials.toml",
    "credentials.yml",
    "credentials.yaml",
    "credentials.db",
    "access_tokens.db",
    "application_default_credentials.json",
    "legacy_credentials",
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    "secrets.toml",
    "service-account.json",
    "kubeconfig",
    "gate.key",
];
/// Files that are secrets only in the directory that holds them (parent, name): a tool's
/// login store (`~/.docker/config.json`, `~/.config/gh/hosts.yml`,
/// `~/.terraform.d/credentials.tfrc.json`, `~/.config/composer/auth.json`).
const SECRET_IN_DIR: &[(&str, &str)] = &[
    (".docker", "config.json"),
    ("gh", "hosts.yml"),
    ("hub", "hub"),
    (".terraform.d", "credentials.tfrc.json"),
    ("composer", "auth.json"),
    (".composer", "auth.json"),
    (".m2", "settings-security.xml"),
    ("serviceaccount", "token"),
];
/// Secret files by name prefix (`service-account-prod.json`, `id_rsa_work`).
const SECRET_PREFIXES: &[&str] = &["service-account", "id_rsa", "id_ed25519", "id_ecdsa"];
/// Secret files by suffix: keys, keystores, password databases, Terraform state (which holds
/// every resource's secrets in plain text), a cluster's credentials.
const SECRET_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".keystore",
    ".jks",
    ".kdbx",
    ".ppk",
    ".tfstate",
    ".kubeconfig",
    ".keychain-db",
];
/// `.env` variants that hold no secrets.
const ENV_TEMPLATES: &[&str] = &["example", "sample", "template", "dist", "defaults"];
/// Rebuildable outputs, by directory name (at any depth inside the project).
pub(crate) const OUTPUT_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "dist",
    "build",
    "out",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".cache",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "coverage",
    ".coverage",
    "htmlcov",
    ".gradle",
    ".dart_tool",
    "bower_components",
    ".terraform",
    "_build",
    "deps",
    "tmp",
];
/// Top-level system directories.
const SYSTEM_DIRS: &[&str] = &[
    "etc",
    "usr",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "boot",
    "var",
    "opt",
    "sys",
    "proc",
    "srv",
    "root",
    "snap",
    "run",
    "nix",
    "System",
    "Library",
    "Applications",
    "private",
    "Windows",
    "mnt",
    "media",
];
/// Devices that are not storage.
const HARMLESS_DEVICES: &[&str] = &[
    "null", "zero", "tty", "stdin", "stdout", "stderr", "fd", "random", "urandom", "full", "ptmx",
    "pts",
];

/// A path resolved against a [`Where`]: its components from the root, and whether it could be
/// resolved at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// Normalised absolute components (no `.`, `..` or empty ones). Glob components are kept.
    pub parts: Vec<String>,
    /// The root could not be resolved (`$DIR/x`, `$(pwd)/x`): `parts` hold what follows it.
    pub unknown_root: bool,
}

impl Resolved {
    pub fn display(&self) -> String {
        let tail = self.parts.join("/");
        if self.unknown_root {
            format!("?/{tail}")
        } else {
            format!("/{tail}")
        }
    }
}

/// Most alternatives a brace expression expands to; beyond it the word is kept unexpanded.
const MAX_BRACES: usize = 64;

/// Expand `{a,b}` alternatives (nested too), as bash does before anything else. A word with
/// no comma-separated group is returned as it is.
pub fn braces(word: &str) -> Vec<String> {
    let mut out = vec![word.to_string()];
    let mut done = Vec::new();
    let mut rounds = 0;
    while let Some(w) = out.pop() {
        rounds += 1;
        match brace_group(&w) {
            Some((open, close, alts)) if rounds < 4 * MAX_BRACES => {
                for alt in alts {
                    out.push(format!("{}{}{}", &w[..open], alt, &w[close + 1..]));
                }
            }
            _ => done.push(w),
        }
        if done.len() + out.len() > MAX_BRACES {
            return vec![word.to_string()];
        }
    }
    done.reverse();
    done
}

/// The first `{…}` group with a top-level comma: its bounds and its alternatives.
fn brace_group(w: &str) -> Option<(usize, usize, Vec<&str>)> {
    let b = w.as_bytes();
    let mut start = 0;
    while let Some(off) = w[start..].find('{') {
        let open = start + off;
        if open > 0 && b[open - 1] == b'$' {
            start = open + 1;
            continue;
        }
        let mut depth = 0;
        let mut commas = Vec::new();
        for (i, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if commas.is_empty() {
                            break;
                        }
                        let mut alts = Vec::new();
                        let mut from = open + 1;
                        for &c in &commas {
                            alts.push(&w[from..c]);
                            from = c + 1;
                        }
                        alts.push(&w[from..i]);
                        return Some((open, i, alts));
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

/// Resolve a target as written against `cwd` (already absolute) and `home`. `vars` are
/// assignments made earlier on the line.
pub fn resolve(text: &str, cwd: &str, home: &str, oldpwd: Option<&str>) -> Resolved {
    let mut unknown_root = false;
    let expanded: String;
    let mut t = placeholder(text);
    // `~`, `~/…`, `~user/…`.
    if let Some(rest) = t.strip_prefix('~') {
        let (user, tail) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        expanded = match user {
            "" => format!("{home}{tail}"),
            "+" => format!("{cwd}{tail}"),
            "-" => format!("{}{tail}", oldpwd.unwrap_or("$OLDPWD")),
            "root" => format!("/root{tail}"),
            u => format!("/home/{u}{tail}"),
        };
        t = &expanded;
    }
    let expanded2;
    if t.contains('$') || t.contains('`') {
        let (s, unknown) = expand_vars(t, cwd, home, oldpwd);
        expanded2 = s;
        t = &expanded2;
        unknown_root = unknown;
    }
    let absolute = t.starts_with('/');
    let mut parts: Vec<String> = Vec::new();
    if !absolute && !unknown_root {
        parts.extend(cwd.split('/').filter(|s| !s.is_empty()).map(str::to_string));
    }
    for comp in t.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() && unknown_root {
                    // `$X/..`: still unknown.
                }
            }
            c => parts.push(c.to_string()),
        }
    }
    Resolved {
        parts,
        unknown_root,
    }
}

/// The value a whole-word placeholder stands for, as documentation and templates write one
/// (`{{/dev/sdX}}`, `{{~/.bashrc}}`, `{{ path/to/file }}`): a path of that shape, so
/// `dd of={{/dev/sdX}}` writes a device and `cp a {{path/to/dest}}` a file of the project.
/// A brace expansion (`{a,b}`, `{1..3}`) has one pair of braces and is no placeholder.
fn placeholder(text: &str) -> &str {
    text.strip_prefix("{{")
        .and_then(|t| t.strip_suffix("}}"))
        .map(str::trim)
        .filter(|inner| !inner.is_empty() && !inner.contains(['{', '}']))
        .unwrap_or(text)
}

/// Replace known variables; anything else (or a substitution) makes the root unknown and
/// keeps only what follows the last unknown part.
fn expand_vars(t: &str, cwd: &str, home: &str, oldpwd: Option<&str>) -> (String, bool) {
    let mut out = String::new();
    let mut unknown = false;
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'`' {
            let end = t[i + 1..]
                .find('`')
                .map(|e| i + 1 + e + 1)
                .unwrap_or(b.len());
            out.clear();
            unknown = true;
            i = end;
            continue;
        }
        if c != b'$' {
            out.push(c as char);
            i += 1;
            continue;
        }
        let rest = &t[i + 1..];
        let (name, len) = if let Some(inner) = rest.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            let body = &inner[..end];
            let name_end = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(body.len());
            (&body[..name_end], end + 2)
        } else if rest.starts_with('(') {
            // `$(…)`: find the matching parenthesis.
            let mut depth = 0;
            let mut end = rest.len();
            for (k, ch) in rest.char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            ("", end)
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..end], end)
        };
        let value = match name {
            "HOME" => Some(home),
            // The user running the line, whose home is `/home/NAME` (`/Users/NAME`).
            "USER" | "LOGNAME" => user_of(home),
            // A number, one path component whatever its value.
            "UID" | "EUID" => Some("UID"),
            "PWD" => Some(cwd),
            "OLDPWD" => oldpwd,
            "TMPDIR" | "TMP" | "TEMP" => Some("/tmp"),
            _ => None,
        };
        let after = &t[(i + 1 + len).min(t.len())..];
        match value {
            Some(v) => out.push_str(v),
            None if inside_a_name(&out, after) => out.push('*'),
            None => {
                out.clear();
                unknown = true;
            }
        }
        i += 1 + len;
    }
    (out, unknown)
}

/// Whether a value the line does not show stands inside one file name, between the text
/// already expanded (`before`) and what follows it: after literal text of the same name
/// (`./x-${TAG}.tgz`, `logs/$(date +%F).log`), or at the start of a name in a known directory
/// with literal text after it in the same name (`/tmp/$X.log`, `build/$N.o`). There it is
/// read as a pattern over that name (`logs/*.log`): the set is bounded by where it is drawn
/// from and by the text around it. A value that is a whole name, or that starts the word
/// (`$DIR`, `$DIR/x`, `$X.log`, which may be any path), leaves the root unknown.
fn inside_a_name(before: &str, after: &str) -> bool {
    let name_before = before.rsplit('/').next().unwrap_or("");
    let name_after = after.split('/').next().unwrap_or("");
    let literal = |s: &str| !s.is_empty() && !s.contains(['$', '`']);
    if literal(name_before) {
        return true;
    }
    !before.is_empty() && before.ends_with('/') && literal(name_after)
}

/// Whether a resolved target whose root is unknown (`?/x.txt`) names one file: a last name
/// with no pattern in it (not `?/`, `?/*`, `?/*.md`).
pub fn names_one_file(resolved: &str) -> bool {
    resolved
        .strip_prefix("?/")
        .and_then(|rest| rest.rsplit('/').next())
        .is_some_and(|name| !name.is_empty() && !is_glob(name) && name != "..")
}

/// The name of the user whose home directory is `home`, when the home says it.
fn user_of(home: &str) -> Option<&str> {
    if home.trim_end_matches('/') == "/root" {
        return Some("root");
    }
    let name = home
        .strip_prefix("/home/")
        .or_else(|| home.strip_prefix("/Users/"))?
        .trim_end_matches('/');
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// Normalise an absolute path lexically (`//`, `.`, `..`).
pub fn normalise(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether a component has glob characters (including extglob groups).
pub fn is_glob(comp: &str) -> bool {
    comp.contains(['*', '?', '['])
}

/// Whether a glob component matches everything at its level (`*`, `**`, `.*` plus `*`,
/// `*(…)`): deleting it deletes the parent's contents.
pub(crate) fn is_everything(comp: &str) -> bool {
    !comp.is_empty()
        && comp
            .chars()
            .all(|c| matches!(c, '*' | '?' | '(' | ')' | '|' | '@' | '+' | '!'))
        && comp.contains('*')
}

/// Whether glob component `pat` could match the (lower-case) name `name`. Extglob groups
/// are widened to `*`; as in bash, a name's leading dot is matched only by a leading dot.
fn could_match(pat: &str, name: &str) -> bool {
    if name.starts_with('.') && !pat.starts_with('.') {
        return false;
    }
    let mut p = String::with_capacity(pat.len());
    let mut chars = pat.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '?' | '*' | '+' | '@' | '!') && chars.peek() == Some(&'(') {
            // Skip the group.
            let mut depth = 0;
            for d in chars.by_ref() {
                match d {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            p.push('*');
            continue;
        }
        p.push(c.to_ascii_lowercase());
    }
    gate_spec::pattern::path_glob(&p, name)
}

/// Whether component `comp` (literal or glob) is, or could be, one of `names`.
fn names_any(comp: &str, names: &[&str]) -> bool {
    if is_everything(comp) {
        // `*` is everything at its level: classed by its parent, not by the names it matches.
        return false;
    }
    if is_glob(comp) {
        names
            .iter()
            .any(|n| could_match(comp, &n.to_ascii_lowercase()))
    } else {
        names.iter().any(|n| comp.eq_ignore_ascii_case(n))
    }
}

fn is_secret_name(comp: &str) -> bool {
    if names_any(comp, SECRET_NAMES) {
        return true;
    }
    let lower = comp.to_ascii_lowercase();
    if let Some(variant) = lower.strip_prefix(".env.") {
        return !ENV_TEMPLATES.contains(&variant);
    }
    if is_everything(comp) {
        return false;
    }
    if is_glob(comp) {
        // `.env*`, `*.pem`: could it name a secret?
        return could_match(comp, ".env.local")
            || SECRET_SUFFIXES
                .iter()
                .any(|s| could_match(comp, &format!("x{s}")) && !is_everything(comp));
    }
    SECRET_SUFFIXES.iter().any(|s| lower.ends_with(s))
        || SECRET_PREFIXES.iter().any(|p| lower.starts_with(p))
}

/// Whether a path names a secret: one of its components does, or a file that is a secret in
/// the directory holding it.
fn is_secret_path(parts: &[String]) -> bool {
    parts.iter().any(|c| is_secret_name(c))
        || parts.windows(2).any(|w| {
            SECRET_IN_DIR
                .iter()
                .any(|(dir, name)| names_any(&w[0], &[dir]) && names_any(&w[1], &[name]))
        })
}

/// A selection at any depth (`…/**/PATTERN`) whose pattern could name one of `names`.
fn any_depth_could_be(parts: &[String], names: &[&str]) -> bool {
    let Some((leaf, above)) = parts.split_last() else {
        return false;
    };
    // `**/*` is what an `-empty` selection names: empty files, none of these.
    above.iter().any(|c| c == "**")
        && !is_everything(leaf)
        && names.iter().any(|n| {
            let n = n.to_ascii_lowercase();
            leaf.eq_ignore_ascii_case(&n) || (is_glob(leaf) && could_match(leaf, &n))
        })
}

fn parts_of(p: &str) -> Vec<&str> {
    p.split('/').filter(|s| !s.is_empty()).collect()
}

/// `prefix` is a leading run of `parts` (compared case-insensitively; glob components of
/// `parts` may stand for the prefix's names).
fn starts_with(parts: &[String], prefix: &[&str]) -> bool {
    parts.len() >= prefix.len()
        && parts.iter().zip(prefix).all(|(a, b)| {
            a.eq_ignore_ascii_case(b) || (is_glob(a) && could_match(a, &b.to_ascii_lowercase()))
        })
}

/// `parts` is a strict ancestor of `dir` (or equal to it), or a glob level inside an
/// ancestor that means everything (`/home/*` holds `/home/u/proj`).
fn covers(parts: &[String], dir: &[&str]) -> bool {
    if parts.len() > dir.len() {
        return false;
    }
    parts.iter().zip(dir).all(|(a, b)| {
        a.eq_ignore_ascii_case(b) || (is_glob(a) && could_match(a, &b.to_ascii_lowercase()))
    })
}

/// Everything at the level below `dir`: `dir` itself, or `dir/*`.
fn is_contents(parts: &[String], dir: &[&str]) -> bool {
    parts.len() == dir.len() && starts_with(parts, dir)
        || parts.len() == dir.len() + 1
            && starts_with(parts, dir)
            && is_everything(&parts[dir.len()])
}

/// The class of a resolved path.
pub fn classify(r: &Resolved, at: &Where) -> Place {
    let parts = &r.parts;
    // Names that make a location protected wherever they appear.
    let gate_named = parts
        .iter()
        .any(|c| names_any(c, GATE_DIRS) || names_any(c, GATE_STORE_NAMES))
        || parts
            .windows(2)
            .any(|w| names_any(&w[0], &[".github"]) && names_any(&w[1], &["hooks"]))
        // gate's config and state directories under any home (`HOME` may differ between
        // the agent and gate).
        || GATE_HOME_PATHS
            .iter()
            .filter(|p| p.len() >= 2)
            .any(|p| (0..parts.len()).any(|i| starts_with(&parts[i..], p)))
        || any_depth_could_be(parts, GATE_LEAF_NAMES);
    if gate_named {
        return Place::Gate;
    }
    if r.unknown_root {
        if is_secret_path(parts) {
            return Place::Secrets;
        }
        if parts.iter().any(|c| names_any(c, VCS_DIRS)) {
            return Place::Vcs;
        }
        if parts.iter().any(|c| c.eq_ignore_ascii_case("gate.db")) {
            return Place::Gate;
        }
        return Place::Unknown;
    }
    let home = parts_of(&at.home);
    let project = parts_of(&at.project);
    // The root, or everything in it.
    if parts.is_empty() || (parts.len() == 1 && is_everything(&parts[0])) {
        return Place::Root;
    }
    // Home itself, everything in it, or an ancestor of it.
    if !home.is_empty() && parts.len() <= home.len() && covers(parts, &home)
        || !home.is_empty() && is_contents(parts, &home)
    {
        return Place::Home;
    }
    for g in &at.gate {
        let g = parts_of(g);
        if !g.is_empty() && (starts_with(parts, &g) || covers(parts, &g)) {
            return Place::Gate;
        }
    }
    if !home.is_empty() {
        if let Some(below) = parts
            .get(home.len()..)
            .filter(|_| starts_with(parts, &home))
        {
            let below: Vec<&str> = below.iter().map(String::as_str).collect();
            if below.len() == 1 && names_any(below[0], GATE_HOME_FILES) {
                return Place::Gate;
            }
            for gp in GATE_HOME_PATHS {
                let b: Vec<String> = below.iter().map(|s| s.to_string()).collect();
                if starts_with(&b, gp) || (!b.is_empty() && covers(&b, gp)) {
                    return Place::Gate;
                }
            }
        }
    }
    if is_secret_path(parts) {
        return Place::Secrets;
    }
    if parts.iter().any(|c| names_any(c, VCS_DIRS)) {
        return Place::Vcs;
    }
    // Shared memory is a temporary directory anyone can write, not a device.
    if parts.len() >= 3 && parts[0] == "dev" && parts[1] == "shm" {
        return Place::Temp;
    }
    if parts.first().is_some_and(|c| c == "dev") {
        return match parts.get(1) {
            Some(d) if !is_glob(d) && (HARMLESS_DEVICES.contains(&d.as_str())) => Place::Nowhere,
            _ => Place::Device,
        };
    }
    // Home, everything in it, or an ancestor of it (`/home`, `/home/*`).
    // Any depth (`~/**/x`) is wider than the project below it.
    let in_project = !project.is_empty()
        && starts_with(parts, &project)
        && !parts[..project.len()].iter().any(|c| c == "**");
    if !home.is_empty() && (is_contents(parts, &home) || covers(parts, &home) && !in_project) {
        // `covers` also holds for an ancestor of the project inside home: still home's
        // contents are at stake only when the path is home or above.
        if parts.len() <= home.len() {
            return Place::Home;
        }
    }
    if parts.first().is_some_and(|c| c == "home" || c == "Users") && parts.len() <= 2 {
        return Place::Home;
    }
    if parts.len() == 2 && parts[0] == "home" && !home.is_empty() && !starts_with(parts, &home) {
        return Place::Home;
    }
    // The project root, everything in it, or an ancestor of it.
    if !project.is_empty() && (is_contents(parts, &project) || covers(parts, &project)) {
        return Place::Project;
    }
    if in_project {
        let below = &parts[project.len()..];
        if below
            .iter()
            .any(|c| names_any(c, OUTPUT_DIRS) && !is_everything(c))
        {
            return Place::Outputs;
        }
        return Place::Source;
    }
    if !home.is_empty() && starts_with(parts, &home) {
        let first = &parts[home.len()];
        // The per-user cache (`~/.cache`, macOS `~/Library/Caches`) holds what programs
        // rebuild: temporary, like `/var/cache`'s package caches.
        let second = parts.get(home.len() + 1).map(String::as_str);
        if first == ".cache" || (first == "Library" && second == Some("Caches")) {
            return Place::Temp;
        }
        if first.starts_with('.') || (is_glob(first) && could_match(first, ".bashrc")) {
            return Place::Dotfiles;
        }
        return Place::Outside;
    }
    let top = parts[0].as_str();
    let temp_depth = if top == "tmp" {
        Some(1)
    } else if parts.starts_with(&["var".into(), "tmp".into()]) {
        Some(2)
    } else {
        None
    };
    if let Some(depth) = temp_depth {
        // The shared temporary directory itself, or every entry of it (`rm -rf /tmp/*`),
        // holds other programs' sockets, locks and sessions: the system's, not scratch.
        let whole =
            parts.len() == depth || (parts.len() == depth + 1 && is_everything(&parts[depth]));
        return if whole { Place::System } else { Place::Temp };
    }
    // Any depth below the root (`find / -name x`): system directories among the rest.
    if top == "**" {
        return Place::System;
    }
    // Served content and installed applications below a system directory (`/var/www/html`,
    // `/srv/app`, `/opt/tool/x`) are not the system itself.
    const SERVED: &[&[&str]] = &[&["var", "www"], &["srv"], &["opt"]];
    if SERVED
        .iter()
        .any(|c| parts.len() > c.len() && starts_with(parts, c))
    {
        return Place::Outside;
    }
    // System caches that package managers rebuild (`rm -rf /var/lib/apt/lists/*`).
    const CACHES: &[&[&str]] = &[&["var", "cache"], &["var", "lib", "apt", "lists"]];
    if CACHES
        .iter()
        .any(|c| parts.len() > c.len() && starts_with(parts, c))
    {
        return Place::Temp;
    }
    if SYSTEM_DIRS.iter().any(|d| top.eq_ignore_ascii_case(d))
        || (is_glob(top)
            && SYSTEM_DIRS
                .iter()
                .any(|d| could_match(top, &d.to_ascii_lowercase())))
    {
        return Place::System;
    }
    Place::Outside
}

/// Where an administrator installs their own software and content, apart from the
/// operating system's (the file-system hierarchy's `/usr/local`, `/opt`, `/srv`, and served
/// content in `/var/www`): these directories and everything below them. `resolved` is an
/// absolute path as [`Resolved::display`] gives it.
pub(crate) fn is_local_software(resolved: &str) -> bool {
    const LOCAL: &[&str] = &["/usr/local", "/opt", "/srv", "/var/www"];
    LOCAL.iter().any(|d| {
        resolved
            .strip_prefix(d)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// gate's own locations that a directory may contain, as absolute paths (whether or not they
/// exist): each runtime's hook settings and gate's project directory in the project and in
/// home (`.claude/`, `.github/hooks/`, `.gate/`, …), gate's state and configuration under
/// home, and gate's own paths ([`Where::gate`]). A directory that holds one of them that
/// exists "contains a protected location": an act on everything in it reaches gate
/// (`effects::contents`).
pub fn protected_anchors(at: &Where) -> Vec<String> {
    let mut out = Vec::new();
    for base in [&at.project, &at.home] {
        if base.is_empty() || !base.starts_with('/') {
            continue;
        }
        let base = base.trim_end_matches('/');
        for d in GATE_DIRS {
            out.push(format!("{base}/{d}"));
        }
        out.push(format!("{base}/.github/hooks"));
    }
    if at.home.starts_with('/') {
        let home = at.home.trim_end_matches('/');
        for f in GATE_HOME_FILES {
            out.push(format!("{home}/{f}"));
        }
        for p in GATE_HOME_PATHS {
            out.push(format!("{home}/{}", p.join("/")));
        }
    }
    out.extend(at.gate.iter().cloned());
    out.sort();
    out.dedup();
    out
}

/// Whether a directory entry's name may make it one of gate's locations wherever it is (a
/// runtime's hook-settings directory, `.github` with its `hooks`, gate's database or key):
/// a cheap test before the path is classed.
pub(crate) fn may_be_gate_name(name: &str) -> bool {
    GATE_DIRS.iter().any(|d| name.eq_ignore_ascii_case(d))
        || name.eq_ignore_ascii_case(".github")
        || name.eq_ignore_ascii_case(".claude.json")
        || name.eq_ignore_ascii_case("gate.db")
        || name.eq_ignore_ascii_case("gate.key")
}

/// Whether `path` is strictly below the directory `dir` (both absolute and normalised; a
/// trailing `/` on `dir` and the root `/` are understood).
/// Host names that are this machine.
const LOOPBACK_HOSTS: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "127.0.0.1",
    "0.0.0.0",
    "::1",
    "[::1]",
];

/// The local path a remote spec names when its host is this machine
/// (`localhost:.claude/x`, `me@127.0.0.1:/etc/x`): relative paths are the home's.
pub fn loopback_path(spec: &str) -> Option<String> {
    let url = spec
        .strip_prefix("scp://")
        .or_else(|| spec.strip_prefix("ssh://"))
        .or_else(|| spec.strip_prefix("rsync://"));
    let (host, path) = match url {
        // `scp://[user@]host[:port]/path`.
        Some(rest) => {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = authority.rsplit('@').next().unwrap_or(authority);
            let host = match host.strip_prefix('[') {
                Some(h) => h.split(']').next().unwrap_or(h),
                None => host.split(':').next().unwrap_or(host),
            };
            (host, path)
        }
        // `[user@]host:path`, `[::1]:path`.
        None => {
            let spec = spec.rsplit('@').next().unwrap_or(spec);
            match spec.strip_prefix('[') {
                Some(rest) => rest.split_once("]:")?,
                None => spec.split_once(':').filter(|(h, _)| !h.contains('/'))?,
            }
        }
    };
    if !LOOPBACK_HOSTS.contains(&host) {
        return None;
    }
    Some(if path.starts_with('/') || path.starts_with('~') {
        path.to_string()
    } else if path.is_empty() {
        "~".to_string()
    } else {
        format!("~/{path}")
    })
}

pub fn below(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path.len() > dir.len()
        && path.starts_with(dir)
        && (dir.is_empty() || path.as_bytes()[dir.len()] == b'/')
}

/// Resolve and class a target as written.
pub fn place_of(text: &str, cwd: &str, oldpwd: Option<&str>, at: &Where) -> (Place, String) {
    let r = resolve(text, cwd, &at.home, oldpwd);
    (classify(&r, at), r.display())
}

/// [`place_of`] in a working directory that may be unknown (`$CD` after a `cd` the line
/// cannot resolve, `$WORKDIR` for a tool's working directory written with a variable): a
/// relative target there has an unknown root.
pub fn place_in(text: &str, cwd: &str, oldpwd: Option<&str>, at: &Where) -> (Place, String) {
    if cwd.starts_with('$')
        && !text.starts_with('/')
        && !text.starts_with('~')
        && !text.starts_with('$')
    {
        let r = resolve(text, "/", &at.home, oldpwd);
        let r = Resolved {
            unknown_root: true,
            ..r
        };
        return (classify(&r, at), r.display());
    }
    place_of(text, cwd, oldpwd, at)
}

/// The protected places a text names, and `unknown` when it names a destructive verb (for
/// code the model cannot follow). A place is named by a path in the text, read by its
/// components (`.claude/settings.json`, `~/.local/state/gate/gate.db`, `.git/config`,
/// `~/.ssh/id_rsa`), never by a substring of a longer name (`/tmp/delegate.db`,
/// `os.environ`, `repo.git` name none).
pub fn named_in(text: &str) -> Vec<Place> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let (mut gate, mut secret, mut vcs) = (false, false, false);
    let words = lower.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '`'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | ','
                    | ';'
                    | '='
                    | '+'
                    | '<'
                    | '>'
                    | '|'
                    | '&'
                    | ':'
                    | '$'
            )
    });
    for word in words.filter(|w| !w.is_empty()) {
        let comps: Vec<String> = word
            .split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        gate |= comps.iter().any(|c| {
            names_any(c, GATE_DIRS)
                || c == "gate.db"
                || c.starts_with("gate.db-")
                || c == "gate.key"
                || GATE_HOME_FILES.contains(&c.as_str())
        }) || comps
            .windows(2)
            .any(|w| w[0] == ".github" && w[1] == "hooks")
            || GATE_HOME_PATHS
                .iter()
                .any(|p| (0..comps.len()).any(|i| starts_with(&comps[i..], p)));
        secret |= comps.iter().any(|c| is_secret_name(c));
        vcs |= comps.iter().any(|c| names_any(c, VCS_DIRS));
    }
    if gate {
        out.push(Place::Gate);
    }
    if secret {
        out.push(Place::Secrets);
    }
    if vcs {
        out.push(Place::Vcs);
    }
    // A destructive verb in code that cannot be followed: its target is unknown, and the
    // spec's tier for `opaque` at `unknown` applies (at least an ask in the shipped specs).
    const VERBS: &[&str] = &[
        "os.remove",
        "os.unlink",
        "unlinksync",
        "shutil.",
        "file.delete",
        "fileutils.",
        "deletesync",
        "remove_file",
        "remove_dir",
        "rm -",
        "rm_rf",
        "rm_r(",
        "rmtree",
        "rmsync",
        "rmdirsync",
        "remove_tree",
        "removedirs",
        "unlink",
        "shred",
        "mkfs",
        "of=/dev",
        "drop table",
        "drop database",
        "truncate ",
        "remove-item",
        "rimraf",
        "wipefs",
        "deletemany",
        "dropdatabase",
        "flushall",
        "reset --hard",
        "push -f",
        "push --force",
        "kill -9",
        "shutdown",
        "reboot",
        "format-volume",
        "clear-disk",
        "chmod -r",
        "chown -r",
        "fs.rm(",
        "rmdir",
        "deno.remove",
        "fs.remove",
        "fs.emptydir",
    ];
    if VERBS.iter().any(|v| lower.contains(v)) {
        out.push(Place::Unknown);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Where {
        Where {
            cwd: "/home/u/proj".into(),
            project: "/home/u/proj".into(),
            home: "/home/u".into(),
            gate: vec!["/opt/gate-home".into()],
            disk: false,
        }
    }

    fn place(t: &str) -> Place {
        let w = at();
        place_of(t, &w.cwd, Some("/home/u"), &w).0
    }

    #[test]
    fn spellings_of_gate_and_settings() {
        for t in [
            ".claude/settings.json",
            ".claude//settings.json",
            ".claude/./settings.json",
            "./.CLAUDE/settings.json",
            ".cl*/settings.json",
            ".claude",
            ".c?aude",
            "~/.claude.json",
            "~/.codex/hooks.json",
            "$HOME/.gemini/settings.json",
            "${HOME:?}/.copilot",
            "/home/u/proj/.github/hooks/gate.json",
            "~/.local/state/gate/gate.db",
            "~/.config/gate/config.toml",
            "/opt/gate-home/gate.db",
            "$DIR/.claude/settings.json",
            "src/../.gate/config.toml",
            ".*",
        ] {
            assert_eq!(place(t), Place::Gate, "{t}");
        }
    }

    #[test]
    fn classes() {
        let cases = [
            ("/", Place::Root),
            ("/*", Place::Root),
            ("//", Place::Root),
            ("/..", Place::Root),
            ("~", Place::Home),
            ("~/", Place::Home),
            ("~/*", Place::Home),
            ("$HOME", Place::Home),
            ("${HOME}/", Place::Home),
            ("/home", Place::Home),
            ("/home/*", Place::Home),
            ("~bob", Place::Home),
            ("../..", Place::Home),
            ("~/.bashrc", Place::Dotfiles),
            ("~/.config/nvim/init.lua", Place::Dotfiles),
            ("~/.ssh/id_rsa", Place::Secrets),
            (".env", Place::Secrets),
            (".env.production", Place::Secrets),
            (".env.example", Place::Source),
            ("certs/server.pem", Place::Secrets),
            (".git", Place::Vcs),
            (".git/config", Place::Vcs),
            ("/etc/passwd", Place::System),
            ("/usr/*", Place::System),
            ("/dev/sda", Place::Device),
            ("/dev/null", Place::Nowhere),
            (".", Place::Project),
            ("./", Place::Project),
            ("*", Place::Project),
            ("./*", Place::Project),
            ("$PWD", Place::Project),
            ("..", Place::Home),
            ("../sibling", Place::Outside),
            ("/home/u/proj", Place::Project),
            ("/home/u/proj/target", Place::Outputs),
            ("target/debug", Place::Outputs),
            ("crates/a/node_modules", Place::Outputs),
            ("src/main.rs", Place::Source),
            ("src/*", Place::Source),
            ("*.log", Place::Source),
            ("/tmp/x", Place::Temp),
            // A value inside one name is a pattern over it; a whole name or the word's
            // start may be any path.
            ("/tmp/$X.log", Place::Temp),
            ("./x-${TAG:1}.tgz", Place::Source),
            ("logs/$(date +%F).log", Place::Source),
            ("build/$NAME.o", Place::Outputs),
            ("target/app-${VERSION}-linux.tar.gz", Place::Outputs),
            ("$X.log", Place::Unknown),
            ("build/$X", Place::Unknown),
            ("build/$X/y", Place::Unknown),
            ("/tmp/${A}${B}", Place::Unknown),
            ("/var/tmp/x", Place::Temp),
            ("/tmp", Place::System),
            ("/tmp/*", Place::System),
            ("/var/tmp/*", Place::System),
            ("/tmp/*.log", Place::Temp),
            ("/tmp/build-*", Place::Temp),
            ("/dev/shm/x.so", Place::Temp),
            ("/var/lib/apt/lists/*", Place::Temp),
            ("/var/cache/apt/archives", Place::Temp),
            ("/var/cache", Place::System),
            ("~/.cache/pip", Place::Temp),
            ("~/.cache", Place::Temp),
            ("~/Library/Caches/x", Place::Temp),
            ("~/.cachex", Place::Dotfiles),
            ("/var/lib/postgresql", Place::System),
            ("/var/www/html", Place::Outside),
            ("/var/www", Place::System),
            ("/usr/local", Place::System),
            ("/opt/tool/bin", Place::Outside),
            ("~/other/x", Place::Outside),
            ("$DIR", Place::Unknown),
            ("$(pwd)/x", Place::Unknown),
            ("./**/*.bak", Place::Source),
            ("./**/node_modules", Place::Outputs),
            ("~/**/*.pyc", Place::Outside),
            ("/**/x", Place::System),
            ("./**/*.json", Place::Gate),
            ("./**/settings.json", Place::Gate),
            ("./**/*", Place::Source),
        ];
        for (t, want) in cases {
            assert_eq!(place(t), want, "{t}");
        }
    }

    #[test]
    fn secret_locations() {
        for t in [
            "~/.kube/config",
            "~/.docker/config.json",
            "~/.netrc",
            "~/.pgpass",
            "~/.my.cnf",
            "~/.config/gh/hosts.yml",
            "~/.npmrc",
            "~/.pypirc",
            "~/.git-credentials",
            "~/.terraform.d/credentials.tfrc.json",
            "infra/terraform.tfstate",
            "~/.vault-token",
            "~/.azure/accessTokens.json",
            "~/.config/gcloud/application_default_credentials.json",
            "~/.config/gcloud/legacy_credentials/me@x.io/adc.json",
            "deploy/id_ed25519_sk",
            "keys/id_rsa_work",
            "certs/client.p12",
            "win/cert.pfx",
            "android/release.keystore",
            ".envrc",
            "k8s/secrets.yaml",
            "config/credentials.json",
            "gcp/service-account-prod.json",
            "~/.cargo/credentials.toml",
            "/var/run/secrets/kubernetes.io/serviceaccount/token",
            "$DIR/.kube/config",
        ] {
            assert_eq!(place(t), Place::Secrets, "{t}");
        }
        // The same names elsewhere, and a tool's ordinary settings, are not secrets.
        for t in [
            "~/.docker/daemon.json",
            "src/config.json",
            "~/.config/gh/config.yml",
            "docs/hosts.yml",
            ".env.example",
            "src/identity.rs",
        ] {
            assert_ne!(place(t), Place::Secrets, "{t}");
        }
    }

    #[test]
    fn a_placeholder_is_a_path_of_its_shape() {
        let at = |t: &str| resolve(t, "/p", "/h", None).parts.join("/");
        assert_eq!(at("{{/dev/sdX}}"), "dev/sdX");
        assert_eq!(at("{{~/.bashrc}}"), "h/.bashrc");
        assert_eq!(at("{{ path/to/file }}"), "p/path/to/file");
        // Brace expansions and templates in a word are not whole placeholders.
        assert_eq!(at("{a,b}"), "p/{a,b}");
        assert_eq!(at("x{{y}}"), "p/x{{y}}");
        assert_eq!(at("{{}}"), "p/{{}}");
    }

    #[test]
    fn braces_expand() {
        assert_eq!(braces("{/,~}"), vec!["/", "~"]);
        assert_eq!(braces("a{b,c{d,e}}f"), vec!["abf", "acdf", "acef"]);
        assert_eq!(braces("${HOME}"), vec!["${HOME}"]);
        assert_eq!(braces("x{a}"), vec!["x{a}"]);
    }
}
