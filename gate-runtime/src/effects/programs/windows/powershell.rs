//! PowerShell text: statements split on `;`, newlines, pipes, `&&` and script blocks; words
//! unquoted (`'…'`, `"…"` with backtick escapes); redirections; cmdlet parameters read by
//! unambiguous prefix, as PowerShell reads them.

use gate_spec::effect::{Act, Place};

use super::super::super::Sink;

use super::cmdlets::cmdlet;
use super::{param, win_path, MAX_NEST, MAX_TEXT};

#[derive(Clone, Debug)]
pub(super) struct Word {
    pub(super) text: String,
    /// Holds a variable or subexpression (`$x`, `$(…)`) in an expandable context.
    pub(super) computed: bool,
}

/// One statement of a pipeline: its words, and redirections.
#[derive(Debug, Default)]
pub(super) struct Stmt {
    pub(super) words: Vec<Word>,
    pub(super) redirects: Vec<(Act, String)>,
    /// Fed by the previous statement through a pipe.
    pub(super) piped: bool,
    /// The text as written.
    pub(super) text: String,
}

/// Split PowerShell text into statements (bounded, linear).
pub(super) fn statements(text: &str) -> Vec<Stmt> {
    let b = text.as_bytes();
    let n = b.len().min(MAX_TEXT);
    let mut out: Vec<Stmt> = Vec::new();
    let mut cur = Stmt::default();
    let mut word = String::new();
    let mut in_word = false;
    let mut computed = false;
    let mut start = 0;
    let mut i = 0;
    let push_word = |cur: &mut Stmt, word: &mut String, in_word: &mut bool, computed: &mut bool| {
        if *in_word {
            cur.words.push(Word {
                text: std::mem::take(word),
                computed: *computed,
            });
        }
        *in_word = false;
        *computed = false;
    };
    let finish = |out: &mut Vec<Stmt>,
                  cur: &mut Stmt,
                  piped_next: bool,
                  text: &str,
                  start: usize,
                  end: usize| {
        let mut done = std::mem::take(cur);
        done.text = text.get(start..end).unwrap_or("").to_string();
        // Redirections: `>`/`>>`/`2>`/`*>` followed by a target.
        let mut words = Vec::new();
        let mut it = done.words.into_iter().peekable();
        while let Some(w) = it.next() {
            let t = w.text.as_str();
            let op = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '*');
            if (op == ">" || op == ">>") && !t.is_empty() {
                if let Some(target) = it.next() {
                    let act = if op == ">>" {
                        Act::Write
                    } else {
                        Act::Overwrite
                    };
                    done.redirects.push((act, target.text));
                }
                continue;
            }
            if let Some(target) = op.strip_prefix(">>").filter(|r| !r.is_empty()) {
                done.redirects.push((Act::Write, target.to_string()));
                continue;
            }
            if let Some(target) = op
                .strip_prefix('>')
                .filter(|r| !r.is_empty() && !r.starts_with('&'))
            {
                done.redirects.push((Act::Overwrite, target.to_string()));
                continue;
            }
            words.push(w);
        }
        done.words = words;
        if !done.words.is_empty() || !done.redirects.is_empty() {
            out.push(done);
        }
        cur.piped = piped_next;
    };
    while i < n {
        let c = b[i];
        match c {
            b'\'' => {
                // Literal string; `''` is a quote.
                in_word = true;
                i += 1;
                while i < n {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            word.push('\'');
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    let ch_end = next_char(text, i);
                    word.push_str(&text[i..ch_end]);
                    i = ch_end;
                }
                i += 1;
            }
            b'"' => {
                in_word = true;
                i += 1;
                while i < n && b[i] != b'"' {
                    if b[i] == b'`' && i + 1 < n {
                        i += 1;
                    } else if b[i] == b'$'
                        && b.get(i + 1)
                            .is_some_and(|x| x.is_ascii_alphabetic() || *x == b'(' || *x == b'{')
                    {
                        computed = true;
                    }
                    let ch_end = next_char(text, i);
                    word.push_str(&text[i..ch_end]);
                    i = ch_end;
                }
                i += 1;
            }
            b'`' if i + 1 < n => {
                in_word = true;
                let ch_end = next_char(text, i + 1);
                word.push_str(&text[i + 1..ch_end]);
                i = ch_end;
            }
            b'#' if !in_word => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
            }
            b';' | b'\n' | b'{' | b'}' | b'|' | b'&' => {
                let pipe = c == b'|' && b.get(i + 1) != Some(&b'|');
                let and = c == b'&' && b.get(i + 1) == Some(&b'&');
                let or = c == b'|' && b.get(i + 1) == Some(&b'|');
                if c == b'&' && !and {
                    // The call operator `& 'prog' args` / background `&`: a word break.
                    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                    i += 1;
                    continue;
                }
                push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                finish(&mut out, &mut cur, pipe, text, start, i);
                i += if and || or { 2 } else { 1 };
                start = i;
            }
            b'(' | b')' | b',' if !in_word || c != b',' => {
                // Grouping: a word break (`(iwr x).Content`, `rm a,b` keeps the comma).
                push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                if c == b',' {
                    in_word = false;
                }
                i += 1;
            }
            b' ' | b'\t' | b'\r' => {
                // `a, b` is one array argument.
                if !word.ends_with(',') {
                    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
                }
                i += 1;
            }
            _ => {
                if c == b'$'
                    && b.get(i + 1).is_some_and(|x| {
                        x.is_ascii_alphabetic() || *x == b'(' || *x == b'{' || *x == b'_'
                    })
                {
                    computed = true;
                }
                in_word = true;
                let ch_end = next_char(text, i);
                word.push_str(&text[i..ch_end]);
                i = ch_end;
            }
        }
    }
    push_word(&mut cur, &mut word, &mut in_word, &mut computed);
    finish(&mut out, &mut cur, false, text, start, n);
    out
}

pub(super) fn next_char(text: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < text.len() && !text.is_char_boundary(j) {
        j += 1;
    }
    j
}

/// Names that download.
pub(super) const FETCHERS: &[&str] = &[
    "invoke-webrequest",
    "iwr",
    "invoke-restmethod",
    "irm",
    "wget",
    "curl",
    "start-bitstransfer",
    "downloadstring",
    "downloadfile",
    "downloaddata",
];

pub(super) fn is_fetch_word(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    FETCHERS
        .iter()
        .any(|f| l == *f || l.ends_with(&format!(".{f}")))
        || l.contains("downloadstring")
        || l.contains("net.webclient")
}

/// Analyse PowerShell text.
pub(super) fn script(text: &str, out: &mut Sink, nest: usize) {
    if nest > MAX_NEST {
        out.opaque(text);
        return;
    }
    let stmts = statements(text);
    let mut fetched_before = false;
    // The listing a `ForEach-Object` block is fed by: its `$_` is each item of it.
    let mut each_of: Option<&Stmt> = None;
    for (k, st) in stmts.iter().enumerate() {
        for (act, target) in &st.redirects {
            let l = target.to_ascii_lowercase();
            if l != "$null" && l != "nul" {
                out.path(*act, &win_path(target));
            }
        }
        let piped_from = if st.piped && k > 0 {
            Some(&stmts[k - 1])
        } else {
            None
        };
        if is_foreach(st) {
            each_of = piped_from.filter(|p| !is_item_stmt(p)).or(each_of);
        }
        // `$_ | Remove-Item`, `Remove-Item $_.FullName` in the block: the listing's items.
        let piped_from = match piped_from {
            Some(p) if is_item_stmt(p) => each_of.or(Some(p)),
            None if st.words.iter().skip(1).any(super::cmdlets::is_item) => each_of,
            other => other,
        };
        let fed_by_fetch =
            piped_from.is_some_and(|p| p.words.iter().any(|w| is_fetch_word(&w.text)));
        cmdlet(st, piped_from, fed_by_fetch || fetched_before, out, nest);
        if st.words.iter().any(|w| is_fetch_word(&w.text))
            && st.words.first().is_some_and(|w| w.text.starts_with('$'))
        {
            // `$s = iwr …` then `iex $s`.
            fetched_before = true;
        }
    }
}

/// A `ForEach-Object` (`foreach`, `%`) statement.
fn is_foreach(st: &Stmt) -> bool {
    st.words.first().is_some_and(|w| {
        matches!(
            w.text.to_ascii_lowercase().as_str(),
            "foreach-object" | "foreach" | "%"
        )
    })
}

/// A statement that is only the pipeline's current item (`$_ | Remove-Item`).
fn is_item_stmt(st: &Stmt) -> bool {
    st.words.len() == 1 && super::cmdlets::is_item(&st.words[0])
}

/// Arguments of a cmdlet: named parameters (by prefix) and positionals.
pub(super) struct Params<'w> {
    pub(super) named: Vec<(&'static str, Option<&'w Word>)>,
    pub(super) positional: Vec<&'w Word>,
}

/// Read a cmdlet's arguments: `valued` parameters take the next word (or `-P:value`).
pub(super) fn params<'w>(
    words: &'w [Word],
    valued: &[&'static str],
    flags: &[&'static str],
) -> Params<'w> {
    let mut p = Params {
        named: Vec::new(),
        positional: Vec::new(),
    };
    let mut k = 0;
    while let Some(w) = words.get(k) {
        k += 1;
        let t = w.text.as_str();
        if t.len() > 1 && t.starts_with('-') && t.as_bytes()[1].is_ascii_alphabetic() {
            let name = &t[1..];
            let (name, inline) = match name.split_once(':') {
                Some((n, _)) => (n, true),
                None => (name, false),
            };
            if let Some(v) = valued.iter().find(|v| param(name, v, 1)) {
                if inline {
                    p.named.push((v, Some(w)));
                } else {
                    p.named.push((v, words.get(k)));
                    k += 1;
                }
            } else if let Some(f) = flags.iter().find(|f| param(name, f, 1)) {
                p.named.push((f, None));
            } else {
                p.named.push(("?", None));
            }
            continue;
        }
        p.positional.push(w);
    }
    p
}

impl Params<'_> {
    pub(super) fn has(&self, name: &str) -> bool {
        self.named.iter().any(|(n, _)| *n == name)
    }

    pub(super) fn value(&self, name: &str) -> Option<&Word> {
        self.named
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| *v)
    }

    /// The values of `names`, else the positional at `index`.
    pub(super) fn paths(&self, names: &[&str], index: usize) -> Vec<&Word> {
        let named: Vec<&Word> = self
            .named
            .iter()
            .filter(|(n, _)| names.contains(n))
            .filter_map(|(_, v)| *v)
            .collect();
        if !named.is_empty() {
            return named;
        }
        self.positional.get(index).copied().into_iter().collect()
    }
}

/// The value of a word given as `-Name:value`.
pub(super) fn value_text(w: &Word) -> &str {
    match w.text.split_once(':') {
        Some((n, v)) if n.starts_with('-') => v,
        _ => &w.text,
    }
}

/// Each path a word names (`a,b` lists).
pub(super) fn each_path(w: &Word, act: Act, out: &mut Sink) {
    for part in value_text(w).split(',').filter(|p| !p.is_empty()) {
        let p = win_path(part);
        let l = part.to_ascii_lowercase();
        if l.starts_with("hklm:") || l.starts_with("hkcu:") || l.starts_with("registry::") {
            out.none(Act::Service);
        } else if p.starts_with('$') && !p.starts_with("$env") {
            out.place(act, Place::Unknown);
        } else {
            out.path(act, &p);
        }
    }
}

/// An external program inside PowerShell or cmd: analysed as a shell command, unless it is
/// one of the Windows shells (modelled here).
pub(super) fn run_external(line: &str, out: &mut Sink, nest: usize) {
    let first = line
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let base = first
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(&first)
        .trim_matches(|c| c == '\'' || c == '"');
    let base = base.strip_suffix(".exe").unwrap_or(base);
    if matches!(base, "powershell" | "pwsh" | "cmd") || nest > 0 && base.is_empty() {
        script(line, out, nest + 1);
    } else {
        out.script(line);
    }
}
