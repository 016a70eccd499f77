//! Secret redaction for everything that reaches the audit: replaces API keys, tokens,
//! passwords and private keys in free text with `[REDACTED]`.
//!
//! The hook path compiles no regular expression: anchors are found by one Aho-Corasick pass
//! (built once per process, a few microseconds) and each anchor is confirmed by a small
//! hand-written scanner. Redaction is conservative in what it keeps: it removes the secret
//! value and keeps the surrounding words (`Bearer [REDACTED]`, `TOKEN=[REDACTED]`,
//! `https://user:[REDACTED]@host`), so the audit still says what happened.

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// How an anchor is confirmed and how much is replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    /// A token prefix (`ghp_`): the whole token goes when at least `min` token characters
    /// follow; `upper` requires the rest to be `[A-Z0-9]` (AWS key ids).
    Token {
        min: usize,
        exact: Option<usize>,
        upper: bool,
    },
    /// A JSON Web Token (`eyJ…`): three base64url parts.
    Jwt,
    /// `Bearer <token>`: the token goes.
    Bearer,
    /// A command-line flag that takes a secret (`--password x`, `--token=x`).
    Flag,
    /// `scheme://user:pass@host`: the password goes.
    Url,
    /// `-----BEGIN … PRIVATE KEY-----` … `-----END … PRIVATE KEY-----`: the whole block goes.
    PrivateKey,
}

const ANCHORS: &[(&str, Anchor)] = &[
    (
        "sk-",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "ghp_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "gho_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "ghu_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "ghs_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "ghr_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "github_pat_",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "glpat-",
        Anchor::Token {
            min: 16,
            exact: None,
            upper: false,
        },
    ),
    (
        "xoxb-",
        Anchor::Token {
            min: 10,
            exact: None,
            upper: false,
        },
    ),
    (
        "xoxa-",
        Anchor::Token {
            min: 10,
            exact: None,
            upper: false,
        },
    ),
    (
        "xoxp-",
        Anchor::Token {
            min: 10,
            exact: None,
            upper: false,
        },
    ),
    (
        "xoxs-",
        Anchor::Token {
            min: 10,
            exact: None,
            upper: false,
        },
    ),
    (
        "AIza",
        Anchor::Token {
            min: 30,
            exact: None,
            upper: false,
        },
    ),
    (
        "AKIA",
        Anchor::Token {
            min: 16,
            exact: Some(16),
            upper: true,
        },
    ),
    (
        "ASIA",
        Anchor::Token {
            min: 16,
            exact: Some(16),
            upper: true,
        },
    ),
    ("eyJ", Anchor::Jwt),
    ("bearer ", Anchor::Bearer),
    ("--password", Anchor::Flag),
    ("--passwd", Anchor::Flag),
    ("--token", Anchor::Flag),
    ("--api-key", Anchor::Flag),
    ("--secret", Anchor::Flag),
    ("--client-secret", Anchor::Flag),
    ("://", Anchor::Url),
    ("-----BEGIN ", Anchor::PrivateKey),
];

fn automaton() -> &'static AhoCorasick {
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    AC.get_or_init(|| {
        // A non-contiguous NFA: the cheapest automaton to build. A hook process redacts a
        // few short strings, so building a DFA (the default for a small set) costs more than
        // every search it would speed up.
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::NoncontiguousNFA))
            .build(ANCHORS.iter().map(|(p, _)| p))
            .expect("static anchor set is valid")
    })
}

/// Replaces every secret found in `s` with [`REDACTED`]; borrows when nothing was found.
pub fn redact(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // End of the last private-key block: anchors inside it are already covered (and scanning
    // again from each of them would make a hostile input quadratic).
    let mut key_block_end = 0;
    for m in automaton().find_overlapping_iter(s) {
        let (pattern, anchor) = ANCHORS[m.pattern().as_usize()];
        let matched = &bytes[m.start()..m.end()];
        let span = match anchor {
            Anchor::Token { min, exact, upper } => {
                // Token prefixes are case-sensitive (the automaton is not).
                if matched != pattern.as_bytes() {
                    None
                } else {
                    token_span(bytes, m.start(), m.end(), min, exact, upper)
                }
            }
            Anchor::Jwt => {
                if matched == b"eyJ" {
                    jwt_span(bytes, m.start())
                } else {
                    None
                }
            }
            Anchor::Bearer => value_span(bytes, m.end()),
            Anchor::Flag => flag_span(bytes, m.start(), m.end()),
            Anchor::Url => url_span(bytes, m.start(), m.end()),
            Anchor::PrivateKey if m.start() < key_block_end => None,
            Anchor::PrivateKey => {
                let span = private_key_span(s, m.start(), m.end());
                if let Some((_, end)) = span {
                    key_block_end = end;
                }
                span
            }
        };
        if let Some(span) = span {
            spans.push(span);
        }
    }
    assignment_spans(bytes, &mut spans);
    mysql_spans(s, &mut spans);
    user_password_spans(s, &mut spans);
    if spans.is_empty() {
        return Cow::Borrowed(s);
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (start, end) in spans {
        if end <= at {
            continue;
        }
        if start <= at && at > 0 && out.ends_with(REDACTED) {
            // Touches the previous replacement: one marker for both.
            at = end;
            continue;
        }
        let start = start.max(at);
        out.push_str(&s[at..start]);
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(&s[at..]);
    Cow::Owned(out)
}

/// Redacts every string inside a JSON value; the whole value of a key that names a secret
/// (`password`, `api_key`, `*_token`, …) is replaced.
pub fn redact_json(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(redact(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if secret_name(k.as_bytes()) && !v.is_null() {
                        Value::String(REDACTED.to_string())
                    } else {
                        redact_json(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn token_span(
    bytes: &[u8],
    start: usize,
    prefix_end: usize,
    min: usize,
    exact: Option<usize>,
    upper: bool,
) -> Option<(usize, usize)> {
    if start > 0 && is_token_byte(bytes[start - 1]) {
        return None;
    }
    let accept = |b: u8| {
        if upper {
            b.is_ascii_uppercase() || b.is_ascii_digit()
        } else {
            is_token_byte(b)
        }
    };
    let mut end = prefix_end;
    while end < bytes.len() && accept(bytes[end]) {
        end += 1;
    }
    let n = end - prefix_end;
    if n < min || exact.is_some_and(|e| n != e) {
        return None;
    }
    if upper && end < bytes.len() && is_token_byte(bytes[end]) {
        return None;
    }
    Some((start, end))
}

fn jwt_span(bytes: &[u8], start: usize) -> Option<(usize, usize)> {
    if start > 0 && (is_token_byte(bytes[start - 1]) || bytes[start - 1] == b'.') {
        return None;
    }
    let mut end = start;
    let mut dots = 0;
    let mut part_len = 0;
    while end < bytes.len() {
        let b = bytes[end];
        if is_token_byte(b) {
            part_len += 1;
        } else if b == b'.' && part_len > 0 && dots < 2 {
            dots += 1;
            part_len = 0;
        } else {
            break;
        }
        end += 1;
    }
    (dots == 2 && part_len > 0 && end - start >= 20).then_some((start, end))
}

/// The extent of a secret value starting at `at` (after optional spaces): quoted up to the
/// closing quote, else up to whitespace or a shell separator.
fn value_span(bytes: &[u8], mut at: usize) -> Option<(usize, usize)> {
    while at < bytes.len() && bytes[at] == b' ' {
        at += 1;
    }
    if at >= bytes.len() {
        return None;
    }
    let q = bytes[at];
    if q == b'"' || q == b'\'' {
        let inner = at + 1;
        let mut end = inner;
        while end < bytes.len() && bytes[end] != q {
            if bytes[end] == b'\\' && q == b'"' && end + 1 < bytes.len() {
                end += 1;
            }
            end += 1;
        }
        return (end > inner).then_some((inner, end));
    }
    if bytes[at..].starts_with(REDACTED.as_bytes()) {
        return None;
    }
    if q == b'$' {
        // A variable reference (`TOKEN=$GH_TOKEN`) is not the secret itself.
        return None;
    }
    let mut end = at;
    while end < bytes.len()
        && !bytes[end].is_ascii_whitespace()
        && !matches!(bytes[end], b';' | b'&' | b'|' | b'"' | b'\'' | b'`' | b')')
    {
        end += 1;
    }
    (end > at).then_some((at, end))
}

fn flag_span(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    if start > 0 && !bytes[start - 1].is_ascii_whitespace() && bytes[start - 1] != b'"' {
        return None;
    }
    match bytes.get(end) {
        Some(b'=') => value_span(bytes, end + 1),
        Some(b' ') => {
            let span = value_span(bytes, end)?;
            // `--token --other` has no value.
            (bytes[span.0] != b'-').then_some(span)
        }
        _ => None,
    }
}

fn url_span(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    if start == 0 || !bytes[start - 1].is_ascii_alphanumeric() {
        return None;
    }
    let mut authority_end = end;
    while authority_end < bytes.len()
        && !matches!(
            bytes[authority_end],
            b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>'
        )
        && !bytes[authority_end].is_ascii_whitespace()
    {
        authority_end += 1;
    }
    let at = bytes[end..authority_end].iter().rposition(|&b| b == b'@')? + end;
    let colon = bytes[end..at].iter().position(|&b| b == b':')? + end;
    (at > colon + 1).then_some((colon + 1, at))
}

fn private_key_span(s: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let label_window = &s.as_bytes()[end..s.len().min(end + 48)];
    let line_end = label_window
        .windows(5)
        .position(|w| w == b"-----")
        .map(|i| end + i)?;
    let label = &s[end..line_end];
    if !label.ends_with("PRIVATE KEY") || label.len() > 40 {
        return None;
    }
    let block_end = match s[line_end..].find("-----END ") {
        Some(i) => {
            let end_marker = line_end + i + "-----END ".len();
            match s[end_marker..].find("-----") {
                Some(j) => end_marker + j + 5,
                None => s.len(),
            }
        }
        None => s.len(),
    };
    Some((start, block_end))
}

/// Whether a variable or key name names a secret (`TOKEN`, `GITHUB_TOKEN`, `db_password`,
/// `aws_secret_access_key`, `api-key`).
fn secret_name(name: &[u8]) -> bool {
    if name.is_empty() || name.len() > 80 {
        return false;
    }
    let upper: Vec<u8> = name
        .iter()
        .map(|b| match b {
            b'-' | b'.' => b'_',
            b => b.to_ascii_uppercase(),
        })
        .collect();
    const EXACT: &[&[u8]] = &[
        b"TOKEN",
        b"SECRET",
        b"PASSWORD",
        b"PASSWD",
        b"PASS",
        b"APIKEY",
        b"API_KEY",
        b"ACCESS_KEY",
        b"PRIVATE_KEY",
        b"AUTHORIZATION",
        b"CLIENT_SECRET",
    ];
    const SUFFIXES: &[&[u8]] = &[
        b"_KEY",
        b"_SECRET",
        b"_TOKEN",
        b"PASSWORD",
        b"PASSWD",
        b"_PASS",
        b"_PWD",
        b"_PAT",
        b"_SECRET_ACCESS_KEY",
    ];
    EXACT.contains(&upper.as_slice()) || SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// `NAME=value` where NAME names a secret (covers `export TOKEN=…`, `password=…`).
fn assignment_spans(bytes: &[u8], spans: &mut Vec<(usize, usize)>) {
    for (eq, _) in bytes.iter().enumerate().filter(|(_, &b)| b == b'=') {
        let mut name_start = eq;
        while name_start > 0 && {
            let b = bytes[name_start - 1];
            b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
        } {
            name_start -= 1;
        }
        // `--password=x` is handled as a flag.
        if name_start == eq || bytes[name_start..eq].starts_with(b"-") {
            continue;
        }
        if eq + 1 < bytes.len() && bytes[eq + 1] == b'=' {
            continue;
        }
        if secret_name(&bytes[name_start..eq]) {
            if let Some(span) = value_span(bytes, eq + 1) {
                spans.push(span);
            }
        }
    }
}

/// `mysql -pSECRET` (and mysqldump, mysqladmin, mariadb): the password glued to `-p`.
fn mysql_spans(s: &str, spans: &mut Vec<(usize, usize)>) {
    let lower_has = |needle: &str| {
        s.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    };
    if !(lower_has("mysql") || lower_has("mariadb")) {
        return;
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    while i + 2 < bytes.len() {
        let at_word = i == 0 || bytes[i - 1].is_ascii_whitespace();
        if at_word && bytes[i] == b'-' && bytes[i + 1] == b'p' {
            if let Some(span) = value_span(bytes, i + 2) {
                if span.0 == i + 2 {
                    spans.push(span);
                    i = span.1;
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// `curl -u user:pass` / `--user user:pass` (curl, wget, http clients): the password goes.
fn user_password_spans(s: &str, spans: &mut Vec<(usize, usize)>) {
    let bytes = s.as_bytes();
    for flag in ["-u ", "--user ", "--user=", "--http-user=", "--proxy-user "] {
        let mut from = 0;
        while let Some(i) = s[from..].find(flag).map(|i| from + i) {
            from = i + flag.len();
            if i > 0 && !bytes[i - 1].is_ascii_whitespace() {
                continue;
            }
            let Some((start, end)) = value_span(bytes, i + flag.len()) else {
                continue;
            };
            if let Some(colon) = bytes[start..end].iter().position(|&b| b == b':') {
                if start + colon + 1 < end {
                    spans.push((start + colon + 1, end));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        redact(s).into_owned()
    }

    #[test]
    fn keeps_plain_text_borrowed() {
        assert!(matches!(
            redact("cargo test -p gate-runtime"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            redact("git push origin task-list"),
            Cow::Borrowed(_)
        ));
        assert_eq!(r("echo $TOKEN"), "echo $TOKEN");
        assert_eq!(r("export TOKEN=$GH_TOKEN"), "export TOKEN=$GH_TOKEN");
    }

    #[test]
    fn tokens_and_keys() {
        assert_eq!(
            r("curl -H 'Authorization: Bearer abc.def-123' x"),
            "curl -H 'Authorization: Bearer [REDACTED]' x"
        );
        assert_eq!(
            r("key sk-proj-AAAAbbbbCCCCdddd1234 end"),
            "key [REDACTED] end"
        );
        assert_eq!(r("AKIAIOSFODNN7EXAMPLE"), "[REDACTED]");
        assert_eq!(r("AKIAIOSFODNN7EXAMPLEX"), "AKIAIOSFODNN7EXAMPLEX");
        assert_eq!(
            r("tok=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc"),
            "tok=[REDACTED]"
        );
    }

    #[test]
    fn assignments_flags_urls() {
        assert_eq!(
            r("export GITHUB_TOKEN=abc123 && run"),
            "export GITHUB_TOKEN=[REDACTED] && run"
        );
        assert_eq!(r("password='hunter 2' ok"), "password='[REDACTED]' ok");
        assert_eq!(
            r("tool --password s3cr3t -v"),
            "tool --password [REDACTED] -v"
        );
        assert_eq!(r("tool --token=s3cr3t"), "tool --token=[REDACTED]");
        assert_eq!(
            r("mysql -uroot -ps3cr3t db"),
            "mysql -uroot -p[REDACTED] db"
        );
        assert_eq!(r("ls -p dir"), "ls -p dir");
        assert_eq!(r("mysql -p shop"), "mysql -p shop");
        assert_eq!(r("PGPASSWORD=pw psql"), "PGPASSWORD=[REDACTED] psql");
        assert_eq!(r("MYSQL_PWD=pw mysql"), "MYSQL_PWD=[REDACTED] mysql");
        assert_eq!(
            r("curl -u admin:hunter2 https://x"),
            "curl -u admin:[REDACTED] https://x"
        );
        assert_eq!(r("ps -u root"), "ps -u root");
        assert_eq!(
            r("git clone https://bob:pa55@github.com/x/y"),
            "git clone https://bob:[REDACTED]@github.com/x/y"
        );
        assert_eq!(
            r("git clone https://github.com/x/y@v1"),
            "git clone https://github.com/x/y@v1"
        );
    }

    #[test]
    fn private_key_block() {
        let s = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(r(s), "a\n[REDACTED]\nb");
        assert_eq!(
            r("-----BEGIN CERTIFICATE-----x"),
            "-----BEGIN CERTIFICATE-----x"
        );
    }

    #[test]
    fn never_panics_on_mixed_fragments() {
        let pieces = [
            "é",
            "ghp_",
            "AKIA",
            "eyJ",
            ".",
            "Bearer ",
            "--password",
            "=",
            " ",
            "'",
            "\"",
            "://",
            "u:p",
            "@",
            "-----BEGIN ",
            "RSA PRIVATE KEY-----",
            "-----END ",
            "mysql",
            "-p",
            "TOKEN",
            "_KEY",
            "$",
            "-u ",
            "ü€",
            "x",
        ];
        let mut state = 0x2545_f491_u32;
        for _ in 0..4000 {
            let mut text = String::new();
            for _ in 0..12 {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                text.push_str(pieces[state as usize % pieces.len()]);
            }
            // Slicing at a non-boundary would panic; the output must also be re-scannable.
            let out = redact(&text);
            assert!(
                out.len() <= text.len() + REDACTED.len() * 12,
                "input: {text:?}"
            );
            let _ = redact(&out);
        }
    }

    #[test]
    fn json_keys_naming_secrets() {
        let v = serde_json::json!({"api_key": "abc", "cmd": "export X_SECRET=y", "n": 1});
        assert_eq!(
            redact_json(&v),
            serde_json::json!({"api_key": "[REDACTED]", "cmd": "export X_SECRET=[REDACTED]", "n": 1})
        );
    }
}
