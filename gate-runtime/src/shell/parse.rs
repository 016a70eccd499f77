//! The operator-aware shell lexer and the wrapper peeling behind [`parse`].

use super::{
    Assignment, Parsed, Redirect, SimpleCommand, MAX_COMMANDS, MAX_DEPTH, MAX_STDIN, MAX_WORD,
};
use std::borrow::Cow;
use std::ops::{Deref, DerefMut};
use wrappers::Peel;

mod wrappers;

/// Parse one command line. Never panics; linear in the input (see the module doc of
/// [`crate::shell`]). Words written plainly in the line (no quote, escape or expansion) are
/// borrowed from it; the others, and every word of a nested script (`bash -c '…'`, `eval`),
/// are owned.
pub fn parse(cmd: &str) -> Parsed<'_> {
    parse_in(cmd, &mut ParseRoom::default())
}

/// [`parse`] with its vectors taken from `room` (what [`ParseRoom::keep`] kept of an earlier
/// parse). The result is the one [`parse`] gives (`tests/reuse.rs`).
pub fn parse_in<'a>(cmd: &'a str, room: &mut ParseRoom) -> Parsed<'a> {
    let mut ctx = Ctx {
        out: Parsed {
            commands: std::mem::take(&mut room.commands),
            pipes: std::mem::take(&mut room.pipes),
            ..Parsed::default()
        },
        line: cmd,
        spare_words: std::mem::take(&mut room.words),
        spare_args: std::mem::take(&mut room.args),
    };
    let mut sc = Scanner::new(cmd.as_bytes(), true);
    parse_list(&mut ctx, &mut sc, 0, Term::Eof, &[]);
    // The word vectors the parse emptied go back (the argument vectors stay in the commands).
    room.words = ctx.spare_words.into_iter().map(recycle).collect();
    room.args = ctx.spare_args.into_iter().map(recycle).collect();
    ctx.out
}

/// Empty vectors kept from one parse for the next ([`parse_in`]), so that a classifier that
/// parses line after line does not allocate its command list, word lists and argument lists
/// anew for each. Only their room is kept: nothing of one line is seen by the next.
#[derive(Debug, Default)]
pub struct ParseRoom {
    commands: Vec<SimpleCommand<'static>>,
    pipes: Vec<(usize, usize)>,
    /// Argument lists of the commands kept, emptied.
    args: Vec<Vec<Cow<'static, str>>>,
    /// Word lists of pending commands, emptied.
    words: Vec<Vec<FinalWord<'static>>>,
}

/// Most argument lists a [`ParseRoom`] keeps.
const MAX_KEPT_ARGS: usize = 16;

impl ParseRoom {
    /// Keep the room of `parsed`'s vectors for the next [`parse_in`].
    pub fn keep(&mut self, parsed: Parsed<'_>) {
        let Parsed {
            mut commands,
            mut pipes,
            ..
        } = parsed;
        for cmd in commands.drain(..) {
            if self.args.len() < MAX_KEPT_ARGS && cmd.args.capacity() > 0 {
                self.args.push(recycle(cmd.args));
            }
        }
        self.commands = recycle(commands);
        pipes.clear();
        self.pipes = pipes;
    }
}

/// An empty vector in the room of `v` (which is emptied): how a vector that held values
/// borrowing one line is kept for values borrowing another. `T` and `U` are one type up to
/// lifetimes here, so the standard library collects in place and keeps the allocation
/// (`tests::recycling_keeps_the_room`); were it not to, the result would only be a new
/// empty vector.
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// A parse in progress: what was found so far, and the line itself (the source of the
/// [`Scanner`] marked `root`, from which plain words are borrowed).
struct Ctx<'a> {
    out: Parsed<'a>,
    line: &'a str,
    /// Emptied word lists of pending commands, for the next commands.
    spare_words: Vec<Vec<FinalWord<'a>>>,
    /// Emptied argument lists, for the next commands.
    spare_args: Vec<Vec<Cow<'a, str>>>,
}

impl<'a> Deref for Ctx<'a> {
    type Target = Parsed<'a>;
    fn deref(&self) -> &Parsed<'a> {
        &self.out
    }
}

impl DerefMut for Ctx<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.out
    }
}

/// First and last top-level command of a list or pipeline element.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    head: Option<usize>,
    tail: Option<usize>,
}

impl Span {
    fn then(self, next: Span) -> Span {
        Span {
            head: self.head.or(next.head),
            tail: next.tail.or(self.tail),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    Eof,
    Paren,
    Backtick,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sep {
    Seq,
    Pipe,
    Background,
}

struct Heredoc {
    delim: Vec<u8>,
    strip_tabs: bool,
    expand: bool,
    /// The body is the script of a shell or job runner (`sh <<EOF`, `at now <<EOF`): parse
    /// it as commands; what runs it.
    runner: Option<&'static str>,
    /// Index of the command whose standard input the body is.
    cmd: Option<usize>,
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
    heredocs: Vec<Heredoc>,
    /// `s` is the parsed line itself (not a nested script built from its words).
    root: bool,
    /// Bytes the look-ahead of `((` may still scan ([`arith_closes`]): a multiple of the
    /// source's length, so that nested `((` cannot make the parse quadratic.
    lookahead: usize,
    /// The word being scanned is the first of its command (a `!` there is the reserved
    /// word, not an extended glob).
    first_word: bool,
}

impl<'a> Scanner<'a> {
    fn new(s: &'a [u8], root: bool) -> Scanner<'a> {
        Scanner {
            s,
            i: 0,
            heredocs: Vec::new(),
            root,
            lookahead: s.len().saturating_mul(4).saturating_add(256),
            first_word: true,
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    fn starts_with(&self, p: &[u8]) -> bool {
        self.s.get(self.i..).is_some_and(|r| r.starts_with(p))
    }
}

/// A word while it is being scanned.
struct Word<'s> {
    /// The source the scanner reads.
    src: &'s [u8],
    /// While the word is one run of plain bytes of `src`, that run (`text` is then empty):
    /// it is copied into `text` only when something else is added.
    run: Option<(usize, usize)>,
    text: Vec<u8>,
    /// Bytes pushed before the first quote or escape (for `NAME=` detection).
    plain: Option<usize>,
}

impl<'s> Word<'s> {
    fn new(src: &'s [u8]) -> Word<'s> {
        Word {
            src,
            run: None,
            text: Vec::new(),
            plain: None,
        }
    }
    /// The word's bytes so far.
    fn bytes(&self) -> &[u8] {
        match self.run {
            Some((start, end)) => self.src.get(start..end).unwrap_or_default(),
            None => &self.text,
        }
    }
    fn len(&self) -> usize {
        match self.run {
            Some((start, end)) => end - start,
            None => self.text.len(),
        }
    }
    /// The bytes, owned.
    fn into_bytes(mut self) -> Vec<u8> {
        self.materialize();
        self.text
    }
    /// Copy a held run into `text`.
    fn materialize(&mut self) {
        if let Some((start, end)) = self.run.take() {
            self.text
                .extend_from_slice(self.src.get(start..end).unwrap_or_default());
        }
    }
    fn push(&mut self, b: u8, ctx: &mut Parsed) {
        self.materialize();
        if self.text.len() < MAX_WORD {
            self.text.push(b);
        } else {
            ctx.truncated = true;
        }
    }
    fn push_str(&mut self, s: &[u8], ctx: &mut Parsed) {
        for &b in s {
            self.push(b, ctx);
        }
    }
    /// [`push`](Self::push) of each byte of `src[start..start + n]`, at once. The first run
    /// of a word is only remembered, not copied.
    fn push_run(&mut self, start: usize, n: usize, ctx: &mut Parsed) {
        if self.run.is_none() && self.text.is_empty() && n <= MAX_WORD {
            self.run = Some((start, start + n));
            return;
        }
        self.materialize();
        let run = self.src.get(start..start + n).unwrap_or_default();
        let room = MAX_WORD.saturating_sub(self.text.len());
        if run.len() > room {
            ctx.truncated = true;
        }
        self.text.extend_from_slice(&run[..run.len().min(room)]);
    }
    fn mark_quoted(&mut self) {
        if self.plain.is_none() {
            self.plain = Some(self.len());
        }
    }
    /// The finished word; `line` is the parsed line when `src` is that line (then a word
    /// that is one plain run borrows its text from it).
    fn finish<'a>(mut self, line: Option<&'a str>) -> FinalWord<'a> {
        let plain = self.plain.unwrap_or(self.len());
        let borrowed = match (self.run, line) {
            (Some((start, end)), Some(line)) => line.get(start..end),
            _ => None,
        };
        let text = match borrowed {
            Some(text) => Cow::Borrowed(text),
            None => {
                self.materialize();
                // Valid UTF-8 (the usual case) is moved, not copied; anything else is
                // repaired as `from_utf8_lossy` does.
                Cow::Owned(
                    String::from_utf8(self.text)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                )
            }
        };
        let assign = assignment_name(&text).is_some_and(|name| name.len() < plain);
        FinalWord {
            text,
            assign,
            array: false,
        }
    }
}

#[derive(Clone, Debug)]
struct FinalWord<'a> {
    text: Cow<'a, str>,
    assign: bool,
    /// An assignment of an array literal (`a=(x y)`, the word is `a=`).
    array: bool,
}

fn assignment_name(text: &str) -> Option<&str> {
    // `=` is ASCII: its byte position is a character boundary.
    let eq = text.bytes().position(|b| b == b'=')?;
    let name = text[..eq].strip_suffix('+').unwrap_or(&text[..eq]);
    let mut chars = name.chars();
    let first = chars.next()?;
    if (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']')
    {
        Some(name)
    } else {
        None
    }
}

/// The command being collected between two separators.
#[derive(Default)]
struct Pending<'a> {
    words: Vec<FinalWord<'a>>,
    writes: Vec<Redirect>,
    sub: Option<Span>,
    /// Here-strings (`<<< word`) given to this command.
    here_strings: Vec<Cow<'a, str>>,
    /// Index of this command's first here-document in `Scanner::heredocs`.
    heredoc_start: usize,
    /// Index in `words` of the first word that is not a reserved word (the words before it
    /// only open compound commands: the next word may still be a reserved word).
    first_arg: Option<usize>,
}

impl<'a> Pending<'a> {
    fn push_word(&mut self, word: FinalWord<'a>) {
        if self.first_arg.is_none() && !is_reserved(&word.text) {
            self.first_arg = Some(self.words.len());
        }
        self.words.push(word);
    }
    /// Keep the first `n` words.
    fn truncate_words(&mut self, n: usize) {
        self.words.truncate(n);
        if self.first_arg.is_some_and(|i| i >= n) {
            self.first_arg = None;
        }
    }
    /// Whether the words before index `n` are only reserved words.
    fn starts_command(&self, n: usize) -> bool {
        self.first_arg.is_none_or(|i| i >= n)
    }
    /// Whether a `((` here is in command position (also `for ((`).
    fn arith_position(&self) -> bool {
        match self.first_arg {
            None => true,
            Some(i) => i + 1 == self.words.len() && self.words[i].text == "for",
        }
    }
}

/// Where a list is while it collects pipeline elements.
#[derive(Default)]
struct ListState {
    span: Span,
    pipe_from: Option<usize>,
    pipeline_start: usize,
    /// `case` commands open in this list (their `esac` not yet seen).
    case_open: u32,
    /// The next thing to read is the pattern list of a `case` clause.
    want_pattern: bool,
    /// Inside `[[ … ]]`.
    in_test: bool,
}

const ECHOES: [&str; 2] = ["echo", "printf"];

/// What runs the script a command reads on standard input (`sh`, `bash -s`, `at now`,
/// `parallel`), as [`wrappers::stdin_runner`] names it.
fn stdin_runner(cmd: &SimpleCommand<'_>) -> Option<&'static str> {
    wrappers::stdin_runner(&cmd.program, &cmd.args)
}

/// The wrapper recorded for a script fed to `runner` by `how` (`<<<`, `<<`, `echo |`):
/// `sh <<<`, `sh <<`, `echo | sh` for a shell; the runner's name otherwise (`at`).
fn fed(runner: &'static str, how: &str) -> String {
    match (runner, how) {
        ("sh", "<<<") => "sh <<<".to_string(),
        ("sh", "<<") => "sh <<".to_string(),
        ("sh", _) => "echo | sh".to_string(),
        (other, _) => other.to_string(),
    }
}

/// The text `echo`/`printf` print (roughly): what a shell would run when it is piped in.
fn printed_text(cmd: &SimpleCommand<'_>) -> String {
    let mut args: &[Cow<'_, str>] = &cmd.args;
    if cmd.program == "printf" && args.len() > 1 {
        args = &args[1..];
    } else if cmd.program == "echo" {
        while args
            .first()
            .is_some_and(|a| matches!(&**a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        {
            args = &args[1..];
        }
    }
    args.join(" ")
}

/// Close the pending element at a separator.
#[allow(clippy::too_many_arguments)]
fn finish<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    st: &mut ListState,
    cur: &mut Pending<'a>,
    sep: Sep,
    depth: usize,
    wrappers: &[String],
) {
    // A separator ends a `[[ … ]]` left open (a syntax error for bash).
    st.in_test = false;
    let mut pending = std::mem::take(cur);
    if let Some(words) = ctx.spare_words.pop() {
        cur.words = words;
    }
    let mut here_strings = std::mem::take(&mut pending.here_strings);
    let heredoc_start = pending.heredoc_start;
    let element = emit(ctx, pending, depth, wrappers);
    let runner = element
        .tail
        .and_then(|t| ctx.commands.get(t))
        .and_then(stdin_runner);
    for doc in sc.heredocs.iter_mut().skip(heredoc_start) {
        if doc.cmd.is_none() {
            doc.cmd = element.tail;
            doc.runner = runner;
        }
    }
    if let Some(runner) = runner {
        for text in &here_strings {
            nested_script(
                ctx,
                text.as_bytes(),
                depth,
                &with(wrappers, &fed(runner, "<<<")),
            );
        }
    }
    // The last `<<<` is what the command reads (a here-string is at most one word long,
    // so within the cap on standard input text).
    if let (Some(text), Some(c)) = (here_strings.pop(), element.tail) {
        if let Some(c) = ctx.commands.get_mut(c) {
            c.stdin = Some(text);
        }
    }
    if let (Some(from), Some(to)) = (st.pipe_from, element.head) {
        if from != to {
            ctx.pipes.push((from, to));
            if let Some(c) = ctx.commands.get_mut(from) {
                c.pipe_to.get_or_insert(to);
            }
            let runner = ctx.commands.get(to).and_then(stdin_runner).filter(|_| {
                ctx.commands
                    .get(from)
                    .is_some_and(|c| ECHOES.contains(&c.program.as_ref()))
            });
            if let Some(runner) = runner {
                let script = printed_text(&ctx.commands[from]);
                nested_script(
                    ctx,
                    script.as_bytes(),
                    depth,
                    &with(wrappers, &fed(runner, "|")),
                );
            }
        }
    }
    st.span = st.span.then(element);
    st.pipe_from = if sep == Sep::Pipe { element.tail } else { None };
    if sep == Sep::Background {
        let from = st.pipeline_start.min(ctx.commands.len());
        for c in &mut ctx.commands[from..] {
            c.background = true;
        }
    }
    if sep != Sep::Pipe {
        st.pipeline_start = ctx.commands.len();
    }
    cur.heredoc_start = sc.heredocs.len();
}

/// Parse text one level deeper, if the depth cap allows.
fn nested_script<'a>(ctx: &mut Ctx<'a>, src: &[u8], depth: usize, wrappers: &[String]) -> Span {
    if depth >= MAX_DEPTH {
        ctx.truncated = true;
        return Span::default();
    }
    parse_script(ctx, src, depth + 1, wrappers)
}

fn parse_script<'a>(ctx: &mut Ctx<'a>, src: &[u8], depth: usize, wrappers: &[String]) -> Span {
    let mut sc = Scanner::new(src, false);
    parse_list(ctx, &mut sc, depth, Term::Eof, wrappers)
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

fn with(wrappers: &[String], extra: &str) -> Vec<String> {
    let mut w = wrappers.to_vec();
    w.push(extra.to_string());
    w
}

fn parse_list<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    term: Term,
    wrappers: &[String],
) -> Span {
    let mut st = ListState {
        pipeline_start: ctx.commands.len(),
        ..ListState::default()
    };
    let mut cur = Pending {
        words: ctx.spare_words.pop().unwrap_or_default(),
        heredoc_start: sc.heredocs.len(),
        ..Pending::default()
    };
    loop {
        ctx.steps += 1;
        let Some(c) = sc.peek() else {
            if st.want_pattern {
                st.want_pattern = false;
                continue;
            }
            finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
            return st.span;
        };
        // One test for both states, on every token.
        if st.want_pattern | st.in_test {
            if st.want_pattern {
                // After `case WORD in` or `;;`: a pattern list up to its `)` (or `esac`).
                st.want_pattern = false;
                if let Clause::Esac = case_pattern(ctx, sc, depth, term, wrappers) {
                    st.case_open = st.case_open.saturating_sub(1);
                }
                continue;
            }
            // Inside `[[ … ]]`: `<`, `>`, `(`, `)`, `&&` and `||` are operands of the test.
            let op: Option<&'static str> = match (c, sc.at(1)) {
                (b'<', _) => Some("<"),
                (b'>', _) => Some(">"),
                (b'(', _) => Some("("),
                (b')', _) => Some(")"),
                (b'&', Some(b'&')) => Some("&&"),
                (b'|', Some(b'|')) => Some("||"),
                _ => None,
            };
            if let Some(op) = op {
                sc.i += op.len();
                cur.push_word(FinalWord {
                    text: Cow::Borrowed(op),
                    assign: false,
                    array: false,
                });
                continue;
            }
        }
        match c {
            b if is_blank(b) => sc.i += 1,
            b'\\' if sc.at(1) == Some(b'\n') => sc.i += 2,
            b'#' => {
                while sc.peek().is_some_and(|b| b != b'\n') {
                    ctx.steps += 1;
                    sc.i += 1;
                }
            }
            b'\n' => {
                sc.i += 1;
                finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                skip_heredocs(ctx, sc, depth, wrappers);
                cur.heredoc_start = 0;
            }
            b';' => {
                sc.i += 1;
                // `;;`, `;&` and `;;&` end a `case` clause.
                let mut ends_clause = false;
                if sc.peek() == Some(b';') {
                    sc.i += 1;
                    ends_clause = true;
                    if sc.peek() == Some(b'&') {
                        sc.i += 1;
                    }
                } else if sc.peek() == Some(b'&') {
                    sc.i += 1;
                    ends_clause = true;
                }
                finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                if ends_clause && st.case_open > 0 {
                    st.want_pattern = true;
                }
            }
            b'&' => match sc.at(1) {
                Some(b'&') => {
                    sc.i += 2;
                    finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                }
                Some(b'>') => redirect(ctx, sc, depth, wrappers, term, &mut cur, None),
                _ => {
                    sc.i += 1;
                    finish(ctx, sc, &mut st, &mut cur, Sep::Background, depth, wrappers);
                }
            },
            b'|' => {
                if sc.at(1) == Some(b'|') {
                    sc.i += 2;
                    finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                } else {
                    sc.i += 1;
                    if sc.peek() == Some(b'&') {
                        sc.i += 1;
                    }
                    finish(ctx, sc, &mut st, &mut cur, Sep::Pipe, depth, wrappers);
                }
            }
            b')' => {
                sc.i += 1;
                finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                if term == Term::Paren {
                    return st.span;
                }
            }
            b'`' if term == Term::Backtick => {
                sc.i += 1;
                finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                return st.span;
            }
            b'(' if sc.i > 0
                && sc.s[sc.i - 1] == b'='
                && cur.words.last().is_some_and(|w| w.assign) =>
            {
                // `name=(a b c)`: an array literal, its words are values, not a command.
                sc.i += 1;
                if let Some(w) = cur.words.last_mut() {
                    w.array = true;
                }
                array_literal(ctx, sc, depth, term, wrappers);
            }
            b'(' if sc.at(1) == Some(b'(')
                && cur.arith_position()
                && arith_closes(ctx, sc, sc.i + 2) =>
            {
                // `(( expr ))` (also `for (( …; …; … ))`): arithmetic, not two subshells;
                // a `<<` in it is a shift. Substitutions in it still run.
                sc.i += 2;
                arithmetic(ctx, sc, depth, wrappers);
            }
            b'(' => {
                sc.i += 1;
                if !cur.words.is_empty() {
                    let mut k = sc.i;
                    while sc.s.get(k).copied().is_some_and(is_blank) {
                        k += 1;
                    }
                    if sc.s.get(k) == Some(&b')') {
                        // `name() { …; }`: a function definition; the name is not a command
                        // (the body, a compound command, follows).
                        ctx.steps += (k - sc.i) as u64;
                        sc.i = k + 1;
                        cur.truncate_words(0);
                        continue;
                    }
                    if cur.words[0].text == "coproc" && cur.words.len() <= 2 {
                        // `coproc [NAME] ( … )`: the group runs; the name is not a command.
                        cur.truncate_words(0);
                    }
                    // Any other `word ( … )` is a syntax error for bash: the words are kept
                    // and the group's commands read, so that nothing is hidden.
                }
                if depth >= MAX_DEPTH {
                    ctx.truncated = true;
                    finish(ctx, sc, &mut st, &mut cur, Sep::Seq, depth, wrappers);
                    continue;
                }
                let inner = parse_list(ctx, sc, depth + 1, Term::Paren, wrappers);
                cur.sub = Some(cur.sub.unwrap_or_default().then(inner));
            }
            b'<' | b'>' if sc.at(1) == Some(b'(') => {
                sc.i += 2;
                if depth >= MAX_DEPTH {
                    ctx.truncated = true;
                } else {
                    parse_list(ctx, sc, depth + 1, Term::Paren, &with(wrappers, "<()"));
                }
                cur.push_word(FinalWord {
                    text: Cow::Borrowed(if c == b'<' { "<(…)" } else { ">(…)" }),
                    assign: false,
                    array: false,
                });
            }
            b'<' | b'>' => redirect(ctx, sc, depth, wrappers, term, &mut cur, None),
            _ => {
                sc.first_word = cur.starts_command(cur.words.len());
                let word = scan_word(ctx, sc, depth, term, wrappers);
                let is_fd = !word.bytes().is_empty()
                    && word.plain.is_none()
                    && word.len() <= 4
                    && word.bytes().iter().all(u8::is_ascii_digit);
                if is_fd && !st.in_test && matches!(sc.peek(), Some(b'<' | b'>')) {
                    let fd = std::str::from_utf8(word.bytes())
                        .ok()
                        .and_then(|t| t.parse().ok());
                    redirect(ctx, sc, depth, wrappers, term, &mut cur, fd);
                    continue;
                }
                let first = sc.first_word;
                let reserved = first && word.plain.is_none();
                let line = sc.root.then_some(ctx.line);
                let word = word.finish(line);
                if reserved {
                    match &*word.text {
                        "[[" => st.in_test = true,
                        "esac" if st.case_open > 0 => {
                            st.case_open -= 1;
                            continue;
                        }
                        _ => {}
                    }
                } else if st.in_test && word.text == "]]" {
                    st.in_test = false;
                }
                let opens_case = word.text == "in"
                    && cur.words.len() >= 2
                    && cur.words[cur.words.len() - 2].text == "case"
                    && cur.starts_command(cur.words.len() - 2);
                if opens_case {
                    // `case WORD in`: neither is a command; pattern lists follow.
                    let keep = cur.words.len() - 2;
                    cur.truncate_words(keep);
                    st.case_open += 1;
                    st.want_pattern = true;
                    continue;
                }
                cur.push_word(word);
            }
        }
    }
}

/// What [`case_pattern`] read.
enum Clause {
    /// A pattern list, through its `)`.
    Pattern,
    /// The `esac` that closes the `case`.
    Esac,
    /// The end of the input (or of the enclosing backtick substitution).
    End,
}

/// The pattern list of a `case` clause (`a|b)`, `(a)`, `@(x|y))`): values, not commands;
/// substitutions in them still run.
fn case_pattern<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    term: Term,
    wrappers: &[String],
) -> Clause {
    let mut first = true;
    loop {
        ctx.steps += 1;
        let Some(b) = sc.peek() else {
            return Clause::End;
        };
        match b {
            b'\\' if sc.at(1) == Some(b'\n') => sc.i += 2,
            b'\n' => {
                sc.i += 1;
                skip_heredocs(ctx, sc, depth, wrappers);
            }
            b'#' if first => {
                while sc.peek().is_some_and(|b| b != b'\n') {
                    ctx.steps += 1;
                    sc.i += 1;
                }
            }
            b')' => {
                sc.i += 1;
                return Clause::Pattern;
            }
            b'`' if term == Term::Backtick => return Clause::End,
            b if ends_word(b) => {
                if b == b'(' || b == b'|' {
                    first = false;
                }
                sc.i += 1;
            }
            _ => {
                sc.first_word = false;
                let word = scan_word(ctx, sc, depth, term, wrappers);
                if first && word.plain.is_none() && word.bytes() == b"esac" {
                    return Clause::Esac;
                }
                first = false;
            }
        }
    }
}

/// Whether the `((` whose inside starts at `from` closes with `))` (bash reads it as
/// arithmetic then, and as nested subshells otherwise: `((cd x) )`, `$((ls) | wc)`). The
/// look-ahead is bounded by the scanner's budget; past it, the answer is "no" (commands
/// are read, none hidden) and the parse is marked truncated.
fn arith_closes(ctx: &mut Ctx<'_>, sc: &mut Scanner<'_>, from: usize) -> bool {
    let mut open = 2usize;
    let mut k = from;
    let s = sc.s;
    let start_budget = sc.lookahead;
    let answer = loop {
        if sc.lookahead == 0 {
            ctx.truncated = true;
            break false;
        }
        sc.lookahead -= 1;
        let Some(&b) = s.get(k) else {
            break false;
        };
        k += 1;
        match b {
            b'\\' => k += 1,
            b'\'' => {
                while s.get(k).is_some_and(|&q| q != b'\'') && sc.lookahead > 0 {
                    sc.lookahead -= 1;
                    k += 1;
                }
                k += 1;
            }
            b'"' => {
                while let Some(&q) = s.get(k) {
                    if q == b'"' || sc.lookahead == 0 {
                        break;
                    }
                    sc.lookahead -= 1;
                    k += if q == b'\\' { 2 } else { 1 };
                }
                k += 1;
            }
            b'(' => open += 1,
            b')' => {
                open -= 1;
                if open == 1 {
                    break s.get(k) == Some(&b')');
                }
            }
            _ => {}
        }
    };
    ctx.steps += (start_budget - sc.lookahead) as u64;
    answer
}

/// The inside of `((…))` or `$((…))` (opening consumed) through its closing `))`:
/// substitutions in it are parsed, the rest is arithmetic.
fn arithmetic<'a>(ctx: &mut Ctx<'a>, sc: &mut Scanner<'_>, depth: usize, wrappers: &[String]) {
    let mut open = 2usize;
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        if sc.starts_with(b"$(") && !sc.starts_with(b"$((") && depth < MAX_DEPTH {
            sc.i += 2;
            parse_list(ctx, sc, depth + 1, Term::Paren, &with(wrappers, "$()"));
            continue;
        }
        if b == b'`' && depth < MAX_DEPTH {
            sc.i += 1;
            parse_list(ctx, sc, depth + 1, Term::Backtick, &with(wrappers, "``"));
            continue;
        }
        if depth >= MAX_DEPTH && (b == b'`' || sc.starts_with(b"$(")) {
            // A substitution past the depth cap is not read.
            ctx.truncated = true;
        }
        sc.i += 1;
        if b == b'(' {
            open += 1;
        } else if b == b')' {
            open -= 1;
            if open == 0 {
                break;
            }
        }
    }
}

/// The values of an array literal up to its `)` (opening consumed); substitutions in them
/// still run and are parsed.
fn array_literal<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    term: Term,
    wrappers: &[String],
) {
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        match b {
            b')' => {
                sc.i += 1;
                return;
            }
            b'`' if term == Term::Backtick => return,
            b if ends_word(b) => sc.i += 1,
            _ => {
                scan_word(ctx, sc, depth, term, wrappers);
            }
        }
    }
}

/// Scan a redirection operator at `sc.i` and its target word.
fn redirect<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    wrappers: &[String],
    term: Term,
    cur: &mut Pending<'a>,
    fd: Option<u32>,
) {
    const OPS: [&[u8]; 12] = [
        b"&>>", b"<<<", b"<<-", b"&>", b">>", b">|", b">&", b"<>", b"<<", b"<&", b">", b"<",
    ];
    let op = OPS
        .iter()
        .find(|op| sc.starts_with(op))
        .copied()
        .unwrap_or(b"<");
    sc.i += op.len();
    while sc.peek().is_some_and(is_blank) {
        ctx.steps += 1;
        sc.i += 1;
    }
    // `< <(cmd)`: standard input from a process substitution, whose commands run too.
    if op == b"<" && sc.peek() == Some(b'<') && sc.at(1) == Some(b'(') {
        sc.i += 2;
        if depth >= MAX_DEPTH {
            ctx.truncated = true;
        } else {
            parse_list(ctx, sc, depth + 1, Term::Paren, &with(wrappers, "<()"));
        }
        cur.writes.push(Redirect {
            op: "<".to_string(),
            fd,
            target: "<(…)".to_string(),
        });
        return;
    }
    if sc.peek().is_none_or(ends_word) || (term == Term::Backtick && sc.peek() == Some(b'`')) {
        return;
    }
    let word = scan_word(ctx, sc, depth, term, wrappers);
    match op {
        b"<<" | b"<<-" => {
            let expand = word.plain.is_none();
            sc.heredocs.push(Heredoc {
                delim: word.into_bytes(),
                strip_tabs: op == b"<<-",
                expand,
                runner: None,
                cmd: None,
            });
        }
        b"<<<" => {
            let line = sc.root.then_some(ctx.line);
            cur.here_strings.push(word.finish(line).text);
        }
        b"<&" => {}
        _ => {
            let target = word.finish(None).text.into_owned();
            let dup = op == b">&" && (target == "-" || target.bytes().all(|b| b.is_ascii_digit()));
            if !dup {
                cur.writes.push(Redirect {
                    op: String::from_utf8_lossy(op).into_owned(),
                    fd,
                    target,
                });
            }
        }
    }
}

/// After a newline: skip the bodies of pending here-documents.
fn skip_heredocs<'a>(ctx: &mut Ctx<'a>, sc: &mut Scanner<'_>, depth: usize, wrappers: &[String]) {
    let pending = std::mem::take(&mut sc.heredocs);
    for doc in pending {
        let mut body = Vec::new();
        let body_start = sc.i;
        let mut body_end = sc.s.len();
        while sc.i < sc.s.len() {
            let start = sc.i;
            let mut end = start;
            while end < sc.s.len() && sc.s[end] != b'\n' {
                ctx.steps += 1;
                end += 1;
            }
            let mut line = &sc.s[start..end];
            if doc.strip_tabs {
                while let [b'\t', rest @ ..] = line {
                    line = rest;
                }
            }
            if line == doc.delim.as_slice() {
                body_end = start;
                sc.i = (end + 1).min(sc.s.len());
                break;
            }
            if doc.runner.is_some() {
                body.extend_from_slice(line);
                body.push(b'\n');
                sc.i = (end + 1).min(sc.s.len());
                continue;
            }
            if !doc.expand {
                sc.i = (end + 1).min(sc.s.len());
                continue;
            }
            // An unquoted delimiter: `$( … )` and backticks in the body run.
            while let Some(b) = sc.peek() {
                ctx.steps += 1;
                if b == b'\n' {
                    sc.i += 1;
                    break;
                }
                if b == b'\\' {
                    sc.i += 2;
                } else if sc.starts_with(b"$((") && arith_closes(ctx, sc, sc.i + 3) {
                    sc.i += 3;
                    arithmetic(ctx, sc, depth, wrappers);
                } else if (b == b'`' || sc.starts_with(b"$(")) && depth >= MAX_DEPTH {
                    ctx.truncated = true;
                    sc.i += 1;
                } else if sc.starts_with(b"$(") {
                    sc.i += 2;
                    parse_list(ctx, sc, depth + 1, Term::Paren, &with(wrappers, "$()"));
                } else if b == b'`' {
                    sc.i += 1;
                    parse_list(ctx, sc, depth + 1, Term::Backtick, &with(wrappers, "``"));
                } else {
                    sc.i += 1;
                }
            }
        }
        if let Some(c) = doc.cmd {
            let text = heredoc_text(
                ctx,
                sc,
                body_start..body_end.max(body_start),
                doc.strip_tabs,
            );
            if let Some(c) = ctx.commands.get_mut(c) {
                c.stdin = Some(text);
            }
        }
        if let Some(runner) = doc.runner {
            nested_script(ctx, &body, depth, &with(wrappers, &fed(runner, "<<")));
        }
    }
}

/// The body of a here-document as its command reads it: the text as written (an unquoted
/// delimiter's `$…` included: the value is not known), leading tabs stripped for `<<-`;
/// borrowed from the line when it is a part of it. At most [`MAX_STDIN`] bytes are kept;
/// past that, the parse is truncated.
fn heredoc_text<'a>(
    ctx: &mut Ctx<'a>,
    sc: &Scanner<'_>,
    range: std::ops::Range<usize>,
    strip_tabs: bool,
) -> Cow<'a, str> {
    let mut end = range.end;
    if end - range.start > MAX_STDIN {
        ctx.truncated = true;
        end = range.start + MAX_STDIN;
        // Cut at a character boundary.
        while end > range.start && sc.s.get(end).is_some_and(|&b| b & 0xC0 == 0x80) {
            end -= 1;
        }
    }
    let raw = sc.s.get(range.start..end).unwrap_or_default();
    if !strip_tabs {
        if let Some(text) = sc.root.then(|| ctx.line.get(range.start..end)).flatten() {
            return Cow::Borrowed(text);
        }
        return Cow::Owned(String::from_utf8_lossy(raw).into_owned());
    }
    let mut text = Vec::with_capacity(raw.len());
    for line in raw.split_inclusive(|&b| b == b'\n') {
        let mut line = line;
        while let [b'\t', rest @ ..] = line {
            line = rest;
        }
        text.extend_from_slice(line);
    }
    Cow::Owned(String::from_utf8_lossy(&text).into_owned())
}

/// Scan one word at `sc.i` (which is not blank and not an operator).
fn scan_word<'a, 's>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'s>,
    depth: usize,
    term: Term,
    wrappers: &[String],
) -> Word<'s> {
    let mut w = Word::new(sc.s);
    let first = sc.first_word;
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        match b {
            b'(' if opens_extglob(w.bytes(), first) => {
                extglob(ctx, sc, depth, term, wrappers, &mut w);
            }
            b if ends_word(b) => break,
            b'`' if term == Term::Backtick => break,
            b'`' => {
                w.mark_quoted();
                backtick(ctx, sc, depth, wrappers, &mut w);
            }
            b'\\' => {
                w.mark_quoted();
                sc.i += 1;
                match sc.peek() {
                    Some(b'\n') => sc.i += 1,
                    Some(n) => {
                        w.push(n, ctx);
                        sc.i += 1;
                    }
                    None => {}
                }
            }
            b'\'' => {
                w.mark_quoted();
                single_quoted(ctx, sc, &mut w);
            }
            b'"' => {
                w.mark_quoted();
                sc.i += 1;
                if double_quoted(ctx, sc, depth, term, wrappers, &mut w) {
                    break;
                }
            }
            b'$' => match sc.at(1) {
                Some(b'\'') => {
                    w.mark_quoted();
                    sc.i += 2;
                    ansi_c(ctx, sc, &mut w);
                }
                Some(b'"') => {
                    w.mark_quoted();
                    sc.i += 2;
                    if double_quoted(ctx, sc, depth, term, wrappers, &mut w) {
                        break;
                    }
                }
                _ => dollar(ctx, sc, depth, wrappers, &mut w),
            },
            #[cfg(test)]
            _ if tests::BYTEWISE.get() => {
                w.push(b, ctx);
                sc.i += 1;
            }
            _ => {
                // A run of plain bytes is copied at once: the same bytes, steps and
                // truncation as pushing them one at a time through this loop (the test
                // `plain_runs_parse_as_bytewise` compares both).
                let rest = sc.s.get(sc.i..).unwrap_or_default();
                let n = rest
                    .iter()
                    .position(|&c| ends_word(c) || matches!(c, b'`' | b'\\' | b'\'' | b'"' | b'$'))
                    .unwrap_or(rest.len())
                    .max(1);
                ctx.steps += n as u64 - 1;
                w.push_run(sc.i, n, ctx);
                sc.i += n;
            }
        }
    }
    w
}

/// Whether a `(` after the word so far opens an extended glob group (`?(…)`, `*(…)`,
/// `+(…)`, `@(…)`, `!(…)`): part of the word, not a subshell or a function definition. A
/// `!` alone as a command's first word is the reserved word (`!(cmd)` negates a subshell).
fn opens_extglob(word: &[u8], first: bool) -> bool {
    matches!(word.last(), Some(b'?' | b'*' | b'+' | b'@' | b'!')) && !(first && word == b"!")
}

/// An extended glob group at `(`, through its closing `)`, into the word: its text is
/// kept (quotes removed); substitutions in it are parsed.
fn extglob<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    term: Term,
    wrappers: &[String],
    w: &mut Word<'_>,
) {
    let mut open = 0usize;
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        match b {
            b'(' => {
                open += 1;
                w.push(b, ctx);
                sc.i += 1;
            }
            b')' => {
                open -= 1;
                w.push(b, ctx);
                sc.i += 1;
                if open == 0 {
                    return;
                }
            }
            // A newline ends the group (bash would wait for more input).
            b'\n' => return,
            b'`' if term == Term::Backtick => return,
            b'`' => backtick(ctx, sc, depth, wrappers, w),
            b'\\' => {
                sc.i += 1;
                if let Some(n) = sc.peek() {
                    w.push(n, ctx);
                    sc.i += 1;
                }
            }
            b'\'' => single_quoted(ctx, sc, w),
            b'"' => {
                sc.i += 1;
                if double_quoted(ctx, sc, depth, term, wrappers, w) {
                    return;
                }
            }
            b'$' if matches!(sc.at(1), Some(b'(' | b'{')) => dollar(ctx, sc, depth, wrappers, w),
            _ => {
                w.push(b, ctx);
                sc.i += 1;
            }
        }
    }
}

/// A `'…'` at its opening quote, through its closing one, into the word: every byte between
/// them as it is.
fn single_quoted(ctx: &mut Ctx<'_>, sc: &mut Scanner<'_>, w: &mut Word<'_>) {
    sc.i += 1;
    while let Some(q) = sc.peek() {
        ctx.steps += 1;
        sc.i += 1;
        if q == b'\'' {
            break;
        }
        w.push(q, ctx);
    }
}

/// The inside of `"…"` (opening quote consumed). Returns true when an enclosing backtick
/// substitution ended inside the quotes.
fn double_quoted<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    term: Term,
    wrappers: &[String],
    w: &mut Word<'_>,
) -> bool {
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        match b {
            b'"' => {
                sc.i += 1;
                return false;
            }
            b'\\' => {
                sc.i += 1;
                match sc.peek() {
                    Some(b'\n') => sc.i += 1,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        w.push(n, ctx);
                        sc.i += 1;
                    }
                    _ => w.push(b'\\', ctx),
                }
            }
            b'`' if term == Term::Backtick => return true,
            b'`' => backtick(ctx, sc, depth, wrappers, w),
            b'$' => dollar(ctx, sc, depth, wrappers, w),
            _ => {
                w.push(b, ctx);
                sc.i += 1;
            }
        }
    }
    false
}

fn backtick<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    wrappers: &[String],
    w: &mut Word<'_>,
) {
    sc.i += 1;
    if depth >= MAX_DEPTH {
        ctx.truncated = true;
        w.push(b'`', ctx);
        return;
    }
    parse_list(ctx, sc, depth + 1, Term::Backtick, &with(wrappers, "``"));
    w.push_str("`…`".as_bytes(), ctx);
}

/// `$…` outside single quotes: substitutions are parsed, parameters kept as written.
fn dollar<'a>(
    ctx: &mut Ctx<'a>,
    sc: &mut Scanner<'_>,
    depth: usize,
    wrappers: &[String],
    w: &mut Word<'_>,
) {
    if sc.starts_with(b"$((") && arith_closes(ctx, sc, sc.i + 3) {
        sc.i += 3;
        arithmetic(ctx, sc, depth, wrappers);
        w.push_str("$((…))".as_bytes(), ctx);
    } else if sc.starts_with(b"$(") {
        sc.i += 2;
        if depth >= MAX_DEPTH {
            ctx.truncated = true;
            w.push_str(b"$(", ctx);
            return;
        }
        parse_list(ctx, sc, depth + 1, Term::Paren, &with(wrappers, "$()"));
        w.push_str("$(…)".as_bytes(), ctx);
    } else if sc.starts_with(b"${") {
        sc.i += 2;
        w.push_str(b"${", ctx);
        let mut open = 1usize;
        while let Some(b) = sc.peek() {
            ctx.steps += 1;
            if sc.starts_with(b"$(") {
                dollar(ctx, sc, depth, wrappers, w);
                continue;
            }
            if b == b'`' {
                backtick(ctx, sc, depth, wrappers, w);
                continue;
            }
            sc.i += 1;
            w.push(b, ctx);
            if b == b'{' {
                open += 1;
            } else if b == b'}' {
                open -= 1;
                if open == 0 {
                    break;
                }
            }
        }
    } else {
        w.push(b'$', ctx);
        sc.i += 1;
    }
}

/// The inside of `$'…'` (opening consumed): C escapes.
fn ansi_c<'a>(ctx: &mut Ctx<'a>, sc: &mut Scanner<'_>, w: &mut Word<'_>) {
    while let Some(b) = sc.peek() {
        ctx.steps += 1;
        sc.i += 1;
        match b {
            b'\'' => return,
            b'\\' => {
                let Some(e) = sc.peek() else { return };
                sc.i += 1;
                let out = match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'a' => 7,
                    b'b' => 8,
                    b'e' | b'E' => 27,
                    b'f' => 12,
                    b'v' => 11,
                    b'x' => {
                        let mut v = 0u32;
                        let mut n = 0;
                        while n < 2 {
                            let Some(d) = sc.peek().and_then(|d| (d as char).to_digit(16)) else {
                                break;
                            };
                            v = v * 16 + d;
                            sc.i += 1;
                            n += 1;
                        }
                        if n == 0 {
                            w.push_str(b"\\x", ctx);
                            continue;
                        }
                        v as u8
                    }
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        let mut n = 1;
                        while n < 3 {
                            let Some(d) = sc.peek().filter(|d| (b'0'..=b'7').contains(d)) else {
                                break;
                            };
                            v = v * 8 + u32::from(d - b'0');
                            sc.i += 1;
                            n += 1;
                        }
                        (v & 0xff) as u8
                    }
                    other => other,
                };
                w.push(out, ctx);
            }
            _ => w.push(b, ctx),
        }
    }
}

/// The reserved words that open or continue a compound command (`if`, `then`, `do`, `{`,
/// …): the word after them starts a command. Sorted by length first, so that most words
/// (`git`, `cargo`) are rejected by their length alone.
fn is_reserved(word: &str) -> bool {
    match word.len() {
        1 => matches!(word, "!" | "{" | "}"),
        2 => matches!(word, "if" | "fi" | "do"),
        4 => matches!(word, "then" | "else" | "elif" | "done" | "esac"),
        5 => matches!(word, "while" | "until"),
        _ => false,
    }
}

/// Most words of a loop header recorded as its variable's values.
const MAX_LOOP_WORDS: usize = 64;

/// `for NAME in W1 W2 …`: an empty command holding the assignment `NAME` = the words, one
/// per line (a consumer splits them), so that `rm "$NAME"` in the body names them.
fn loop_variable<'a>(
    ctx: &mut Ctx<'a>,
    words: &[FinalWord<'a>],
    depth: usize,
    wrappers: &[String],
) {
    let (Some(name), Some(inw)) = (words.get(1), words.get(2)) else {
        return;
    };
    if inw.text != "in" || words.len() <= 3 || words.len() > 3 + MAX_LOOP_WORDS {
        return;
    }
    let value: Vec<&str> = words[3..]
        .iter()
        .map(|w| &*w.text)
        .take_while(|w| !matches!(*w, ";" | "do"))
        .collect();
    if value.is_empty() {
        return;
    }
    let name = name.text.clone();
    let cmd = new_command(
        Cow::Borrowed(""),
        Vec::new(),
        with(wrappers, &format!("{name}=")),
        depth,
    );
    if let Some(by) = push(ctx, cmd) {
        ctx.assigns.push(Assignment {
            by,
            name,
            value: Cow::Owned(value.join("\n")),
        });
    }
}

/// Turn the words of one pipeline element into commands; returns its span.
fn emit<'a>(ctx: &mut Ctx<'a>, cur: Pending<'a>, depth: usize, wrappers: &[String]) -> Span {
    let Pending {
        mut words,
        writes,
        sub,
        ..
    } = cur;
    let mut start = 0;
    while let Some(w) = words.get(start) {
        match &*w.text {
            "function" => start += 2,
            // `for NAME in WORDS` / `select NAME in WORDS`: a loop header. NAME takes each
            // word in turn: recorded as an assignment of the words, a line each.
            "for" | "select" => {
                loop_variable(ctx, &words[start..], depth, wrappers);
                start = words.len();
            }
            // `coproc NAME { …; }` / `coproc { …; }`: the group's commands run.
            "coproc" if words.get(start + 1).is_some_and(|w| w.text == "{") => start += 2,
            "coproc" if words.get(start + 2).is_some_and(|w| w.text == "{") => start += 3,
            t if is_reserved(t) => start += 1,
            _ => break,
        }
    }
    words.drain(..start.min(words.len()));
    let mut span = sub.unwrap_or_default();
    if !words.is_empty() {
        span = span.then(build(ctx, words, depth, wrappers));
    } else if words.capacity() > 0 {
        ctx.spare_words.push(words);
    }
    attach_writes(ctx, &mut span, writes, depth, wrappers);
    span
}

fn attach_writes<'a>(
    ctx: &mut Ctx<'a>,
    span: &mut Span,
    writes: Vec<Redirect>,
    depth: usize,
    wrappers: &[String],
) {
    if writes.is_empty() {
        return;
    }
    if let Some(c) = span.tail.and_then(|t| ctx.commands.get_mut(t)) {
        c.writes.extend(writes);
        return;
    }
    let mut cmd = new_command(Cow::Borrowed(""), Vec::new(), wrappers.to_vec(), depth);
    cmd.writes = writes;
    if let Some(i) = push(ctx, cmd) {
        *span = Span {
            head: Some(i),
            tail: Some(i),
        };
    }
}

fn new_command<'a>(
    path: Cow<'a, str>,
    args: Vec<Cow<'a, str>>,
    wrappers: Vec<String>,
    depth: usize,
) -> SimpleCommand<'a> {
    // A borrowed path gives a borrowed basename; an owned one, a copy of its basename.
    let program = match &path {
        Cow::Borrowed(p) => Cow::Borrowed(basename(p)),
        Cow::Owned(p) => Cow::Owned(basename(p).to_string()),
    };
    SimpleCommand {
        program,
        program_path: path,
        args,
        wrappers,
        writes: Vec::new(),
        stdin: None,
        env: Vec::new(),
        background: false,
        depth,
        pipe_to: None,
    }
}

fn push<'a>(ctx: &mut Ctx<'a>, cmd: SimpleCommand<'a>) -> Option<usize> {
    if ctx.commands.len() >= MAX_COMMANDS {
        ctx.truncated = true;
        return None;
    }
    ctx.commands.push(cmd);
    Some(ctx.commands.len() - 1)
}

/// The last path component of a program word (`/usr/bin/rm` → `rm`).
pub(crate) fn basename(path: &str) -> &str {
    // Byte scans: `/` is ASCII, so every cut below is on a character boundary.
    let bytes = path.as_bytes();
    let end = bytes.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    if end == 0 {
        return path;
    }
    let start = bytes[..end]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1);
    path.get(start..end).unwrap_or(path)
}

fn plain_words<'a>(texts: &[Cow<'a, str>]) -> Vec<FinalWord<'a>> {
    texts
        .iter()
        .map(|t| FinalWord {
            text: t.clone(),
            assign: false,
            array: false,
        })
        .collect()
}

/// Peel wrappers off one simple command and record it (or the script it runs).
fn build<'a>(
    ctx: &mut Ctx<'a>,
    mut owned: Vec<FinalWord<'a>>,
    depth: usize,
    wrappers: &[String],
) -> Span {
    let mut w = wrappers.to_vec();
    let mut env: Vec<(Cow<'a, str>, Cow<'a, str>)> = Vec::new();
    let mut k = 0;
    let mut last_wrapper: Option<usize> = None;
    let mut program_at = None;
    while let Some(word) = owned.get(k) {
        ctx.steps += 1;
        if word.assign {
            let name = assignment_name(&word.text).unwrap_or_default();
            w.push(format!("{name}="));
            if !word.array {
                if let Some(pair) = split_assignment(ctx, &word.text) {
                    env.push(pair);
                }
            }
            k += 1;
            continue;
        }
        let here = k;
        let name = wrappers::name_at(&owned, k);
        if !wrappers::maybe_wrapper(name) {
            // Most programs: no call into the wrapper table.
            program_at = Some(k);
            break;
        }
        match wrappers::peel(&owned, k, name) {
            Peel::Program => {
                program_at = Some(k);
                break;
            }
            Peel::Script { script, name } => {
                if depth >= MAX_DEPTH {
                    ctx.truncated = true;
                    program_at = Some(k);
                    break;
                }
                // The variables set for the wrapper are the environment of everything its
                // script runs (`GIT_PAGER=… bash -c 'git log'`).
                let first = ctx.commands.len();
                let span = parse_script(ctx, script.as_bytes(), depth + 1, &with(&w, &name));
                if !env.is_empty() {
                    for cmd in ctx.commands.iter_mut().skip(first) {
                        let mut all = env.clone();
                        all.append(&mut cmd.env);
                        cmd.env = all;
                    }
                }
                return span;
            }
            Peel::Wrapper { next, name, strip } => {
                k = next.max(k + 1);
                if name == "env" {
                    // `env NAME=value … cmd`: the command's environment. env takes any
                    // word with `=` as a variable, whatever its name (`BASH_FUNC_f%%=…`).
                    while let Some(a) = owned.get(k) {
                        let Some(pair) =
                            split_assignment(ctx, &a.text).or_else(|| env_word(&a.text))
                        else {
                            break;
                        };
                        env.push(pair);
                        k += 1;
                    }
                }
                if strip > 0 {
                    if let Some(word) = owned.get_mut(k) {
                        word.text = match std::mem::take(&mut word.text) {
                            Cow::Borrowed(t) => Cow::Borrowed(t.get(strip..).unwrap_or(t)),
                            Cow::Owned(t) => Cow::Owned(t.get(strip..).unwrap_or(&t).to_string()),
                        };
                    }
                }
                w.push(name.to_string());
                last_wrapper = Some(here);
            }
        }
    }
    let at = match (program_at, last_wrapper) {
        (Some(at), _) => at,
        (None, Some(at)) => {
            // Only wrappers (`sudo -v`, `env`): the last wrapper is the program.
            w.pop();
            at
        }
        (None, None) => {
            // Only assignments (`D=/`): they hold for the rest of the shell.
            let cmd = new_command(Cow::Borrowed(""), Vec::new(), w, depth);
            let span = single(ctx, cmd);
            if let Some(by) = span.tail {
                for (name, value) in env {
                    ctx.assigns.push(Assignment { by, name, value });
                }
            }
            return span;
        }
    };
    // `export D=/`, `local D=~`, `declare -x D=…`: assignments too.
    let declared = if owned
        .get(at)
        .is_some_and(|p| is_declaration(basename(&p.text)))
    {
        declarations(ctx, &owned[at + 1..])
    } else {
        Vec::new()
    };
    // The program and its arguments are the last words: moved out, not copied. Into a
    // spare argument list, when there is one (the emptied word list is then spare);
    // otherwise into the word list's own room (collected in place).
    let (mut program, mut args) = match ctx.spare_args.pop() {
        Some(mut args) => {
            let mut rest = owned.drain(at.min(owned.len())..).map(|w| w.text);
            let program = rest.next().unwrap_or_default();
            args.extend(rest);
            owned.clear();
            ctx.spare_words.push(owned);
            (program, args)
        }
        None => {
            let mut rest = owned.into_iter().skip(at).map(|w| w.text);
            let program = rest.next().unwrap_or_default();
            let args: Vec<Cow<'a, str>> = rest.collect();
            (program, args)
        }
    };
    if name_of(&program) == "xargs" && args.is_empty() {
        program = Cow::Borrowed("echo");
        args.clear();
    }
    let find_execs = if name_of(&program) == "find" {
        find_exec_commands(&args)
    } else {
        Vec::new()
    };
    let wrappers = if find_execs.is_empty() {
        std::mem::take(&mut w)
    } else {
        w.clone()
    };
    let mut cmd = new_command(program, args, wrappers, depth);
    cmd.env = env;
    let span = single(ctx, cmd);
    if let Some(by) = span.tail {
        for (name, value) in declared {
            ctx.assigns.push(Assignment { by, name, value });
        }
    }
    for sub in find_execs {
        if depth >= MAX_DEPTH {
            ctx.truncated = true;
            break;
        }
        build(ctx, plain_words(&sub), depth + 1, &with(&w, "find -exec"));
    }
    span
}

/// The builtins whose `NAME=value` operands assign: `export`, `declare`, `local`,
/// `readonly`, `typeset`.
fn is_declaration(program: &str) -> bool {
    match program.len() {
        5 => program == "local",
        6 => program == "export",
        7 => matches!(program, "declare" | "typeset"),
        8 => program == "readonly",
        _ => false,
    }
}

/// The assignments among a declaration builtin's operands (options and bare names are
/// skipped, array literals are not values).
fn declarations<'a>(ctx: &Parsed<'a>, args: &[FinalWord<'a>]) -> Vec<(Cow<'a, str>, Cow<'a, str>)> {
    args.iter()
        .filter(|a| !a.array && !a.text.starts_with('-') && !a.text.starts_with('+'))
        .filter_map(|a| split_assignment(ctx, &a.text))
        .collect()
}

/// `NAME=value` → (`NAME`, `value`), borrowing what the word borrows. `NAME+=more` appends
/// to the name's last recorded value (looked for among the last few), or to `$NAME`.
/// A word `env` reads as a variable though the shell would not (`BASH_FUNC_f%%=() {…}`):
/// its name is everything before the first `=`, which must not be empty or an option.
fn env_word<'a>(text: &Cow<'a, str>) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
    let (name, value) = text.split_once('=')?;
    if name.is_empty() || name.starts_with('-') || name.contains('/') {
        return None;
    }
    Some((Cow::Owned(name.to_string()), Cow::Owned(value.to_string())))
}

fn split_assignment<'a>(
    ctx: &Parsed<'a>,
    text: &Cow<'a, str>,
) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
    let name_len = assignment_name(text)?.len();
    let append = text.as_bytes().get(name_len) == Some(&b'+');
    let value_at = name_len + usize::from(append) + 1;
    let (name, value) = match text {
        Cow::Borrowed(t) => (
            Cow::Borrowed(&t[..name_len]),
            Cow::Borrowed(t.get(value_at..).unwrap_or_default()),
        ),
        Cow::Owned(t) => (
            Cow::Owned(t[..name_len].to_string()),
            Cow::Owned(t.get(value_at..).unwrap_or_default().to_string()),
        ),
    };
    if !append {
        return Some((name, value));
    }
    let before = ctx
        .assigns
        .iter()
        .rev()
        .take(64)
        .find(|a| a.name == name)
        .map(|a| a.value.to_string())
        .unwrap_or_else(|| format!("${name}"));
    Some((name, Cow::Owned(before + &value)))
}

fn name_of(path: &str) -> &str {
    basename(path)
}

fn single<'a>(ctx: &mut Ctx<'a>, cmd: SimpleCommand<'a>) -> Span {
    let i = push(ctx, cmd);
    Span { head: i, tail: i }
}

/// Parse an argument vector that no shell interprets (an `exec`-style `["rm", "-rf", "/"]`):
/// the words are taken as they are, wrappers are still peeled and `bash -c` scripts parsed.
/// The words are copied: the result borrows nothing.
pub fn parse_argv(argv: &[String]) -> Parsed<'static> {
    let mut ctx = Ctx {
        out: Parsed::default(),
        line: "",
        spare_words: Vec::new(),
        spare_args: Vec::new(),
    };
    let words: Vec<FinalWord<'static>> = argv
        .iter()
        .map(|a| {
            ctx.steps += a.len() as u64 + 1;
            let mut end = a.len().min(MAX_WORD);
            if end < a.len() {
                // The word cap, as in the lexer: bytes, cut at a character boundary.
                ctx.truncated = true;
                while !a.is_char_boundary(end) {
                    end -= 1;
                }
            }
            FinalWord {
                text: Cow::Owned(a[..end].to_string()),
                assign: false,
                array: false,
            }
        })
        .collect();
    if !words.is_empty() {
        build(&mut ctx, words, 0, &[]);
    }
    ctx.out
}

/// The commands run by `find … -exec cmd … ;` (also `-execdir`, `-ok`, `-okdir`, `+`).
fn find_exec_commands<'a>(args: &[Cow<'a, str>]) -> Vec<Vec<Cow<'a, str>>> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < args.len() {
        if matches!(&*args[k], "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = k + 1;
            let mut end = start;
            while end < args.len() && args[end] != ";" && args[end] != "+" {
                end += 1;
            }
            if end > start {
                out.push(args[start..end].to_vec());
            }
            k = end + 1;
        } else {
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrappers::{shell_script, skip_opts, NONE, STDBUF, SUDO};
    use super::*;
    use proptest::prelude::*;

    /// A recycled vector keeps its allocation (the standard library collects in place), and
    /// a parse's vectors come back with room.
    #[test]
    fn recycling_keeps_the_room() {
        let line = String::from("a b c | d e f; g h 'i j'");
        let mut v: Vec<Cow<'_, str>> = Vec::with_capacity(8);
        v.push(Cow::Borrowed(&line[..1]));
        let kept: Vec<Cow<'static, str>> = recycle(v);
        assert!(kept.is_empty());
        assert!(kept.capacity() >= 8, "capacity {}", kept.capacity());

        let mut room = ParseRoom::default();
        let parsed = parse_in(&line, &mut room);
        assert_eq!(parsed.commands.len(), 3);
        room.keep(parsed);
        assert!(room.commands.capacity() >= 3);
        assert_eq!(room.args.len(), 3);
        assert!(room.args.iter().all(|a| a.is_empty() && a.capacity() >= 2));
        // A parse with spare argument lists leaves the word lists it emptied.
        assert!(room.words.is_empty());
        let again = parse_in(&line, &mut room);
        assert_eq!(again, parse(&line));
        room.keep(again);
        assert!(!room.words.is_empty());
        assert_eq!(room.args.len(), 3);
    }

    thread_local! {
        /// Scan words a byte at a time (the loop before plain runs were copied at once).
        pub(super) static BYTEWISE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    fn bytewise(line: &str) -> Parsed<'_> {
        BYTEWISE.set(true);
        let parsed = parse(line);
        BYTEWISE.set(false);
        parsed
    }

    proptest! {
        /// Copying runs of plain bytes at once parses every line as the byte-at-a-time scan
        /// did: the same commands, words, pipes, truncation and steps.
        #[test]
        fn plain_runs_parse_as_bytewise(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "rm", " ", "-rf", "/tmp/x", "'a b'", "\"q $v\"", "$(ls)", "`pwd`", "\\ ",
                "$'\\x41'", "|", "&&", ";", "\n", "(", ")", "{", "}", "<", ">", "2>", "x=1",
                "bash -c '", "sudo", "env", "<<EOF\nbody\nEOF\n", "ü", "*", "#c", "$", "\\",
            ]), 0..24),
            long in 0usize..3,
        ) {
            let mut line = parts.concat();
            if long > 0 {
                line.push_str(&"y".repeat(super::super::MAX_WORD * long / 2 + 7));
            }
            prop_assert_eq!(parse(&line), bytewise(&line), "{:?}", line);
        }
    }

    /// Plain words of the line are borrowed from it (the fast path); quoted, escaped,
    /// expanded and nested-script words are owned. Either way the texts are what the
    /// copying parse gave (`plain_runs_parse_as_bytewise` compares every word with the
    /// byte-at-a-time scan, which owns all of them).
    #[test]
    fn plain_words_borrow_from_the_line() {
        #[allow(clippy::ptr_arg)] // whether the `Cow` borrows is the point
        fn borrowed_from(w: &Cow<'_, str>, line: &str) -> bool {
            let range = line.as_bytes().as_ptr_range();
            matches!(w, Cow::Borrowed(t) if range.contains(&t.as_ptr()))
        }
        let line = "sudo /bin/rm -rf 'a b' c\\d \"$X\" x$(ls -la) && bash -c 'git push -f'";
        let p = parse(line);
        let by_program = |name: &str| {
            p.commands
                .iter()
                .find(|c| c.program == name)
                .unwrap_or_else(|| panic!("no {name} in {p:#?}"))
        };
        let rm = by_program("rm");
        assert!(borrowed_from(&rm.program_path, line));
        assert!(borrowed_from(&rm.program, line));
        assert_eq!(
            (rm.program_path.as_ref(), rm.program.as_ref()),
            ("/bin/rm", "rm")
        );
        let kinds: Vec<bool> = rm.args.iter().map(|a| borrowed_from(a, line)).collect();
        assert_eq!(rm.args, ["-rf", "a b", "cd", "$X", "x$(…)"]);
        assert_eq!(kinds, [true, false, false, false, false]);
        let ls = by_program("ls");
        assert!(borrowed_from(&ls.program, line) && borrowed_from(&ls.args[0], line));
        // A nested script is parsed from text built from the line: its words are owned.
        let git = by_program("git");
        assert!(matches!(git.program, Cow::Owned(_)));
        assert_eq!(git.args, ["push", "-f"]);
        assert!(git.args.iter().all(|a| matches!(a, Cow::Owned(_))));
    }

    fn words(ws: &[&str]) -> Vec<FinalWord<'static>> {
        ws.iter()
            .map(|t| FinalWord {
                text: t.to_string().into(),
                assign: false,
                array: false,
            })
            .collect()
    }

    /// The byte-scanning [`basename`] gives what the first, `str`-method version gave.
    #[test]
    fn basename_is_the_str_method_version() {
        fn first(path: &str) -> &str {
            let trimmed = path.trim_end_matches('/');
            match trimmed.rfind('/') {
                Some(i) => &trimmed[i + 1..],
                None if trimmed.is_empty() => path,
                None => trimmed,
            }
        }
        proptest::proptest!(|(path in "[a/é.]{0,8}")| {
            proptest::prop_assert_eq!(basename(&path), first(&path));
        });
    }

    #[test]
    fn basenames() {
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("./x/"), "x");
        assert_eq!(basename("/"), "/");
        assert_eq!(basename(""), "");
    }

    #[test]
    fn assignments() {
        assert_eq!(assignment_name("A=1"), Some("A"));
        assert_eq!(assignment_name("PATH+=:/x"), Some("PATH"));
        assert_eq!(assignment_name("_x9=a=b"), Some("_x9"));
        assert_eq!(assignment_name("9x=1"), None);
        assert_eq!(assignment_name("--opt=1"), None);
        assert_eq!(assignment_name("=1"), None);
        // A quoted name is a command word, not an assignment.
        let p = parse("'X'=1 rm");
        assert_eq!(p.commands[0].program, "X=1");
    }

    #[test]
    fn wrapper_options_with_values_are_skipped() {
        let ws = words(&["-u", "root", "-E", "--chdir", "/", "--user=x", "rm"]);
        assert_eq!(skip_opts(&ws, 0, &SUDO), 6);
        let ws = words(&["-oL", "-e", "0", "cmd"]);
        assert_eq!(skip_opts(&ws, 0, &STDBUF), 3);
        let ws = words(&["--", "-rf"]);
        assert_eq!(skip_opts(&ws, 0, &NONE), 1);
    }

    /// The names [`wrappers::peel`] tries are sorted, unique, shorter than the prefilter's
    /// 32 bytes, and cover the shells (the wrapper table in `tests/shell.rs` reaches the
    /// others); a name left out of the list would never be peeled.
    #[test]
    fn wrapper_names_are_listed() {
        let names = super::wrappers::WRAPPER_NAMES;
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(names.iter().all(|n| !n.is_empty() && n.len() < 32));
        for shell in super::wrappers::SHELLS {
            assert!(names.contains(&shell), "{shell}");
        }
        for name in ["npx", "sudo", "tmux", "dbus-run-session"] {
            let ws = words(&[name, "-c", "x", "rm"]);
            assert!(
                !matches!(super::wrappers::peel(&ws, 0, name), Peel::Program),
                "{name}"
            );
        }
        for name in ["git", "cargo", "ls", "conda2", "s"] {
            let ws = words(&[name, "rm"]);
            assert!(
                matches!(super::wrappers::peel(&ws, 0, name), Peel::Program),
                "{name}"
            );
        }
    }

    #[test]
    fn shell_scripts_after_c() {
        assert_eq!(
            shell_script(&words(&["-e", "-o", "pipefail", "-c", "ls", "x"]), 0),
            Some("ls".to_string())
        );
        assert_eq!(shell_script(&words(&["-lc", "ls"]), 0), Some("ls".into()));
        assert_eq!(shell_script(&words(&["script.sh", "-c"]), 0), None);
    }

    #[test]
    fn find_exec_forms() {
        let args: Vec<Cow<'_, str>> = [".", "-exec", "rm", "{}", ";", "-ok", "mv", "{}", "x", "+"]
            .iter()
            .map(|s| Cow::Borrowed(*s))
            .collect();
        assert_eq!(
            find_exec_commands(&args),
            [vec!["rm", "{}"], vec!["mv", "{}", "x"]]
        );
    }

    #[test]
    fn ansi_c_escapes() {
        let p = parse(r"$'\x72\155' $'a\tb' $'\q'");
        assert_eq!(p.commands[0].program, "rm");
        assert_eq!(p.commands[0].args, ["a\tb", "q"]);
    }

    #[test]
    fn unterminated_input_is_closed_at_the_end() {
        let p = parse("echo \"$(rm -rf / ");
        assert_eq!(p.commands[0].program, "rm");
        assert_eq!(p.commands[1].program, "echo");
        let p = parse("cat <<EOF\nrm -rf /");
        assert_eq!(p.commands.len(), 1);
    }
}
