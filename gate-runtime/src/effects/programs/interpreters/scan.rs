//! A linear, string-literal-aware tokenizer for interpreter code (python, JavaScript, perl,
//! ruby, php, lua, R, awk, AppleScript): identifiers, string literals (unescaped, and
//! whether they interpolate), command literals (backticks, `qx{}`, `%x{}`), punctuation;
//! comments and regular-expression literals skipped.

/// The language whose literal syntax to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Js,
    Perl,
    Ruby,
    Php,
    Lua,
    R,
    Awk,
    AppleScript,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'s> {
    /// A name (with its sigil in perl and php: `$x`, `@a`).
    Ident(&'s str),
    /// A string literal's value.
    Str(String),
    /// A string that interpolates (`f"…{x}"`, `` `…${x}` ``, `"$x"`, `"#{x}"`): not a literal.
    Interp(String),
    /// A command literal: backticks, `qx{}`, `%x{}` (with whether it interpolates).
    Cmd(String, bool),
    Num,
    P(u8),
}

/// Longest code read.
const MAX_CODE: usize = 256 * 1024;

fn ident_start(b: u8, lang: Lang) -> bool {
    b.is_ascii_alphabetic()
        || b == b'_'
        || b >= 0x80
        || (b == b'$' && lang != Lang::Python)
        || (b == b'@' && matches!(lang, Lang::Perl | Lang::Ruby))
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn closing(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        c => c,
    }
}

/// Read a delimited body from `i` (just after the opening delimiter); nests brackets.
/// Returns (body, index after the closing delimiter).
fn delimited(b: &[u8], i: usize, open: u8, escapes: bool) -> (usize, usize) {
    let close = closing(open);
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        if escapes && c == b'\\' {
            j += 2;
            continue;
        }
        if c == close && depth == 0 {
            return (j, j + 1);
        }
        if open != close {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
            }
        }
        j += 1;
    }
    (b.len(), b.len())
}

/// Unescape a quoted body (`\n`, `\t`, `\\`, `\'`, `\"`; others kept as written).
fn unescape(s: &str, raw: bool) -> String {
    if raw || !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(c @ ('\\' | '\'' | '"' | '`' | '$' | '/')) => out.push(c),
            Some(c) => {
                out.push('\\');
                out.push(c);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Whether a `/` at this point starts a regular expression (rather than dividing).
fn regex_here(prev: Option<&Tok<'_>>) -> bool {
    match prev {
        None => true,
        Some(Tok::P(c)) => !matches!(c, b')' | b']' | b'}'),
        Some(Tok::Ident(w)) => matches!(
            *w,
            "if" | "unless"
                | "and"
                | "or"
                | "not"
                | "return"
                | "split"
                | "grep"
                | "when"
                | "while"
                | "until"
                | "typeof"
                | "in"
        ),
        _ => false,
    }
}

/// Tokens of `code` in `lang` (linear in its length; bounded).
pub(crate) fn tokens(code: &str, lang: Lang) -> Vec<Tok<'_>> {
    let mut end = code.len().min(MAX_CODE);
    while !code.is_char_boundary(end) {
        end -= 1;
    }
    let code = &code[..end];
    let b = code.as_bytes();
    let n = b.len();
    let mut out: Vec<Tok<'_>> = Vec::new();
    let mut i = 0;
    let eol = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(n, |p| from + p)
    };
    let text = |from: usize, to: usize| &code[from.min(n)..to.min(n)];
    while i < n {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Comments.
        let hash_comment = matches!(
            lang,
            Lang::Python | Lang::Perl | Lang::Ruby | Lang::Php | Lang::R | Lang::Awk
        );
        if c == b'#' && hash_comment && !(lang == Lang::Ruby && next == Some(b'{')) {
            i = eol(i);
            continue;
        }
        if c == b'/' && next == Some(b'/') && matches!(lang, Lang::Js | Lang::Php) {
            i = eol(i);
            continue;
        }
        if c == b'/' && next == Some(b'*') && matches!(lang, Lang::Js | Lang::Php) {
            i = b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(n, |p| i + 2 + p + 2);
            continue;
        }
        if c == b'-' && next == Some(b'-') && matches!(lang, Lang::Lua | Lang::AppleScript) {
            if lang == Lang::Lua && b.get(i + 2) == Some(&b'[') && b.get(i + 3) == Some(&b'[') {
                i = b[i + 4..]
                    .windows(2)
                    .position(|w| w == b"]]")
                    .map_or(n, |p| i + 4 + p + 2);
            } else {
                i = eol(i);
            }
            continue;
        }
        if c == b'(' && next == Some(b'*') && lang == Lang::AppleScript {
            i = b[i + 2..]
                .windows(2)
                .position(|w| w == b"*)")
                .map_or(n, |p| i + 2 + p + 2);
            continue;
        }
        // Python string prefixes: r, b, f, u and pairs.
        if lang == Lang::Python && c.is_ascii_alphabetic() {
            let mut j = i;
            while j < n && j - i < 2 && b"rRbBfFuU".contains(&b[j]) {
                j += 1;
            }
            if j > i && matches!(b.get(j), Some(b'\'' | b'"')) {
                let prefix = text(i, j).to_ascii_lowercase();
                let (tok, after) =
                    python_string(code, j, prefix.contains('r'), prefix.contains('f'));
                out.push(tok);
                i = after;
                continue;
            }
        }
        match c {
            b'\'' | b'"' => {
                if lang == Lang::Python {
                    let (tok, after) = python_string(code, i, false, false);
                    out.push(tok);
                    i = after;
                    continue;
                }
                let single = c == b'\'';
                // Single quotes never interpolate (perl, ruby, php, shell-like); they are
                // not strings in awk and AppleScript.
                if single && matches!(lang, Lang::Awk | Lang::AppleScript) {
                    out.push(Tok::P(c));
                    i += 1;
                    continue;
                }
                let (close, after) = delimited(b, i + 1, c, true);
                let body = text(i + 1, close);
                let interp = !single
                    && match lang {
                        Lang::Perl | Lang::Php => has_sigil_var(body),
                        Lang::Ruby => body.contains("#{"),
                        _ => false,
                    };
                let value = unescape(body, single && lang != Lang::Js && lang != Lang::Lua);
                out.push(if interp {
                    Tok::Interp(value)
                } else {
                    Tok::Str(value)
                });
                i = after;
            }
            b'`' if matches!(lang, Lang::Js | Lang::Perl | Lang::Ruby | Lang::Php) => {
                let (close, after) = delimited(b, i + 1, b'`', true);
                let body = text(i + 1, close);
                let value = unescape(body, false);
                let interp = match lang {
                    Lang::Js => body.contains("${"),
                    Lang::Ruby => body.contains("#{"),
                    _ => has_sigil_var(body),
                };
                out.push(if lang == Lang::Js {
                    if interp {
                        Tok::Interp(value)
                    } else {
                        Tok::Str(value)
                    }
                } else {
                    Tok::Cmd(value, interp)
                });
                i = after;
            }
            b'[' if lang == Lang::Lua && matches!(next, Some(b'[') | Some(b'=')) => {
                let close = b[i..]
                    .windows(2)
                    .position(|w| w == b"]]")
                    .map_or(n, |p| i + p);
                let start = b[i + 1..close.max(i + 1)]
                    .iter()
                    .position(|&x| x == b'[')
                    .map_or(close, |p| i + 2 + p);
                out.push(Tok::Str(text(start, close).to_string()));
                i = (close + 2).min(n);
            }
            b'%' if lang == Lang::Ruby
                && ((next.is_some_and(|x| b"xqQwWiIr".contains(&x))
                    && b.get(i + 2).is_some_and(|d| b"({[<|!/".contains(d)))
                    || (next.is_some_and(|x| b"({[<|!".contains(&x))
                        && regex_here(out.last()))) =>
            {
                let (kind, open_at) = if next.is_some_and(|x| x.is_ascii_alphabetic()) {
                    (next.unwrap_or(b'Q'), i + 2)
                } else {
                    (b'Q', i + 1)
                };
                let Some(&open) = b.get(open_at) else {
                    break;
                };
                let (close, after) = delimited(b, open_at + 1, open, true);
                let body = text(open_at + 1, close);
                let value = unescape(body, kind == b'q' || kind == b'w');
                let interp = kind != b'q' && kind != b'w' && body.contains("#{");
                out.push(match kind {
                    b'x' => Tok::Cmd(value, interp),
                    b'r' => Tok::Num,
                    _ if interp => Tok::Interp(value),
                    _ => Tok::Str(value),
                });
                i = after;
            }
            b'/' if matches!(lang, Lang::Js | Lang::Perl | Lang::Ruby | Lang::Awk)
                && regex_here(out.last()) =>
            {
                let (_, after) = delimited(b, i + 1, b'/', true);
                out.push(Tok::Num);
                i = after;
            }
            _ if ident_start(c, lang) => {
                let mut j = i + 1;
                if lang == Lang::Perl && matches!(c, b'$' | b'@') && next == Some(b'{') {
                    // `${…}`, `@{…}`: a computed name.
                    out.push(Tok::Interp(String::new()));
                    i += 1;
                    continue;
                }
                while j < n
                    && (ident_byte(b[j])
                        || (lang == Lang::Perl && b[j] == b':' && b.get(j + 1) == Some(&b':')))
                {
                    j += if b[j] == b':' { 2 } else { 1 };
                }
                let w = text(i, j);
                // Perl quote-like operators and substitutions.
                if lang == Lang::Perl {
                    let delim = b.get(j).copied().filter(|d| {
                        !(d.is_ascii_alphanumeric()
                            || d.is_ascii_whitespace()
                            || b"=,;)_>".contains(d)
                            || (*d == b'-' && b.get(j + 1) == Some(&b'>')))
                    });
                    if let (Some(d), true) = (
                        delim,
                        matches!(w, "q" | "qq" | "qw" | "qx" | "m" | "qr" | "s" | "tr" | "y"),
                    ) {
                        let (close, mut after) = delimited(b, j + 1, d, true);
                        let body = text(j + 1, close);
                        if matches!(w, "s" | "tr" | "y") {
                            // A second part: after the same delimiter, or a new bracket pair.
                            if closing(d) != d {
                                while after < n && b[after].is_ascii_whitespace() {
                                    after += 1;
                                }
                                if let Some(&d2) = b.get(after) {
                                    after = delimited(b, after + 1, d2, true).1;
                                }
                            } else {
                                after = delimited(b, after, d, true).1;
                            }
                            while after < n && b[after].is_ascii_alphabetic() {
                                after += 1;
                            }
                        }
                        let value = unescape(body, w == "q" || w == "qw");
                        let interp = !matches!(w, "q" | "qw") && has_sigil_var(body);
                        out.push(match w {
                            "qx" => Tok::Cmd(value, interp),
                            "q" | "qq" | "qw" if !interp => Tok::Str(value),
                            "qq" => Tok::Interp(value),
                            _ => Tok::Num,
                        });
                        i = after;
                        continue;
                    }
                }
                out.push(Tok::Ident(w));
                i = j;
            }
            _ if c.is_ascii_digit() => {
                let mut j = i;
                while j < n && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'_') {
                    j += 1;
                }
                out.push(Tok::Num);
                i = j;
            }
            _ => {
                out.push(Tok::P(c));
                i += 1;
            }
        }
    }
    out
}

/// Whether a double-quoted perl/php body interpolates a variable.
fn has_sigil_var(body: &str) -> bool {
    let b = body.as_bytes();
    b.windows(2).enumerate().any(|(k, w)| {
        matches!(w[0], b'$' | b'@')
            && (w[1].is_ascii_alphabetic() || w[1] == b'_' || w[1] == b'{')
            && (k == 0 || b[k - 1] != b'\\')
    })
}

/// A python string literal starting at the quote at `i`.
fn python_string(code: &str, i: usize, raw: bool, f: bool) -> (Tok<'_>, usize) {
    let b = code.as_bytes();
    let n = b.len();
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let (start, close, after) = if triple {
        let start = i + 3;
        let mut j = start;
        let close = loop {
            if j >= n {
                break n;
            }
            if b[j] == b'\\' && !raw {
                j += 2;
                continue;
            }
            if b[j] == q && b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                break j;
            }
            j += 1;
        };
        (start, close, (close + 3).min(n))
    } else {
        let start = i + 1;
        let mut j = start;
        let close = loop {
            if j >= n || b[j] == b'\n' {
                break j.min(n);
            }
            if b[j] == b'\\' {
                j += 2;
                continue;
            }
            if b[j] == q {
                break j;
            }
            j += 1;
        };
        (start, close, (close + 1).min(n))
    };
    let body = &code[start.min(n)..close.min(n)];
    let value = unescape(body, raw);
    let interp = f && body.replace("{{", "").contains('{');
    (
        if interp {
            Tok::Interp(value)
        } else {
            Tok::Str(value)
        },
        after,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(code: &str, lang: Lang) -> Vec<String> {
        tokens(code, lang)
            .into_iter()
            .filter_map(|t| match t {
                Tok::Str(s) => Some(format!("s:{s}")),
                Tok::Interp(s) => Some(format!("i:{s}")),
                Tok::Cmd(s, _) => Some(format!("c:{s}")),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn literals_per_language() {
        assert_eq!(
            strs("x = 'a' + \"b\\\"c\" # 'no'", Lang::Python),
            ["s:a", "s:b\"c"]
        );
        assert_eq!(
            strs("f'{x}' rb'\\d' '''t\"\"'''", Lang::Python),
            ["i:{x}", "s:\\d", "s:t\"\""]
        );
        assert_eq!(
            strs("`ls ${d}` // 'x'\n'y'", Lang::Js),
            ["i:ls ${d}", "s:y"]
        );
        assert_eq!(
            strs("qx{rm -rf /}; q(a) \"$x\" 'b' `ls`", Lang::Perl),
            ["c:rm -rf /", "s:a", "i:$x", "s:b", "c:ls"]
        );
        assert_eq!(strs("s/'//g; print 'x'", Lang::Perl), ["s:x"]);
        assert_eq!(
            strs("%x{ls} \"#{a}\" %w[a b]", Lang::Ruby),
            ["c:ls", "i:#{a}", "s:a b"]
        );
        assert_eq!(
            strs("/'/ { print \"a\" > \"f\" }", Lang::Awk),
            ["s:a", "s:f"]
        );
        assert_eq!(
            strs("os.execute([[rm -rf /]]) -- 'x'", Lang::Lua),
            ["s:rm -rf /"]
        );
    }

    #[test]
    fn unterminated_input_ends() {
        for lang in [
            Lang::Python,
            Lang::Js,
            Lang::Perl,
            Lang::Ruby,
            Lang::Php,
            Lang::Lua,
        ] {
            let _ = tokens("'abc", lang);
            let _ = tokens("\"\"\"abc", lang);
            let _ = tokens("qx{", lang);
            let _ = tokens(&"(".repeat(100_000), lang);
        }
    }
}
