//! A tool's input read by what its fields are, whatever the tool is called: one table of key
//! roles ([`ROLES`]) and one reader over the whole input ([`read`]), at any depth (bounded).
//!
//! A field names a path (`path`, `filepath`, `src`, `dest`, `uri`, `paths: […]`), the
//! directory the tool works in (`workdir`, `cwd`, `dir_path`, `directory`, …), shell text
//! (`command`, `cmd`, `script`; an argv array, with `args` beside it), the keystrokes a shell
//! driver sends (`chars`, `input`, `keys`), or prose and data that name nothing (`description`,
//! `pattern`, `content`, …). A string under a key the table does not know is kept as a
//! *mention* when it could be a path (one line, no prose): the engine makes it a target where
//! it resolves to a protected place or outside the project. Keys are compared without case,
//! `_` and `-` (`filePath`, `file_path` and `file-path` are one key).

use super::json::{Node, Object};
use gate_spec::ir::ActionClass;

/// What a field of a tool's input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A path the tool acts on (or a list of them).
    Path,
    /// A path or a `file://` URI; any other URL names no path here.
    Locator,
    /// A script: a path to one, or its text (read both ways: a path run as a line is a
    /// program of unknown effect, text taken as a path names a file in the project).
    Script,
    /// The directory the tool works in: its relative paths and its commands' are resolved
    /// against it. A tool that runs no shell text acts on it too.
    Workdir,
    /// Shell text the tool runs (a string, or an argv array).
    Shell,
    /// A list of command lines (or of objects holding them).
    Lines,
    /// Keystrokes sent to a running shell or terminal: shell text when the tool drives one.
    Keys,
    /// Arguments of the program a `command` field names (`{"command": "git", "args": […]}`).
    Args,
    /// Prose, patterns, written text, identifiers: nothing to read for paths or commands.
    Inert,
}

/// The role of each key, normalised (lower case, no `_` or `-`).
pub(crate) const ROLES: &[(&str, Role)] = &[
    ("path", Role::Path),
    ("paths", Role::Path),
    ("filepath", Role::Path),
    ("filepaths", Role::Path),
    ("file", Role::Path),
    ("files", Role::Path),
    ("filename", Role::Path),
    ("filenames", Role::Path),
    ("pathname", Role::Path),
    ("notebookpath", Role::Path),
    ("absolutepath", Role::Path),
    ("relativepath", Role::Path),
    ("fullpath", Role::Path),
    ("src", Role::Path),
    ("source", Role::Path),
    ("sources", Role::Path),
    ("sourcepath", Role::Path),
    ("dest", Role::Path),
    ("destination", Role::Path),
    ("destinationpath", Role::Path),
    ("destpath", Role::Path),
    ("target", Role::Path),
    ("targets", Role::Path),
    ("targetpath", Role::Path),
    ("from", Role::Path),
    ("to", Role::Path),
    ("oldpath", Role::Path),
    ("newpath", Role::Path),
    ("output", Role::Path),
    ("outputpath", Role::Path),
    ("outputfile", Role::Path),
    ("outfile", Role::Path),
    ("inputpath", Role::Path),
    ("inputfile", Role::Path),
    ("folder", Role::Path),
    ("folderpath", Role::Path),
    ("executable", Role::Path),
    ("uri", Role::Locator),
    ("url", Role::Locator),
    ("fileuri", Role::Locator),
    ("href", Role::Locator),
    ("resource", Role::Locator),
    ("resourceuri", Role::Locator),
    ("script", Role::Script),
    ("scriptpath", Role::Script),
    ("workdir", Role::Workdir),
    ("cwd", Role::Workdir),
    ("dirpath", Role::Workdir),
    ("dir", Role::Workdir),
    ("directory", Role::Workdir),
    ("workingdirectory", Role::Workdir),
    ("workingdir", Role::Workdir),
    ("basedir", Role::Workdir),
    ("basepath", Role::Workdir),
    ("rootdir", Role::Workdir),
    ("projectdir", Role::Workdir),
    ("command", Role::Shell),
    ("commands", Role::Lines),
    ("cmd", Role::Shell),
    ("commandline", Role::Shell),
    ("shellcommand", Role::Shell),
    ("bash", Role::Shell),
    ("run", Role::Shell),
    ("exec", Role::Shell),
    ("chars", Role::Keys),
    ("input", Role::Keys),
    ("keys", Role::Keys),
    ("stdin", Role::Keys),
    ("text", Role::Keys),
    ("line", Role::Keys),
    ("keystrokes", Role::Keys),
    ("args", Role::Args),
    ("arguments", Role::Args),
    ("argv", Role::Args),
    ("description", Role::Inert),
    ("title", Role::Inert),
    ("body", Role::Inert),
    ("message", Role::Inert),
    ("prompt", Role::Inert),
    ("query", Role::Inert),
    ("pattern", Role::Inert),
    ("glob", Role::Inert),
    ("include", Role::Inert),
    ("exclude", Role::Inert),
    ("type", Role::Inert),
    ("outputmode", Role::Inert),
    ("content", Role::Inert),
    ("contents", Role::Inert),
    ("oldstring", Role::Inert),
    ("newstring", Role::Inert),
    ("oldstr", Role::Inert),
    ("newstr", Role::Inert),
    ("filetext", Role::Inert),
    ("newsource", Role::Inert),
    ("patch", Role::Inert),
    ("instruction", Role::Inert),
    ("reason", Role::Inert),
    ("justification", Role::Inert),
    ("explanation", Role::Inert),
    ("summary", Role::Inert),
    ("comment", Role::Inert),
    ("language", Role::Inert),
    ("mode", Role::Inert),
    ("model", Role::Inert),
    ("subagenttype", Role::Inert),
    ("todos", Role::Inert),
    ("cellid", Role::Inert),
    ("celltype", Role::Inert),
    ("editmode", Role::Inert),
    ("sessionid", Role::Inert),
    ("id", Role::Inert),
    ("shell", Role::Inert),
    ("encoding", Role::Inert),
];

/// Words of a tool's name that say it drives a shell or a terminal: its [`Role::Keys`]
/// fields are shell text (`write_stdin`'s `chars`, `write_bash`'s `input`,
/// `mcp__tmux__send_keys`'s `keys`).
const SHELL_DRIVERS: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "zsh",
    "terminal",
    "term",
    "tty",
    "pty",
    "console",
    "stdin",
    "exec",
    "command",
    "cmd",
    "tmux",
    "screen",
    "process",
    "repl",
    "powershell",
];

/// Tools whose shell-looking field (`command`, `input`, `patch`) is a patch, read as one
/// (`codex::refine`), not as a command line.
const PATCH_TOOLS: &[&str] = &["apply_patch", "applypatch"];

/// Deepest nesting of the input that is read.
const MAX_DEPTH: usize = 6;
/// Most strings of one input that are looked at.
const MAX_STRINGS: usize = 256;
/// Longest string kept as a path or a mention.
const MAX_PATH: usize = 4096;

/// What the reader found in a tool's input.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Read {
    /// Paths the tool acts on, as written (`file://` URIs made paths).
    pub(crate) paths: Vec<String>,
    /// The working directory, as written (the first top-level one).
    pub(crate) workdir: Option<String>,
    /// Shell text to analyse as lines.
    pub(crate) commands: Vec<String>,
    /// Strings under keys with no role that could be paths.
    pub(crate) mentions: Vec<String>,
}

/// Whether `key`, without case, `_` or `-`, is `name` (written that way in [`ROLES`]).
fn same_key(key: &str, name: &str) -> bool {
    let mut key = key
        .bytes()
        .filter(|b| *b != b'_' && *b != b'-')
        .map(|b| b.to_ascii_lowercase());
    let mut name = name.bytes();
    loop {
        match (key.next(), name.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

/// The role of a key, when the table knows it.
pub(crate) fn role_of(key: &str) -> Option<Role> {
    ROLES
        .iter()
        .find(|(name, _)| same_key(key, name))
        .map(|(_, r)| *r)
}

/// Whether a tool of this name and class drives a shell (its keystroke fields are shell text).
fn drives_shell(tool: &str, class: Option<ActionClass>) -> bool {
    if class == Some(ActionClass::Exec) {
        return true;
    }
    let lower = tool.to_ascii_lowercase();
    let verb = lower.strip_prefix("mcp__").unwrap_or(&lower);
    verb.split(['_', '-', '.'])
        .any(|w| SHELL_DRIVERS.contains(&w))
}

/// A path as a tool would take it: a `file://` URI made a path (`%XX` decoded); `None` for
/// another URL.
pub(crate) fn as_path(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_PATH {
        return None;
    }
    let lower = t.get(..7).map(str::to_ascii_lowercase);
    if lower.as_deref() == Some("file://") {
        let rest = &t[7..];
        let rest = rest.strip_prefix("localhost").unwrap_or(rest);
        return Some(percent_decoded(rest));
    }
    if let Some(rest) = t.strip_prefix("file:").filter(|r| r.starts_with('/')) {
        return Some(percent_decoded(rest));
    }
    // Another scheme (`https://…`, `s3://…`): no path of this machine.
    let scheme = t.find("://").is_some_and(|at| {
        at > 0
            && t[..at]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    (!scheme).then(|| t.to_string())
}

fn percent_decoded(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a string under a key with no role could name a path: one line, not too long, and
/// either one word or spelled as a path (`/…`, `~…`, `./…`, `../…`, a `file:` URI). Prose
/// ("see the notes") is not a path.
fn could_be_path(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_PATH || t.contains(|c: char| c.is_control()) {
        return false;
    }
    let spelled = ["/", "~", "./", "../", "file:", "$HOME", "${HOME"]
        .iter()
        .any(|p| t.starts_with(p));
    spelled || !t.contains(char::is_whitespace)
}

/// Read a tool's input by its keys' roles.
pub(crate) fn read(input: &Object<'_>, tool: &str, class: Option<ActionClass>) -> Read {
    let patch = PATCH_TOOLS.contains(&tool);
    let mut reader = Reader {
        out: Read::default(),
        seen: 0,
        keys_are_shell: drives_shell(tool, class) && !patch,
        shell: !patch,
    };
    reader.object(input, 0);
    // A tool that runs no shell text acts on the directory it names.
    if reader.out.commands.is_empty() && class != Some(ActionClass::Exec) {
        if let Some(dir) = reader.out.workdir.clone() {
            reader.path(&dir);
        }
    }
    reader.out
}

struct Reader {
    out: Read,
    /// Strings looked at so far.
    seen: usize,
    keys_are_shell: bool,
    /// Whether shell fields are shell text (not a patch).
    shell: bool,
}

impl Reader {
    /// The members of an object, each key once with its last value (as a parsed `Value`
    /// holds repeated keys), in the order of the keys' first appearance.
    fn object(&mut self, object: &Object<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut keys: Vec<&str> = Vec::new();
        for (key, _) in object.members() {
            if keys.contains(&key) {
                continue;
            }
            keys.push(key);
            let Some(value) = object.get(key) else {
                continue;
            };
            match role_of(key) {
                Some(Role::Path) => self.each_string(value, |r, s| r.path(s)),
                Some(Role::Locator) => self.each_string(value, |r, s| {
                    if let Some(p) = as_path(s) {
                        r.path(&p);
                    }
                }),
                Some(Role::Script) => self.each_string(value, |r, s| {
                    r.path(s);
                    r.command(s.to_string());
                }),
                Some(Role::Workdir) => match (value.as_str(), &self.out.workdir) {
                    (Some(dir), None) if !dir.trim().is_empty() => {
                        if self.count() {
                            self.out.workdir = Some(dir.to_string());
                        }
                    }
                    _ => self.each_string(value, |r, s| r.path(s)),
                },
                Some(Role::Shell | Role::Lines) if !self.shell => {}
                Some(Role::Shell) => self.shell(object, value, depth),
                Some(Role::Keys) if self.keys_are_shell => self.shell(object, value, depth),
                Some(Role::Lines) => match value {
                    Node::Array(items) => {
                        for item in items {
                            match item {
                                Node::Object(o) => self.object(o, depth + 1),
                                Node::String(_) => self.shell(object, item, depth),
                                _ => {}
                            }
                        }
                    }
                    _ => self.shell(object, value, depth),
                },
                Some(Role::Keys | Role::Args | Role::Inert) => {}
                None => self.unknown(value, depth),
            }
        }
    }

    /// Counts one string looked at; `false` once the bound is reached.
    fn count(&mut self) -> bool {
        self.seen += 1;
        self.seen <= MAX_STRINGS
    }

    fn path(&mut self, text: &str) {
        let t = text.trim();
        if !t.is_empty() && t.len() <= MAX_PATH && !self.out.paths.iter().any(|p| p == t) {
            self.out.paths.push(t.to_string());
        }
    }

    fn command(&mut self, line: String) {
        if !line.trim().is_empty() && !self.out.commands.contains(&line) {
            self.out.commands.push(line);
        }
    }

    /// A string, or every string of an array of them.
    fn each_string(&mut self, value: &Node<'_>, mut f: impl FnMut(&mut Self, &str)) {
        match value {
            Node::String(s) if self.count() => f(self, s),
            Node::Array(items) => {
                for item in items {
                    if let Node::String(s) = item {
                        if !self.count() {
                            return;
                        }
                        f(self, s);
                    }
                }
            }
            _ => {}
        }
    }

    /// Shell text: a string, or an argv array (as one quoted line); a program name with its
    /// arguments in an `args` field beside it is the line of both.
    fn shell(&mut self, object: &Object<'_>, value: &Node<'_>, depth: usize) {
        match value {
            Node::String(s) => {
                if !self.count() {
                    return;
                }
                let args: Vec<&str> = ["args", "arguments", "argv"]
                    .iter()
                    .filter_map(|k| object.get(k))
                    .find_map(strings)
                    .unwrap_or_default();
                let mut line = s.to_string();
                if !args.is_empty() {
                    line.push(' ');
                    line.push_str(&gate_runtime::shell::quote_argv(&args));
                }
                self.command(line);
            }
            Node::Array(_) => {
                if let Some(words) = strings(value).filter(|w| !w.is_empty()) {
                    if self.count() {
                        self.command(gate_runtime::shell::quote_argv(&words));
                    }
                }
            }
            Node::Object(o) => self.object(o, depth + 1),
            _ => {}
        }
    }

    /// A value under a key with no role: strings that could be paths are mentions; objects
    /// and arrays are read in turn.
    fn unknown(&mut self, value: &Node<'_>, depth: usize) {
        match value {
            Node::String(s) if self.count() && could_be_path(s) => {
                if let Some(p) = as_path(s).filter(|p| !self.out.mentions.contains(p)) {
                    self.out.mentions.push(p);
                }
            }
            Node::Array(items) => {
                for item in items {
                    if self.seen > MAX_STRINGS {
                        return;
                    }
                    self.unknown(item, depth + 1);
                }
            }
            Node::Object(o) => self.object(o, depth + 1),
            _ => {}
        }
    }
}

/// The strings of an array made only of strings.
fn strings<'n>(value: &'n Node<'_>) -> Option<Vec<&'n str>> {
    let items = value.as_array()?;
    let words: Vec<&str> = items.iter().filter_map(Node::as_str).collect();
    (words.len() == items.len()).then_some(words)
}
