//! The command-model file format (`commands/*.toml`, a project's `.gate/commands/*.toml`):
//! its TOML shape, read with spans, and the checks that turn it into a validated model or an
//! error at `file:line:col`. One definition, included by `build.rs` (which compiles the
//! built-in files into static tables) and by the runtime (which reads a project's files).
//! See docs/commands.md, "Teaching gate a program".

use gate_spec::effect::{Act, Place};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// The format's version; a file says `version = 1`.
pub const VERSION: u32 = 1;

/// The analysers a form may name: code for what data cannot say (kept in step with the
/// runtime's registry by a test).
pub const ANALYSERS: &[&str] = &[
    "remote_after_dashdash",
    "ansible",
    "in_container",
    "docker_compose",
    "kill",
    "process_patterns",
    "fuser_ports",
    "units",
    "service_unit",
    "parted_script",
    "redis",
    "shell_state",
    "sql_options",
    "sql_operands",
    "sql_file_or_stdin",
    "curl",
    "wget",
    "aria2c",
    "httpie",
    "scp",
    "ssh",
    "remote_command",
    "remote_removes",
    "socat",
    "rclone",
    "forge_api",
    "forge_assets",
    "forge_clone",
    "git_alias",
    "git_apply",
    "git_checkout",
    "git_checkout_index",
    "git_clean",
    "git_clone",
    "git_config",
    "git_difftool",
    "git_filter_repo",
    "git_init",
    "git_mv",
    "git_options",
    "git_push",
    "git_rebase",
    "git_reset",
    "git_restore",
    "git_rm",
    "git_run",
    "git_stash",
    "git_submodule",
    "git_switch",
    "git_worktree",
    "clone",
    "svn_checkout",
    "node_run",
    "node_script",
    "node_install",
    "runner",
    "package_config",
    "cargo_gate",
    "make",
    "chmod_mode",
    "chown_owner",
    "mktemp",
    "find",
    "fd",
    "option_code",
    "rsync",
    "object_copy",
    "object_sync",
    "cloud_operation",
    "rename",
    "jq",
    "yq",
    "patch",
];

/// The query languages a program's `queries` may be read as (kept in step with the
/// runtime's registry by a test): SQL (and the SQL dialects: CQL, InfluxQL, ClickHouse's),
/// MongoDB shell code, Python run by Django's shell against its models, and code gate does
/// not read (`opaque`, with the places it names).
pub const LANGUAGES: &[&str] = &["sql", "mongo", "django", "opaque"];

/// Where a program takes the queries it runs, and what they are read as: the options that
/// carry query text or name files of it, the operands that are query text, files of it or
/// the database file, and else standard input (a piped text, or a file redirected in, whose
/// name is the evidence). See docs/commands.md, "Queries".
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queries {
    /// The analyser that reads the text (`sql`, `mongo`, `django`).
    pub language: String,
    /// Options (`c|command`) whose value is query text.
    #[serde(default)]
    pub text: String,
    /// Options (`f|file`) whose value names a file of queries (`-`, `/dev/stdin`: the
    /// input is read).
    #[serde(default)]
    pub files: String,
    /// Of `text` and `files`, those run before the input, which is still read (`sqlite3
    /// -cmd`, `-init`, `mysql --init-command`).
    #[serde(default)]
    pub first: String,
    /// The character that separates several files in one value (`sqlcmd -i a.sql,b.sql`).
    #[serde(default)]
    pub split: String,
    /// What the operands are: `text` (each is query text), or a word pattern (`*.js`) for
    /// those that are files of queries; none: the operands are no queries.
    #[serde(default)]
    pub operands: String,
    /// Operand N (from 1) is the database file: read, written when the queries write.
    #[serde(default)]
    pub database: u8,
    /// An option that opens the database read-only.
    #[serde(default)]
    pub readonly: String,
    /// A database operand that names no file (`:memory:`).
    #[serde(default)]
    pub in_memory: String,
    /// Options whose value is a file the results are written to (overwritten), or
    /// `|command`, a command they are piped to (`psql -o '|sh'`).
    #[serde(default)]
    pub output: String,
}
/// The roles each analyser reads from the data (`roles = { body = "d|data" }`): which of
/// the program's options carry what the analyser reads (a request body, an output file, a
/// remote command's settings). An analyser not listed reads none.
pub const ROLES: &[(&str, &[&str])] = &[
    (
        "curl",
        &[
            "output",
            "output_dir",
            "remote_name",
            "remote_name_all",
            "header_name",
            "saves",
            "keeps",
            "body",
            "body_pairs",
            "body_text",
            "form",
            "upload",
            "method",
            "header",
            "config",
            "url",
        ],
    ),
    (
        "wget",
        &[
            "output",
            "output_dir",
            "saves",
            "keeps",
            "reads",
            "body",
            "body_file",
            "method",
            "recursive",
            "no_save",
            "replaces",
            "config",
        ],
    ),
    ("aria2c", &["output", "output_dir", "reads", "code"]),
    ("make", &["file"]),
    (
        "httpie",
        &["output", "download", "offline", "raw_body", "session"],
    ),
    ("scp", &["settings", "control"]),
    (
        "ssh",
        &["settings", "control", "config", "no_stdin", "prints"],
    ),
    ("rclone", &["dry_run"]),
    ("remote_command", &["hosts_file"]),
    ("ansible", &["module", "module_args"]),
];

/// How a program's parser reads options (see `getopt::Style`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StyleName {
    Gnu,
    Exact,
    Go,
}

/// A set of options (see `getopt::Grammar`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub short: String,
    #[serde(default)]
    pub short_value: String,
    #[serde(default)]
    pub long: Vec<String>,
    #[serde(default)]
    pub long_value: Vec<String>,
    /// Short options whose value is optional and only attached (a program's own options
    /// only: `short_optional` on the program).
    #[serde(skip)]
    pub short_optional: String,
}

/// One program, validated.
#[derive(Clone, Debug)]
pub struct Program {
    pub names: Vec<String>,
    /// Name prefixes that are this program too (`terraform-` for `terraform-1.5`).
    pub prefixes: Vec<String>,
    pub style: StyleName,
    pub short: String,
    pub short_value: String,
    pub long: Vec<String>,
    pub long_value: Vec<String>,
    pub posix: bool,
    /// The program takes a signal as an option (`-9`, `-KILL`, `-SIGKILL`): such words are
    /// no options of its grammar, and the `signal:` condition reads them and the values of
    /// these options (`s|signal`; empty: only the `-SIGNAL` words).
    pub signals: Option<String>,
    /// A word of one dash and then only these characters is an operand, not options
    /// (`chmod -x f`: the mode `-x`; chmod's `rwxXstugo,+-=`).
    pub dash_operands: String,
    /// The program has subcommands: `PROG help …` prints help. `false` for a program whose
    /// operands are only operands (`rm help` removes a file named `help`).
    pub subcommands: bool,
    /// Short options whose value is optional and only attached (`mysql -pSECRET`, `-p`).
    pub short_optional: String,
    /// The queries a command no form matches runs (see [`Queries`]).
    pub queries: Option<Queries>,
    /// The options after the first operand, when they are not the program's own (a CLI whose
    /// global options come before the subcommand, each subcommand's after: `docker -H h rm
    /// -f c`, `docker-compose -f x.yml rm -fv`).
    pub sub: Option<Options>,
    /// The option whose values (each seen from the one before) are the directory the
    /// command's relative targets resolve from (`git -C DIR`; `R|repository`: either).
    pub dir: Option<String>,
    /// Code run on every command before its form, for global options that carry code or
    /// settings (`git -c core.pager=…`).
    pub before: Option<String>,
    /// Options (`a|b`) whose value is a shell line the program runs (`svn --diff-cmd`).
    pub code_options: Option<String>,
    /// Options whose values are `KEY=VALUE` settings, and the key prefixes (compared in any
    /// case) whose value is code the program runs (`hg --config hooks.x=…`): `opaque`.
    pub code_settings: Option<CodeSettings>,
    /// Any of these holds: the command changes nothing (`--version`, `-h`).
    pub inert: Vec<Cond>,
    /// Leading operand words that are no part of the subcommand path (`run-all`).
    pub skip: Vec<String>,
    pub forms: Vec<Form>,
    /// The effects when no form matches.
    pub otherwise: Vec<Eff>,
    /// Code that reads each command no form matches, in place of `otherwise` (a program
    /// whose words need reading rather than matching: `kill`, `mount`, `systemctl`).
    pub analyser: Option<String>,
    /// The model knows only the program's forms: a command no form matches is read as one
    /// of a program gate has no model of (`flask run`; `flask db downgrade` is a form).
    pub partial: bool,
    /// A Windows program (`windows = "program"`: `reg`, `sc`, `vssadmin`) or PowerShell
    /// cmdlet (`"cmdlet"`: `Stop-Computer`, found only in PowerShell text): its name is found
    /// in any case and with `.exe`, its words are read lower-cased with `\` as `/` (so its
    /// forms are written in lower case), and each is a Windows path (`C:\Windows` is
    /// `/Windows`, `%USERPROFILE%` the home) where it names one.
    pub windows: bool,
    /// A PowerShell cmdlet (`windows = "cmdlet"`): found only in PowerShell text.
    pub cmdlet: bool,
    /// Each operand is a task the program runs in turn (`rake db:drop db:create`): read
    /// through the `verb` forms, the first matching each adding its effects.
    pub tasks: bool,
    /// The program shows names, sizes and types of the files it reads, never their
    /// content (`ls`, `stat`): what it reads is not revealed.
    pub names_only: bool,
    /// Which options carry what the program's analyser reads: `(role, "a|b")`.
    pub roles: Vec<(String, String)>,
    /// Where `otherwise` is written (`commands/x.toml: prog`).
    pub source: String,
    pub examples: Vec<Example>,
    /// How a copy's operands are read: its sources, and where each lands (`$src`, `$dest`).
    pub destination: Option<Destination>,
}

/// A copy's operands (`destination = { … }`): its sources are every operand but the last (all
/// of them under an `into` option), and each lands inside a directory (`-t DIR`; the last
/// operand spelled as one, or named for several sources) or at the last operand itself.
#[derive(Clone, Debug, Default)]
pub struct Destination {
    /// Options (`t|target-directory`) whose value is the directory every operand lands in.
    pub into: String,
    /// Options (`T|no-target-directory`) that make the last operand the destination itself,
    /// never a directory to land in.
    pub exact: String,
    /// Conditions any of which keeps what a destination held (`n|no-clobber`, a backup):
    /// there an `overwrite@$dest` is a `write`.
    pub keep: Vec<Cond>,
    /// The directory a lone operand lands in, for a program that takes one (`ln TARGET`: `.`).
    pub default: Option<String>,
}

/// Settings given by options whose value names code the program runs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeSettings {
    /// The options (`config|config-toml`).
    pub options: String,
    /// The key prefixes (`hooks.`, `ui.editor`).
    pub keys: Vec<String>,
}

/// One form of a program: where it is in the subcommand tree, when it applies, what it does.
#[derive(Clone, Debug)]
pub struct Form {
    /// `commands/cloud.toml: kubectl delete`.
    pub source: String,
    /// Each word of the subcommand path as its alternatives (`delete|rm`, `delete-*`,
    /// `*:destroy`, `*`).
    pub path: Vec<Vec<String>>,
    /// The operands are exactly the path (nothing after it).
    pub end: bool,
    /// A word anywhere among the operands from index `verb_from` on.
    pub verb: Vec<String>,
    pub verb_from: u8,
    pub when: Vec<Cond>,
    pub effects: Vec<Eff>,
    pub analyser: Option<String>,
    /// The queries the command runs (see [`Queries`]).
    pub queries: Option<Queries>,
    /// Which options carry what the form's analyser reads: `(role, "a|b")`.
    pub roles: Vec<(String, String)>,
    /// The options of this subcommand, read from the words after the path in place of the
    /// program's (`git symbolic-ref -qd HEAD`: `-d` is symbolic-ref's, not git's).
    pub options: Option<Options>,
    /// The command prints every item of its kind, one a line (`brew list`): a command
    /// handed its output acts on all of them (the `every` condition).
    pub lists: bool,
    /// The command prints every item of its kind as a table, a header and then a row each
    /// (`docker ps -a`): cut to a column (`| tail -n +2 | awk '{print $1}'`), the listing
    /// names all of them.
    pub rows: bool,
    pub examples: Vec<Example>,
    /// Where the examples are written, when not with the form itself: the form set it was
    /// included from (`commands/packages-node.toml: form set node-installs`).
    pub examples_from: Option<String>,
}

/// A condition on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The option (canonical name: a letter or a full long name) is given; `v|volumes`: one
    /// of them is.
    Has(String),
    /// None of them is.
    Lacks(String),
    /// Its value is this (or one of these: `update=none|none-fail`).
    Is(String, String),
    /// It is given, with no value or another value (none of these: `backup!=none|off`).
    IsNot(String, String),
    /// One of its values contains the text (`output~push=true`; `s|size~+`: of either;
    /// `a|b` as the text: either text). With `~~` (the third field), in any ASCII case, the
    /// text kept in lower case (`permission-mode~~bypasspermissions`).
    ValueHas(String, String, bool),
    /// Negated (`!settings~{|=`): one of its values is given that contains none of the
    /// texts (a settings file rather than settings the line shows); `~~` in any case.
    ValueLacks(String, String, bool),
    /// Operand N (1-based, after the path) contains the text.
    OperandHas(u8, String),
    /// Operand N is absent or does not contain the text.
    OperandLacks(u8, String),
    /// Operand N is one of these words (`$2=zero`, `$1=first|prev`, `$2=@privileged-groups`).
    OperandIs(u8, String),
    /// Operand N is absent or none of these words.
    OperandIsNot(u8, String),
    /// Some operand contains the text (`$*~://`).
    AnyOperandHas(String),
    /// No operand contains the text.
    NoOperandHas(String),
    /// The command is handed every item a listing names (`docker rm $(docker ps -aq)`).
    Every,
    /// Some value of one of the options (`G|groups`), or of a comma-separated list in it
    /// (`-G docker,sudo`), is one of the words (`u|uid=0`, `G|groups=@privileged-groups`).
    ValueIn(String, String),
    /// Some operand is one of the words (`$*=sudo|wheel`).
    AnyOperandIs(String),
    /// No operand is.
    NoOperandIs(String),
    /// The signal the command sends (`-9`, `-KILL`, `-s HUP`, `--signal=SIGUSR1`), named
    /// without `SIG` in any case, is one of the words (`signal:0|@reload-signals`); the
    /// options that give it are the program's `signals` (first field).
    Signal(String, String),
    /// Every option given is one of these (`only:p|print|v`; none given holds too): a
    /// command whose options only print. Negated (`!only:…`), another option is given, an
    /// unknown one included.
    Only(String),
    /// Another option than these is given.
    NotOnly(String),
}

/// An effect: an act at a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eff {
    pub act: Act,
    pub at: At,
}

/// Where an effect lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    Place(Place),
    /// A fixed path as written (`~/.kube/config`).
    Path(String),
    /// Operand N (1-based) after the subcommand path.
    Operand(u8),
    /// Every operand after the subcommand path.
    Operands,
    /// The last operand (`$-1`: a copy's destination).
    Last,
    /// Every operand but the last (`$*-1`: a copy's sources).
    AllButLast,
    /// The value of an option.
    Value(String),
    /// A copy's sources (`$src`; see [`Destination`]).
    Sources,
    /// Where each of a copy's sources lands (`$dest`).
    Landings,
    /// Each source seen from the directory it lands in (`$src-from-dest`: what a relative
    /// symbolic link points at).
    SourcesFromLandings,
    /// The text after `KEY=` of each operand spelled so (`$of=`: `dd of=/dev/sda`).
    Keyed(String),
    /// Operand N with text after it (`$2+aa`: the first file `split` names from a prefix).
    OperandWith(u8, String),
}

/// A command line and the exact effects it has (`act@place`, sorted).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub line: String,
    pub effects: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    /// Option sets declared once and named by the forms (`options = "git-branch"`).
    #[serde(default)]
    option_sets: BTreeMap<String, Options>,
    /// Runs of forms several programs share, named where each includes them
    /// (`[[program.form]] forms = "node-installs"`).
    #[serde(default)]
    form_sets: BTreeMap<String, Vec<Spanned<RawForm>>>,
    /// Lists of words named once (`[word_sets] privileged-groups = […]`): `@name` in a path
    /// word, a verb or a condition's words stands for them, and analysers read them by name.
    #[serde(default)]
    word_sets: BTreeMap<String, Vec<String>>,
    #[serde(default, rename = "program")]
    programs: Vec<Spanned<RawProgram>>,
    #[serde(default, rename = "console")]
    consoles: Vec<Spanned<RawConsole>>,
}

/// A family of consoles (`[[console]]`): programs whose commands, handed to them through an
/// option or on standard input, have escapes to the shell or to another language (`gdb -ex
/// 'shell CMD'`). The escapes are added to whatever the program's own model says.
#[derive(Clone, Debug)]
pub struct Console {
    pub programs: Vec<String>,
    /// Options whose value (the next word) is a console command.
    pub options: Vec<String>,
    /// Prefixes a console command is attached to (`+` in `less +!cmd`, `--ex=`).
    pub attached: Vec<String>,
    /// Standard input is console commands.
    pub stdin: bool,
    /// The console quotes as Tcl does (`{…}`) and separates commands with `;` too.
    pub tcl: bool,
    /// A command's prefix and what the text after it is (one of [`ESCAPE_RUNS`]); an empty
    /// prefix (alone): the whole value.
    pub escapes: Vec<(String, String)>,
    /// `commands/consoles.toml: console gdb`.
    pub source: String,
    pub examples: Vec<Example>,
}

/// What the text after a console's escape is: a shell line, code gate does not read
/// (`opaque`), or code in a language gate reads.
pub const ESCAPE_RUNS: &[&str] = &[
    "shell", "opaque", "python", "js", "perl", "ruby", "php", "lua",
];

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConsole {
    programs: Vec<String>,
    #[serde(default)]
    options: Vec<String>,
    #[serde(default)]
    attached: Vec<String>,
    #[serde(default)]
    stdin: bool,
    #[serde(default)]
    tcl: bool,
    escapes: Vec<RawEscape>,
    #[serde(default)]
    examples: Vec<Example>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEscape {
    #[serde(default)]
    prefix: String,
    runs: Spanned<String>,
}

/// The consoles a file declares (`[[console]]`), checked: what each escape runs is known,
/// an escape of the whole value stands alone, and every console shows examples.
pub fn consoles(file: &str, text: &str) -> Result<Vec<Console>, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    let mut out = Vec::new();
    for c in &raw.consoles {
        let offset = c.span().start;
        let c = c.get_ref();
        let fail = |m: String| Err(at(file, text, offset, &m));
        let Some(first) = c.programs.first() else {
            return fail("a console names its programs".into());
        };
        if c.options.is_empty() && c.attached.is_empty() && !c.stdin {
            return fail(format!(
                "console {first}: no option, attached prefix or input carries its commands"
            ));
        }
        for e in &c.escapes {
            if !ESCAPE_RUNS.contains(&e.runs.get_ref().as_str()) {
                return Err(at(
                    file,
                    text,
                    e.runs.span().start,
                    &format!("an escape runs one of: {}", ESCAPE_RUNS.join(", ")),
                ));
            }
            if e.prefix.is_empty() && c.escapes.len() > 1 {
                return fail(format!(
                    "console {first}: an escape of the whole value stands alone"
                ));
            }
        }
        if c.escapes.is_empty() || c.examples.is_empty() {
            return fail(format!(
                "console {first}: name its escapes and show examples"
            ));
        }
        out.push(Console {
            programs: c.programs.clone(),
            options: c.options.clone(),
            attached: c.attached.clone(),
            stdin: c.stdin,
            tcl: c.tcl,
            escapes: c
                .escapes
                .iter()
                .map(|e| (e.prefix.clone(), e.runs.get_ref().clone()))
                .collect(),
            source: format!("{file}: console {first}"),
            examples: c.examples.clone(),
        });
    }
    Ok(out)
}

/// A form's (or a program's `sub`) options: written out, or the name of a file's option set.
#[derive(Clone, Deserialize)]
#[serde(untagged)]
enum RawOptions {
    Named(String),
    Inline(Options),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    names: Spanned<Vec<String>>,
    #[serde(default)]
    prefixes: Vec<String>,
    style: Option<Spanned<String>>,
    /// An option set that is the program's own options (in place of `short`, `long`, …).
    options: Option<Spanned<String>>,
    #[serde(default)]
    short: String,
    #[serde(default)]
    short_value: String,
    #[serde(default)]
    long: Vec<String>,
    #[serde(default)]
    long_value: Vec<String>,
    #[serde(default)]
    posix: bool,
    signals: Option<String>,
    #[serde(default)]
    dash_operands: String,
    subcommands: Option<bool>,
    #[serde(default)]
    short_optional: String,
    queries: Option<Spanned<Queries>>,
    sub: Option<RawOptions>,
    dir: Option<Spanned<String>>,
    before: Option<Spanned<String>>,
    code_options: Option<Spanned<String>>,
    code_settings: Option<Spanned<CodeSettings>>,
    #[serde(default)]
    inert: Vec<Spanned<String>>,
    #[serde(default)]
    skip: Vec<String>,
    #[serde(default)]
    otherwise: Vec<Spanned<String>>,
    analyser: Option<Spanned<String>>,
    roles: Option<Spanned<BTreeMap<String, String>>>,
    #[serde(default)]
    partial: Option<Spanned<bool>>,
    windows: Option<Spanned<String>>,
    #[serde(default)]
    tasks: bool,
    #[serde(default)]
    names_only: bool,
    #[serde(default)]
    examples: Vec<Example>,
    #[serde(default, rename = "form")]
    forms: Vec<Spanned<RawForm>>,
    destination: Option<Spanned<RawDestination>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDestination {
    into: Option<Spanned<String>>,
    exact: Option<Spanned<String>>,
    #[serde(default)]
    keep: Vec<Spanned<String>>,
    default: Option<String>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawForm {
    /// This entry stands for the forms of the file's form set of that name, in order.
    forms: Option<Spanned<String>>,
    #[serde(default)]
    path: Vec<Spanned<String>>,
    #[serde(default)]
    end: bool,
    verb: Option<Spanned<String>>,
    #[serde(default)]
    verb_from: u8,
    #[serde(default)]
    when: Vec<Spanned<String>>,
    #[serde(default)]
    effects: Vec<Spanned<String>>,
    analyser: Option<Spanned<String>>,
    queries: Option<Spanned<Queries>>,
    roles: Option<Spanned<BTreeMap<String, String>>>,
    options: Option<RawOptions>,
    #[serde(default)]
    lists: bool,
    #[serde(default)]
    rows: bool,
    #[serde(default)]
    examples: Vec<Example>,
}

/// `file:line:col: message` for a byte offset into `text`.
fn at(file: &str, text: &str, offset: usize, message: &str) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{file}:{line}:{col}: {message}")
}

/// The word sets a file declares (`[word_sets]`), for the analysers that read them by name.
pub fn word_sets(file: &str, text: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    Ok(raw.word_sets)
}

/// Read and check one file. `file` is how errors and provenance name it
/// (`commands/cloud.toml`); `examples_required`: every form must show one (the built-ins).
pub fn parse(file: &str, text: &str, examples_required: bool) -> Result<Vec<Program>, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(file, text, offset, e.message().trim())
    })?;
    if *raw.version.get_ref() != VERSION {
        return Err(at(
            file,
            text,
            raw.version.span().start,
            &format!(
                "unsupported version {} (this gate reads version {VERSION})",
                raw.version.get_ref()
            ),
        ));
    }
    let err = |offset: usize, message: String| at(file, text, offset, &message);
    if let (false, Some(c)) = (examples_required, raw.consoles.first()) {
        return Err(err(
            c.span().start,
            "a project's file adds programs; consoles (`[[console]]`) are built in".into(),
        ));
    }
    let sets = Sets {
        options: &raw.option_sets,
        forms: &raw.form_sets,
        words: &raw.word_sets,
        used: std::cell::RefCell::new(Vec::new()),
    };
    for (name, words) in &raw.word_sets {
        if words.is_empty()
            || words
                .iter()
                .any(|w| w.is_empty() || w.contains('|') || w.starts_with('@'))
        {
            return Err(err(
                raw.version.span().start,
                format!(
                    "word set `{name}`: a set is non-empty words, none with `|` or starting `@`"
                ),
            ));
        }
    }
    for (name, forms) in &raw.form_sets {
        if let Some(f) = forms.iter().find(|f| f.get_ref().forms.is_some()) {
            return Err(err(
                f.span().start,
                format!("form set `{name}`: a set's forms are forms, not other sets"),
            ));
        }
        if examples_required {
            if let Some(f) = forms.iter().find(|f| f.get_ref().examples.is_empty()) {
                return Err(err(
                    f.span().start,
                    format!("a form of set `{name}` shows no example (examples = [{{ line = …, effects = […] }}])"),
                ));
            }
        }
    }
    raw.programs
        .into_iter()
        .map(|p| {
            let span = p.span();
            program(file, p.into_inner(), &sets, examples_required)
                .map_err(|(offset, m)| err(offset.unwrap_or(span.start), m))
        })
        .collect()
}

type Fault = (Option<usize>, String);

/// A file's shared declarations: its option sets and form sets (and which form sets a
/// program included already: a set's examples are shown once, with its first use).
struct Sets<'f> {
    options: &'f BTreeMap<String, Options>,
    forms: &'f BTreeMap<String, Vec<Spanned<RawForm>>>,
    words: &'f BTreeMap<String, Vec<String>>,
    used: std::cell::RefCell<Vec<String>>,
}

/// A form of a program, with the form set it was included from, and whether that set was
/// shown already (its examples are the set's, checked there).
struct Entry {
    form: Spanned<RawForm>,
    set: Option<String>,
    shown: bool,
}

/// A program's form entries with each `forms = "SET"` replaced by the set's forms.
fn expand(sets: &Sets<'_>, forms: Vec<Spanned<RawForm>>) -> Result<Vec<Entry>, Fault> {
    let mut out = Vec::new();
    for f in forms {
        let Some(name) = f.get_ref().forms.clone() else {
            out.push(Entry {
                form: f,
                set: None,
                shown: false,
            });
            continue;
        };
        let r = f.get_ref();
        if !r.path.is_empty()
            || r.end
            || r.verb.is_some()
            || !r.when.is_empty()
            || !r.effects.is_empty()
            || r.analyser.is_some()
            || r.queries.is_some()
            || r.roles.is_some()
            || r.options.is_some()
            || r.lists
            || r.rows
            || !r.examples.is_empty()
        {
            return Err((
                Some(f.span().start),
                "a form that includes a form set (`forms = \"NAME\"`) says nothing else".into(),
            ));
        }
        let Some(set) = sets.forms.get(name.get_ref()) else {
            let known: Vec<&str> = sets.forms.keys().map(String::as_str).collect();
            return Err((
                Some(name.span().start),
                format!(
                    "unknown form set `{}` (this file's `[[form_sets.NAME]]`: {})",
                    name.get_ref(),
                    known.join(", ")
                ),
            ));
        };
        let shown = sets.used.borrow().contains(name.get_ref());
        if !shown {
            sets.used.borrow_mut().push(name.get_ref().clone());
        }
        for g in set {
            let mut g = g.clone();
            if shown {
                g.get_mut().examples.clear();
            }
            out.push(Entry {
                form: g,
                set: Some(name.get_ref().clone()),
                shown,
            });
        }
    }
    Ok(out)
}

/// Options written out, or the option set they name.
fn resolve(
    sets: &BTreeMap<String, Options>,
    raw: Option<RawOptions>,
) -> Result<Option<Options>, Fault> {
    match raw {
        None => Ok(None),
        Some(RawOptions::Inline(o)) => Ok(Some(o)),
        Some(RawOptions::Named(name)) => match sets.get(&name) {
            Some(o) => Ok(Some(o.clone())),
            None => {
                let known: Vec<&str> = sets.keys().map(String::as_str).collect();
                Err((
                    None,
                    format!(
                        "unknown option set `{name}` (this file's `[option_sets.NAME]`: {})",
                        known.join(", ")
                    ),
                ))
            }
        },
    }
}

fn program(
    file: &str,
    mut p: RawProgram,
    sets: &Sets<'_>,
    examples_required: bool,
) -> Result<Program, Fault> {
    if let Some(name) = p.options.take() {
        let written = !p.short.is_empty()
            || !p.short_value.is_empty()
            || !p.long.is_empty()
            || !p.long_value.is_empty();
        let own = resolve(
            sets.options,
            Some(RawOptions::Named(name.get_ref().clone())),
        )
        .map_err(|(_, m)| (Some(name.span().start), m))?;
        match own {
            Some(o) if !written => {
                p.short = o.short;
                p.short_value = o.short_value;
                p.long = o.long;
                p.long_value = o.long_value;
            }
            _ => {
                return Err((
                    Some(name.span().start),
                    "a program's `options` set is its options: no `short`, `short_value`, \
                     `long` or `long_value` beside it"
                        .into(),
                ))
            }
        }
    }
    let sub = resolve(sets.options, p.sub.take())?;
    let mut forms = Vec::new();
    for Entry {
        form: f,
        set,
        shown,
    } in expand(sets, std::mem::take(&mut p.forms))?
    {
        let span = f.span();
        let mut f = f.into_inner();
        let own =
            resolve(sets.options, f.options.take()).map_err(|(_, m)| (Some(span.start), m))?;
        forms.push((span, f, own, (set, shown)));
    }
    let names_at = p.names.span().start;
    let names = p.names.into_inner();
    let Some(first) = names.first().cloned() else {
        return Err((Some(names_at), "a program needs at least one name".into()));
    };
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || n.contains(char::is_whitespace))
    {
        return Err((Some(names_at), format!("`{bad}` is no program name")));
    }
    let style = match p
        .style
        .as_ref()
        .map(|s| (s.span().start, s.get_ref().as_str()))
    {
        None | Some((_, "exact")) => StyleName::Exact,
        Some((_, "gnu")) => StyleName::Gnu,
        Some((_, "go")) => StyleName::Go,
        Some((offset, other)) => {
            return Err((
                Some(offset),
                format!("unknown style `{other}` (gnu, exact or go)"),
            ))
        }
    };
    let sub_long = sub
        .iter()
        .chain(forms.iter().filter_map(|(_, _, own, _)| own.as_ref()))
        .flat_map(|s| s.long.iter().chain(&s.long_value));
    for name in p.long.iter().chain(&p.long_value).chain(sub_long) {
        if name.starts_with('-') || name.is_empty() {
            return Err((
                None,
                format!("long option `{name}` is written without dashes"),
            ));
        }
    }
    let mut out = Program {
        source: format!("{file}: {first}"),
        names,
        prefixes: p.prefixes,
        style,
        short: p.short,
        short_value: p.short_value,
        long: p.long,
        long_value: p.long_value,
        posix: p.posix,
        signals: p.signals.clone(),
        dash_operands: p.dash_operands,
        subcommands: p.subcommands.unwrap_or(true),
        short_optional: p.short_optional,
        queries: None,
        sub,
        dir: None,
        before: None,
        code_options: None,
        code_settings: None,
        inert: Vec::new(),
        skip: p.skip,
        forms: Vec::new(),
        otherwise: Vec::new(),
        analyser: None,
        partial: p.partial.as_ref().is_some_and(|b| *b.get_ref()),
        windows: p.windows.is_some(),
        cmdlet: p.windows.as_ref().is_some_and(|w| w.get_ref() == "cmdlet"),
        tasks: p.tasks,
        names_only: p.names_only,
        roles: Vec::new(),
        examples: p.examples,
        destination: None,
    };
    if let Some(d) = &p.destination {
        out.destination = Some(destination(&out, d, sets.words)?);
    }
    if let Some(w) = &p.windows {
        if !matches!(w.get_ref().as_str(), "program" | "cmdlet") {
            return Err((
                Some(w.span().start),
                "`windows` is \"program\" (found from every shell) or \"cmdlet\" (only in \
                 PowerShell text)"
                    .into(),
            ));
        }
        if let Some(n) = out
            .names
            .iter()
            .find(|n| n.bytes().any(|b| b.is_ascii_uppercase()))
        {
            return Err((
                None,
                format!("a Windows program's names are written in lower case (`{n}`)"),
            ));
        }
    }
    if let Some(b) = p.partial.as_ref().filter(|b| *b.get_ref()) {
        if !p.otherwise.is_empty() || p.analyser.is_some() {
            return Err((
                Some(b.span().start),
                "a `partial` program reads what no form matches as unknown: it has no \
                 `otherwise` and no program `analyser`"
                    .into(),
            ));
        }
    }
    if let Some(a) = &p.analyser {
        let name = analyser(a)?;
        // Many programs share one analyser: the entry is the analyser, not the first name.
        out.source = format!("{file}: {first}… (analyser `{name}`)");
        out.analyser = Some(name);
        if !p.otherwise.is_empty() {
            return Err((
                Some(a.span().start),
                "a program's `analyser` reads what no form matches: it has no `otherwise`".into(),
            ));
        }
        if examples_required && out.examples.is_empty() {
            return Err((
                Some(a.span().start),
                format!(
                    "program `{}` with an analyser shows no example (examples = [{{ line = …, effects = […] }}])",
                    out.source
                ),
            ));
        }
    }
    if let Some(r) = &p.roles {
        out.roles = roles(&out, None, out.analyser.as_deref(), r)?;
    }
    if let Some(d) = &p.dir {
        valued(&out, d.get_ref(), d.span().start, "dir")?;
        out.dir = Some(d.get_ref().clone());
    }
    if let Some(b) = &p.before {
        out.before = Some(analyser(b)?);
    }
    if let Some(c) = &p.code_options {
        valued(&out, c.get_ref(), c.span().start, "code_options")?;
        out.code_options = Some(c.get_ref().clone());
    }
    if let Some(c) = &p.code_settings {
        let s = c.get_ref();
        valued(&out, &s.options, c.span().start, "code_settings.options")?;
        if s.keys.is_empty() || s.keys.iter().any(String::is_empty) {
            return Err((
                Some(c.span().start),
                "`code_settings.keys`: name the setting prefixes whose value is code".into(),
            ));
        }
        out.code_settings = Some(s.clone());
    }
    if let Some(q) = &p.queries {
        out.queries = Some(queries(&out, None, q)?);
        if examples_required && out.examples.is_empty() {
            return Err((
                Some(q.span().start),
                format!(
                    "program `{}` with `queries` shows no example (examples = [{{ line = …, effects = […] }}])",
                    out.source
                ),
            ));
        }
    }
    for c in &p.inert {
        out.inert.push(cond(&out, None, c, sets.words)?);
    }
    for e in &p.otherwise {
        out.otherwise.push(effect(&out, None, e)?);
    }
    for (span, f, own, (set, shown)) in forms {
        let mut made = form(file, &first, &out, f, own, sets.words)
            .map_err(|(o, m)| (o.or(Some(span.start)), m))?;
        made.examples_from = set.map(|s| format!("{file}: form set {s}"));
        if examples_required && !shown && made.examples.is_empty() {
            return Err((
                Some(span.start),
                format!(
                    "form `{}` shows no example (examples = [{{ line = …, effects = […] }}])",
                    made.source
                ),
            ));
        }
        out.forms.push(made);
    }
    Ok(out)
}

fn form(
    file: &str,
    program: &str,
    p: &Program,
    f: RawForm,
    options: Option<Options>,
    words: &BTreeMap<String, Vec<String>>,
) -> Result<Form, Fault> {
    let mut path = Vec::new();
    for w in &f.path {
        path.push(pattern(w, words)?);
    }
    let verb = match &f.verb {
        Some(v) => pattern(v, words)?,
        None => Vec::new(),
    };
    // A Windows program's words are read lower-cased: a capital could never match.
    let capital = |w: &Spanned<String>| w.get_ref().bytes().any(|b| b.is_ascii_uppercase());
    if let Some(w) = f
        .path
        .iter()
        .chain(&f.verb)
        .find(|w| p.windows && capital(w))
    {
        return Err((
            Some(w.span().start),
            "a Windows program's words are read in lower case: write them so".into(),
        ));
    }
    if path.is_empty() && verb.is_empty() && !f.end && f.when.is_empty() {
        return Err((
            None,
            "subcommand path empty: give `path` words, a `verb`, `when` conditions, or \
             `end = true` for the command with no operands (what no form matches is the \
             program's `otherwise`)"
                .into(),
        ));
    }
    let mut label = String::new();
    for alternatives in &path {
        label.push(' ');
        label.push_str(&alternatives.join("|"));
    }
    if !verb.is_empty() {
        label.push_str(&format!(" …{}", verb.join("|")));
    }
    for c in &f.when {
        label.push_str(&format!(" [{}]", c.get_ref()));
    }
    let own = options.as_ref();
    let mut when = Vec::new();
    for c in &f.when {
        when.push(cond(p, own, c, words)?);
    }
    let mut effects = Vec::new();
    for e in &f.effects {
        effects.push(effect(p, own, e)?);
    }
    let analyser = match &f.analyser {
        Some(a) => Some(analyser(a)?),
        None => None,
    };
    let queries = match &f.queries {
        Some(q) => Some(self::queries(p, own, q)?),
        None => None,
    };
    let roles = match &f.roles {
        Some(r) => self::roles(p, own, analyser.as_deref(), r)?,
        None => Vec::new(),
    };
    Ok(Form {
        source: format!("{file}: {program}{label}"),
        path,
        end: f.end,
        verb,
        verb_from: f.verb_from,
        when,
        effects,
        analyser,
        queries,
        roles,
        options,
        lists: f.lists,
        rows: f.rows,
        examples: f.examples,
        examples_from: None,
    })
}

/// A copy's destination, its options and conditions checked against the program's.
fn destination(
    p: &Program,
    d: &Spanned<RawDestination>,
    words: &BTreeMap<String, Vec<String>>,
) -> Result<Destination, Fault> {
    let raw = d.get_ref();
    let mut out = Destination {
        default: raw.default.clone(),
        ..Destination::default()
    };
    if let Some(into) = &raw.into {
        valued(p, into.get_ref(), into.span().start, "destination.into")?;
        out.into = into.get_ref().clone();
    }
    if let Some(exact) = &raw.exact {
        for name in exact.get_ref().split('|') {
            option(p, None, name, exact.span().start)?;
        }
        out.exact = exact.get_ref().clone();
    }
    for c in &raw.keep {
        out.keep.push(cond(p, None, c, words)?);
    }
    Ok(out)
}

/// Check that each of the options `names` (`a|b`) is declared with a value.
fn valued(p: &Program, names: &str, offset: usize, key: &str) -> Result<(), Fault> {
    if names.split('|').any(|n| declared(p, None, n) != Some(true)) {
        return Err((
            Some(offset),
            format!("`{key} = \"{names}\"`: no option with a value of that name"),
        ));
    }
    Ok(())
}

/// A `queries` table checked: a known language, its options declared (with a value, but
/// `readonly`), `first` among `text` and `files`.
fn queries(p: &Program, form: Option<&Options>, q: &Spanned<Queries>) -> Result<Queries, Fault> {
    let offset = Some(q.span().start);
    let q = q.get_ref();
    let fault = |m: String| Err((offset, format!("`queries`: {m}")));
    if !LANGUAGES.contains(&q.language.as_str()) {
        return fault(format!(
            "unknown language `{}` (known: {})",
            q.language,
            LANGUAGES.join(", ")
        ));
    }
    let names = |s: &str| -> Vec<String> {
        s.split('|')
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    };
    for (key, set) in [
        ("text", &q.text),
        ("files", &q.files),
        ("output", &q.output),
    ] {
        for n in names(set) {
            if declared(p, form, &n) != Some(true) {
                return fault(format!("`{key}`: `{n}` is no option with a value"));
            }
        }
    }
    for n in names(&q.readonly) {
        if declared(p, form, &n).is_none() {
            return fault(format!("`readonly`: `{n}` is no option"));
        }
    }
    let runs = names(&q.text)
        .into_iter()
        .chain(names(&q.files))
        .collect::<Vec<_>>();
    if let Some(n) = names(&q.first).into_iter().find(|n| !runs.contains(n)) {
        return fault(format!("`first`: `{n}` is none of `text` and `files`"));
    }
    if q.split.chars().count() > 1 {
        return fault("`split` is one character".into());
    }
    let alts: Vec<String> = q.operands.split('|').map(str::to_string).collect();
    if q.operands != "text" && !q.operands.is_empty() && !pattern_ok(&alts) {
        return fault("`operands` is `text` or a word pattern (`*.js`)".into());
    }
    if (q.database == 0) && (!q.readonly.is_empty() || !q.in_memory.is_empty()) {
        return fault("`readonly` and `in_memory` are of a `database` operand".into());
    }
    Ok(q.clone())
}

/// An analyser's name, when the registry has it.
fn analyser(a: &Spanned<String>) -> Result<String, Fault> {
    if ANALYSERS.contains(&a.get_ref().as_str()) {
        Ok(a.get_ref().clone())
    } else {
        Err((
            Some(a.span().start),
            format!(
                "unknown analyser `{}` (known: {})",
                a.get_ref(),
                ANALYSERS.join(", ")
            ),
        ))
    }
}

/// Alternatives (`a|b|@set`) with each `@set` replaced by the words of the file's set.
fn alternatives(
    text: &str,
    words: &BTreeMap<String, Vec<String>>,
    offset: usize,
) -> Result<Vec<String>, Fault> {
    let mut out = Vec::new();
    for a in text.split('|') {
        match a.strip_prefix('@') {
            Some(name) => match words.get(name) {
                Some(set) => out.extend(set.iter().cloned()),
                None => {
                    let known: Vec<&str> = words.keys().map(String::as_str).collect();
                    return Err((
                        Some(offset),
                        format!(
                            "unknown word set `{name}` (this file's `[word_sets]`: {})",
                            known.join(", ")
                        ),
                    ));
                }
            },
            None => out.push(a.to_string()),
        }
    }
    Ok(out)
}

/// The roles an entry gives its analyser: each a role the analyser reads, naming options
/// the program (or the form) declares.
fn roles(
    p: &Program,
    form: Option<&Options>,
    analyser: Option<&str>,
    raw: &Spanned<BTreeMap<String, String>>,
) -> Result<Vec<(String, String)>, Fault> {
    let offset = raw.span().start;
    let Some(analyser) = analyser else {
        return Err((
            Some(offset),
            "`roles` say which options carry what an analyser reads: name the `analyser`".into(),
        ));
    };
    let known: &[&str] = ROLES
        .iter()
        .find(|(a, _)| *a == analyser)
        .map_or(&[], |(_, r)| r);
    let mut out = Vec::new();
    for (role, names) in raw.get_ref() {
        if !known.contains(&role.as_str()) {
            return Err((
                Some(offset),
                format!(
                    "analyser `{analyser}` reads no role `{role}` (its roles: {})",
                    known.join(", ")
                ),
            ));
        }
        for name in names.split('|') {
            option(p, form, name, offset)?;
        }
        out.push((role.clone(), names.clone()));
    }
    Ok(out)
}

/// A path word's alternatives (`delete|rm|delete-*|@set`).
fn pattern(
    w: &Spanned<String>,
    words: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<String>, Fault> {
    let alts = alternatives(w.get_ref(), words, w.span().start)?;
    if !pattern_ok(&alts) {
        return Err((
                Some(w.span().start),
                format!("`{}`: a path word is `word`, `prefix*`, `*suffix`, `*infix*`, `*` or `w[ord]` (`w` and any longer prefix of `word`), alternatives joined by `|`, at least one of them not `!`-marked (`!*local`: not such a word)", w.get_ref()),
        ));
    }
    Ok(alts)
}

/// Whether each alternative is a word pattern and one of them is not `!`-marked.
fn pattern_ok(alts: &[String]) -> bool {
    let positive = alts.iter().any(|a| !a.starts_with('!'));
    positive
        && alts.iter().all(|a| {
            let a = a.strip_prefix('!').unwrap_or(a);
            let inner = a.trim_start_matches('*').trim_end_matches('*');
            let bad_star = a.is_empty() || inner.contains('*') || (a != "*" && inner.is_empty());
            !bad_star && abbreviation_ok(a)
        })
}

/// A word with brackets is `least[rest]`: a non-empty head, the optional rest last, no
/// wildcard.
fn abbreviation_ok(a: &str) -> bool {
    match a.split_once('[') {
        None => !a.contains(']'),
        Some((head, rest)) => {
            !head.is_empty()
                && !a.contains('*')
                && rest
                    .strip_suffix(']')
                    .is_some_and(|r| !r.is_empty() && !r.contains(['[', ']']))
        }
    }
}

/// Whether `p` declares option `name` (among its own or its subcommands' options, or the
/// form's own `form` ones); `Some(true)` when it takes a value.
fn declared(p: &Program, form: Option<&Options>, name: &str) -> Option<bool> {
    let own = Options {
        short: p.short.clone(),
        short_value: p.short_value.clone(),
        long: p.long.clone(),
        long_value: p.long_value.clone(),
        short_optional: p.short_optional.clone(),
    };
    let mut found = None;
    for o in std::iter::once(&own).chain(&p.sub).chain(form) {
        match declared_in(o, name) {
            Some(true) => return Some(true),
            Some(false) => found = Some(false),
            None => {}
        }
    }
    found
}

fn declared_in(o: &Options, name: &str) -> Option<bool> {
    let mut one = name.chars();
    if let (Some(c), None) = (one.next(), one.next()) {
        if o.short_optional.contains(c) {
            return Some(true);
        }
        if o.short_value.contains(c) || o.long_value.iter().any(|l| l == name) {
            return Some(true);
        }
        if o.short.contains(c) || o.long.iter().any(|l| l == name) {
            return Some(false);
        }
        return None;
    }
    if o.long_value.iter().any(|l| l == name) {
        Some(true)
    } else if o.long.iter().any(|l| l == name) {
        Some(false)
    } else {
        None
    }
}

/// An option named in full: a prefix (`add-*`) names options only where they are given or
/// not (`when = ["add-*"]`), not where a value or the only options given are compared.
fn exact_option(
    p: &Program,
    form: Option<&Options>,
    name: &str,
    offset: usize,
) -> Result<(), Fault> {
    if name.ends_with('*') {
        return Err((
            Some(offset),
            format!("`{name}`: an option prefix names options given or not, nothing else"),
        ));
    }
    option(p, form, name, offset)
}

fn option(p: &Program, form: Option<&Options>, name: &str, offset: usize) -> Result<(), Fault> {
    // `add-*`: every option so named, declared or not (`firewall-cmd --add-port=…`).
    if name.len() > 1 && name.ends_with('*') && !name[..name.len() - 1].contains('*') {
        return Ok(());
    }
    match declared(p, form, name) {
        Some(_) => Ok(()),
        None => Err((
            Some(offset),
            format!(
                "unknown option `{name}`: declare it in `short`, `short_value`, `long` or \
                 `long_value` (long names without dashes)"
            ),
        )),
    }
}

fn operand_index(text: &str, offset: usize) -> Result<u8, Fault> {
    match text.parse::<u8>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err((
            Some(offset),
            format!("`${text}`: operands are numbered from $1"),
        )),
    }
}

fn cond(
    p: &Program,
    form: Option<&Options>,
    c: &Spanned<String>,
    words: &BTreeMap<String, Vec<String>>,
) -> Result<Cond, Fault> {
    let offset = c.span().start;
    let text = c.get_ref().as_str();
    if text == "every" {
        return Ok(Cond::Every);
    }
    let (negated, body) = match text.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let joined = |alts: &str| alternatives(alts, words, offset).map(|v| v.join("|"));
    if let Some(alts) = body.strip_prefix("signal:") {
        let Some(options) = &p.signals else {
            return Err((
                Some(offset),
                format!("`{text}`: the program takes no signal (`signals = \"s|signal\"`)"),
            ));
        };
        if negated {
            return Err((
                Some(offset),
                format!("`{text}`: a signal condition is not negated"),
            ));
        }
        return Ok(Cond::Signal(options.clone(), joined(alts)?));
    }
    if let Some((n, alts)) = body
        .strip_prefix('$')
        .and_then(|o| o.split_once('='))
        .filter(|(n, _)| !n.contains('~'))
    {
        let alts = joined(alts)?;
        if n == "*" {
            return Ok(if negated {
                Cond::NoOperandIs(alts)
            } else {
                Cond::AnyOperandIs(alts)
            });
        }
        let n = operand_index(n, offset)?;
        return Ok(if negated {
            Cond::OperandIsNot(n, alts)
        } else {
            Cond::OperandIs(n, alts)
        });
    }
    if let Some((names, alts)) = body.split_once('=').filter(|(n, v)| {
        !negated
            && !n.contains('~')
            && !n.starts_with('$')
            && !n.ends_with('!')
            && (n.contains('|') || v.contains('@'))
    }) {
        for name in names.split('|') {
            exact_option(p, form, name, offset)?;
        }
        return Ok(Cond::ValueIn(names.into(), joined(alts)?));
    }
    if let Some(names) = body.strip_prefix("only:") {
        for name in names.split('|') {
            exact_option(p, form, name, offset)?;
        }
        return Ok(if negated {
            Cond::NotOnly(names.into())
        } else {
            Cond::Only(names.into())
        });
    }
    if let Some(operand) = body.strip_prefix('$') {
        let Some((n, needle)) = operand.split_once('~') else {
            return Err((
                Some(offset),
                format!("`{text}`: an operand condition is `$N~text`, `$*~text`, `$N=word|word` or `$*=word|word`"),
            ));
        };
        if n == "*" {
            return Ok(if negated {
                Cond::NoOperandHas(needle.to_string())
            } else {
                Cond::AnyOperandHas(needle.to_string())
            });
        }
        let n = operand_index(n, offset)?;
        return Ok(if negated {
            Cond::OperandLacks(n, needle.to_string())
        } else {
            Cond::OperandHas(n, needle.to_string())
        });
    }
    if let Some((name, needle)) = body.split_once('~').filter(|(n, _)| !n.contains('=')) {
        for name in name.split('|') {
            exact_option(p, form, name, offset)?;
        }
        let (needle, any_case) = match needle.strip_prefix('~') {
            Some(n) => (n.to_ascii_lowercase(), true),
            None => (needle.to_string(), false),
        };
        if needle.is_empty() || needle.split('|').any(str::is_empty) {
            return Err((
                Some(offset),
                format!("`{text}`: name the text a value contains (`output~push=true`)"),
            ));
        }
        return Ok(if negated {
            Cond::ValueLacks(name.into(), needle, any_case)
        } else {
            Cond::ValueHas(name.into(), needle, any_case)
        });
    }
    if let Some((name, value)) = body.split_once("!=") {
        exact_option(p, form, name, offset)?;
        return Ok(Cond::IsNot(name.into(), value.into()));
    }
    if let Some((name, value)) = body.split_once('=') {
        exact_option(p, form, name, offset)?;
        return Ok(Cond::Is(name.into(), value.into()));
    }
    if body.is_empty() || body.starts_with('-') {
        return Err((
            Some(offset),
            format!(
                "`{text}`: name an option without dashes (`force`, `f`, `!force`, `replicas=0`)"
            ),
        ));
    }
    for name in body.split('|') {
        option(p, form, name, offset)?;
    }
    Ok(if negated {
        Cond::Lacks(body.into())
    } else {
        Cond::Has(body.into())
    })
}

fn effect(p: &Program, form: Option<&Options>, e: &Spanned<String>) -> Result<Eff, Fault> {
    let offset = e.span().start;
    let text = e.get_ref().as_str();
    let Some((act, target)) = text.split_once('@') else {
        return Err((
            Some(offset),
            format!("`{text}`: an effect is `act@place` or `act@path`"),
        ));
    };
    let Some(act) = Act::parse(act) else {
        let names: Vec<&str> = Act::ALL.iter().map(|a| a.as_str()).collect();
        return Err((
            Some(offset),
            format!("unknown act `{act}` (acts: {})", names.join(", ")),
        ));
    };
    let at = if let Some(what) = target.strip_prefix('$') {
        if what == "*" {
            At::Operands
        } else if what == "-1" {
            At::Last
        } else if what == "*-1" {
            At::AllButLast
        } else if matches!(what, "src" | "dest" | "src-from-dest") {
            if p.destination.is_none() {
                return Err((
                    Some(offset),
                    format!(
                        "`{text}`: a copy's `$src` and `$dest` need the program's `destination = {{ … }}`"
                    ),
                ));
            }
            match what {
                "src" => At::Sources,
                "dest" => At::Landings,
                _ => At::SourcesFromLandings,
            }
        } else if let Some(key) = what.strip_suffix('=').filter(|k| !k.is_empty()) {
            At::Keyed(key.to_string())
        } else if let Some((n, tail)) = what.split_once('+').filter(|(_, t)| !t.is_empty()) {
            At::OperandWith(operand_index(n, offset)?, tail.to_string())
        } else if what.starts_with(|c: char| c.is_ascii_digit()) {
            At::Operand(operand_index(what, offset)?)
        } else if declared(p, form, what) == Some(true) {
            At::Value(what.to_string())
        } else {
            return Err((
                Some(offset),
                format!(
                    "`{text}`: `{what}` is no option with a value (`long_value`, `short_value`)"
                ),
            ));
        }
    } else if target.starts_with(['~', '/', '.']) {
        At::Path(target.to_string())
    } else {
        match Place::parse(target) {
            Some(place) => At::Place(place),
            None => {
                let names: Vec<&str> = Place::ALL.iter().map(|p| p.as_str()).collect();
                return Err((
                    Some(offset),
                    format!(
                        "unknown place `{target}` (places: {}; a path starts with `~`, `/` or `.`; \
                         an operand is `$1`, `$*`, an option's value `$name`)",
                        names.join(", ")
                    ),
                ));
            }
        }
    };
    Ok(Eff { act, at })
}
