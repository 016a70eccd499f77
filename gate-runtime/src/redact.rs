//! Secret redaction for everything that reaches the audit: replaces API keys, tokens,
//! passwords and private keys in free text with `[REDACTED]`.
//!
//! The hook path compiles no regular expression and builds no automaton: anchors are found
//! by one pass over the bytes that looks each byte up in a table computed at compile time
//! (most bytes start no anchor and cost a load and a compare), and each anchor is confirmed
//! by a small hand-written scanner. Redaction is conservative in what it keeps: it removes
//! the secret value and keeps the surrounding words (`Bearer [REDACTED]`, `TOKEN=[REDACTED]`,
//! `https://user:[REDACTED]@host`), so the audit still says what happened.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};

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
    /// `-u user:pass` / `--user user:pass` (curl, wget, http clients; case-sensitive): the
    /// password goes.
    UserFlag,
    /// `mysql` / `mariadb`: the line may glue a password to `-p` (see [`mysql_spans`]).
    SqlClient,
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
    ("-----BEGIN ", Anchor::PrivateKey),
    ("-u ", Anchor::UserFlag),
    ("--user ", Anchor::UserFlag),
    ("--user=", Anchor::UserFlag),
    ("--http-user=", Anchor::UserFlag),
    ("--proxy-user ", Anchor::UserFlag),
    ("://", Anchor::Url),
    ("mysql", Anchor::SqlClient),
    ("mariadb", Anchor::SqlClient),
];

/// For each byte, the range of [`ANCHORS`] that can start with it (ASCII case folded);
/// empty for a byte no anchor starts with. Anchors with the same first letter must be
/// adjacent in [`ANCHORS`], which the build checks.
const STARTING_WITH: [(u8, u8); 256] = {
    let mut table = [(0u8, 0u8); 256];
    let mut i = 0;
    while i < ANCHORS.len() {
        let first = ANCHORS[i].0.as_bytes()[0].to_ascii_lowercase();
        let mut j = i;
        while j < ANCHORS.len() && ANCHORS[j].0.as_bytes()[0].to_ascii_lowercase() == first {
            j += 1;
        }
        assert!(
            table[first as usize].1 == 0,
            "anchors with the same first letter must be adjacent"
        );
        table[first as usize] = (i as u8, j as u8);
        table[first.to_ascii_uppercase() as usize] = (i as u8, j as u8);
        i = j;
    }
    table
};

/// Bit `(a << 8) | b` is set when some anchor starts with the bytes `a`, `b` (each in either
/// ASCII case): most bytes that start an anchor are not followed by its second byte (`s` in
/// prose, `-` of a plain flag), and this rules them out with one load.
const SECOND_BYTE: [u64; 1024] = {
    let mut bits = [0u64; 1024];
    let mut i = 0;
    while i < ANCHORS.len() {
        let p = ANCHORS[i].0.as_bytes();
        let firsts = [p[0].to_ascii_lowercase(), p[0].to_ascii_uppercase()];
        let seconds = [p[1].to_ascii_lowercase(), p[1].to_ascii_uppercase()];
        let mut f = 0;
        while f < 2 {
            let mut g = 0;
            while g < 2 {
                let bit = ((firsts[f] as usize) << 8) | seconds[g] as usize;
                bits[bit >> 6] |= 1 << (bit & 63);
                g += 1;
            }
            f += 1;
        }
        i += 1;
    }
    bits
};

/// Calls `found(start, end, index)` for every occurrence of every anchor in `bytes`
/// (ASCII case-insensitive, overlapping occurrences included), in order of `start`.
fn for_each_anchor(bytes: &[u8], mut found: impl FnMut(usize, usize, usize)) {
    let mut from = 0;
    while let Some(start) = next_anchor_pair(bytes, from) {
        let (lo, hi) = STARTING_WITH[usize::from(bytes[start])];
        let (lo, hi) = (usize::from(lo), usize::from(hi));
        for (index, (pattern, _)) in ANCHORS[lo..hi].iter().enumerate() {
            let index = lo + index;
            let pattern = pattern.as_bytes();
            let end = start + pattern.len();
            if bytes
                .get(start..end)
                .is_some_and(|text| text.eq_ignore_ascii_case(pattern))
            {
                found(start, end, index);
            }
        }
        from = start + 1;
    }
}

/// The first position at or after `from` whose byte and the next one begin some anchor
/// (every anchor is at least two bytes long; a set pair bit implies the first byte starts
/// one). Kept out of line: inlined into [`redact`]'s loop, the scan carried the callback's
/// state through every byte and cost three times as much per byte.
#[inline(never)]
fn next_anchor_pair(bytes: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = bytes.get(from..)?.split_first()?;
    let mut pair = usize::from(first);
    for (i, &b) in rest.iter().enumerate() {
        pair = ((pair & 0xff) << 8) | usize::from(b);
        if SECOND_BYTE[pair >> 6] & (1 << (pair & 63)) != 0 {
            return Some(from + i);
        }
    }
    None
}

/// Replaces every secret found in `s` with [`REDACTED`]; borrows when nothing was found.
pub fn redact(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // End of the last private-key block: anchors inside it are already covered (and scanning
    // again from each of them would make a hostile input quadratic).
    let mut key_block_end = 0;
    let mut sql_client = false;
    for_each_anchor(bytes, |start, end, index| {
        let (pattern, anchor) = ANCHORS[index];
        let matched = &bytes[start..end];
        let span = match anchor {
            Anchor::Token { min, exact, upper } => {
                // Token prefixes are case-sensitive (the anchor search is not).
                if matched != pattern.as_bytes() {
                    None
                } else {
                    token_span(bytes, start, end, min, exact, upper)
                }
            }
            Anchor::Jwt => {
                if matched == b"eyJ" {
                    jwt_span(bytes, start)
                } else {
                    None
                }
            }
            Anchor::Bearer => value_span(bytes, end),
            Anchor::Flag => flag_span(bytes, start, end),
            Anchor::Url => url_span(bytes, start, end),
            Anchor::PrivateKey if start < key_block_end => None,
            Anchor::PrivateKey => {
                let span = private_key_span(s, start, end);
                if let Some((_, end)) = span {
                    key_block_end = end;
                }
                span
            }
            Anchor::UserFlag if matched == pattern.as_bytes() => {
                user_password_span(bytes, start, end)
            }
            Anchor::UserFlag => None,
            Anchor::SqlClient => {
                sql_client = true;
                None
            }
        };
        if let Some(span) = span {
            spans.push(span);
        }
    });
    assignment_spans(bytes, &mut spans);
    if sql_client {
        mysql_spans(bytes, &mut spans);
    }
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

/// `serde_json::to_string(&redact_json(value))`, written directly: the same text without
/// building the redacted copy of the value first.
pub fn redact_json_to_string(value: &serde_json::Value) -> serde_json::Result<String> {
    serde_json::to_string(&RedactedJson(value))
}

/// Serialises a JSON value as [`redact_json`] of it would serialise.
struct RedactedJson<'a>(&'a serde_json::Value);

impl Serialize for RedactedJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde_json::Value;
        match self.0 {
            Value::String(s) => serializer.serialize_str(&redact(s)),
            Value::Array(items) => serializer.collect_seq(items.iter().map(RedactedJson)),
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    if secret_name(k.as_bytes()) && !v.is_null() {
                        out.serialize_entry(k, REDACTED)?;
                    } else {
                        out.serialize_entry(k, &RedactedJson(v))?;
                    }
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Appends `s` as a JSON string literal, escaped exactly as serde_json's compact writer
/// escapes it (`"`, `\`, and control bytes; `\b \t \n \f \r` short, the rest `\u00xx`).
pub fn push_json_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    /// Per byte: 0 when written as is, `u` for `\u00xx`, else the letter after the `\`.
    const ESCAPE: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut b = 0;
        while b < 0x20 {
            table[b] = b'u';
            b += 1;
        }
        table[0x08] = b'b';
        table[b'\t' as usize] = b't';
        table[b'\n' as usize] = b'n';
        table[0x0c] = b'f';
        table[b'\r' as usize] = b'r';
        table[b'"' as usize] = b'"';
        table[b'\\' as usize] = b'\\';
        table
    };
    out.reserve(s.len() + 2);
    out.push('"');
    /// Whether any byte of `w` is a control byte, `"` or `\` (may also say so for a byte
    /// after one that is: the bytes are then looked at one by one).
    fn any_escape(w: u64) -> bool {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
        let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        (below_space | zero_byte(w ^ (ONES * u64::from(b'"'))) | zero_byte(w ^ (ONES * 0x5c))) != 0
    }
    let bytes = s.as_bytes();
    let mut at = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none of them needs escaping.
        if let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if !any_escape(u64::from_ne_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let (pos, b) = (i, bytes[i]);
        i += 1;
        let escape = ESCAPE[usize::from(b)];
        if escape == 0 {
            continue;
        }
        // Escaped bytes are ASCII, so `at..pos` lies on character boundaries.
        out.push_str(&s[at..pos]);
        out.push('\\');
        out.push(char::from(escape));
        if escape == b'u' {
            out.push_str("00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        at = i;
    }
    out.push_str(&s[at..]);
    out.push('"');
}

/// Whether [`redact`] returns `s` unchanged without looking: only `[a-z0-9_]`, shorter than
/// 20 bytes. Every anchor needs a byte outside that set (`-`, `:`, `=`, a space, an upper-case
/// letter) except the `gh?_` and `github_pat_` tokens, which need 20 bytes or more; without
/// `-` the MySQL `-p` rule and without `=` the `NAME=value` rule find nothing
/// (`tests::plain_names_are_never_redacted`). Spec identifiers are nearly always plain.
fn plain(s: &str) -> bool {
    s.len() < 20
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// One value of a JSON object written by [`push_object`].
#[derive(Clone, Copy)]
pub enum Field<'a> {
    /// Text that can carry user data (targets, reasons, payload fields): redacted.
    Text(&'a str),
    /// A name from the spec or from gate's code (state, signal, rule, kind, note kind): written
    /// as [`Field::Text`] would write it, without scanning it when it is plain (`[a-z0-9_]`,
    /// shorter than 20 bytes: text redaction never changes).
    Name(&'a str),
    Uint(u64),
    Bool(bool),
    Null,
    /// An object or array written by the closure, which redacts as this module does.
    Nested(&'a dyn Fn(&mut String)),
}

/// Whether `serde_json::Map` keeps insertion order (its `preserve_order` feature, which a
/// dependent crate may turn on) or sorts its keys; asked once per process.
fn map_keeps_order() -> bool {
    static KEEPS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KEEPS.get_or_init(|| {
        let mut map = serde_json::Map::new();
        map.insert("b".to_string(), serde_json::Value::Null);
        map.insert("a".to_string(), serde_json::Value::Null);
        map.keys().next().is_some_and(|k| k == "b")
    })
}

/// Appends the JSON object of `fields` (given in insertion order, keys distinct) exactly as
/// [`redact_json_to_string`] writes the `serde_json::Value` object built from them by
/// inserting the fields in that order: the same key order (insertion or sorted, as
/// `serde_json::Map` orders), every string redacted, and the value of a key that names a
/// secret replaced. `fields` may be reordered.
pub fn push_object(out: &mut String, fields: &mut [(&str, Field<'_>)]) {
    push_object_in(out, fields, map_keeps_order());
}

fn push_object_in(out: &mut String, fields: &mut [(&str, Field<'_>)], keeps_order: bool) {
    if !keeps_order {
        fields.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_str(out, key);
        out.push(':');
        if !matches!(value, Field::Null) && secret_name(key.as_bytes()) {
            push_json_str(out, REDACTED);
        } else {
            push_field(out, value);
        }
    }
    out.push('}');
}

/// Appends one value as [`push_object`] writes it.
pub fn push_field(out: &mut String, value: &Field<'_>) {
    match *value {
        Field::Text(s) => push_json_str(out, &redact(s)),
        Field::Name(s) if plain(s) => push_json_str(out, s),
        Field::Name(s) => push_json_str(out, &redact(s)),
        Field::Uint(n) => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
        Field::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Field::Null => out.push_str("null"),
        Field::Nested(write) => write(out),
    }
}

/// Appends [`redact_json_to_string`] of `value`.
pub fn push_redacted_json(out: &mut String, value: &serde_json::Value) {
    // Writing a `Value` to memory cannot fail (its map keys are strings).
    if let Ok(text) = redact_json_to_string(value) {
        out.push_str(&text);
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

/// Names (upper-cased, `-` and `.` as `_`) that name a secret.
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
/// Endings of names that name a secret.
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

/// The letters every name in [`EXACT`] and [`SUFFIXES`] ends with ([`secret_name`] rejects a
/// name ending otherwise before comparing); the build checks it.
const LAST_LETTERS: &[u8] = b"NTDSY";

const _: () = {
    let lists: [&[&[u8]]; 2] = [EXACT, SUFFIXES];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let name = lists[l][i];
            let last = name[name.len() - 1];
            let mut found = false;
            let mut j = 0;
            while j < LAST_LETTERS.len() {
                found |= LAST_LETTERS[j] == last;
                j += 1;
            }
            assert!(
                found,
                "a secret name ends in a letter missing from LAST_LETTERS"
            );
            i += 1;
        }
        l += 1;
    }
};

/// Whether a variable or key name names a secret (`TOKEN`, `GITHUB_TOKEN`, `db_password`,
/// `aws_secret_access_key`, `api-key`).
fn secret_name(name: &[u8]) -> bool {
    if name.is_empty() || name.len() > 80 {
        return false;
    }
    // Every listed name ends in one of these letters; most keys and variables do not.
    if !LAST_LETTERS.contains(&name[name.len() - 1].to_ascii_uppercase()) {
        return false;
    }
    let mut buf = [0u8; 80];
    let upper = &mut buf[..name.len()];
    for (u, &b) in upper.iter_mut().zip(name) {
        *u = match b {
            b'-' | b'.' => b'_',
            b => b.to_ascii_uppercase(),
        };
    }
    let upper = &*upper;
    EXACT.contains(&upper) || SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// `NAME=value` where NAME names a secret (covers `export TOKEN=…`, `password=…`).
fn assignment_spans(bytes: &[u8], spans: &mut Vec<(usize, usize)>) {
    for eq in memchr::memchr_iter(b'=', bytes) {
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
/// Called only when the text names a MySQL client ([`Anchor::SqlClient`]).
fn mysql_spans(bytes: &[u8], spans: &mut Vec<(usize, usize)>) {
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

/// `-u user:pass` at `start..end` (the flag with its separator): the password goes.
fn user_password_span(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    if start > 0 && !bytes[start - 1].is_ascii_whitespace() {
        return None;
    }
    let (value_start, value_end) = value_span(bytes, end)?;
    let colon = bytes[value_start..value_end]
        .iter()
        .position(|&b| b == b':')?;
    (value_start + colon + 1 < value_end).then_some((value_start + colon + 1, value_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn json_strings_are_escaped_as_serde_json_escapes_them(
            s in "\\PC*|[\\x00-\\x7f]*|([a-zé]{0,11}[\\x00-\\x1f\"\\\\\\x7f]?){0,24}",
        ) {
            let mut out = String::new();
            push_json_str(&mut out, &s);
            proptest::prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }

        #[test]
        fn plain_names_are_never_redacted(s in "[a-z0-9_]{0,19}") {
            proptest::prop_assert!(plain(&s));
            proptest::prop_assert!(matches!(redact(&s), Cow::Borrowed(b) if b == s));
        }

        #[test]
        fn objects_are_written_as_their_redacted_values(
            keys in proptest::collection::vec("[a-z_]{1,12}|api_key|token|password", 0..6),
            texts in proptest::collection::vec(
                "[ -~]{0,24}( ghp_[A-Za-z0-9]{20}| --token [a-z0-9]{8}| TOKEN=x[a-z]{4}| -u bob:pw)?[ -~\\n]{0,8}",
                6,
            ),
            names in proptest::collection::vec("[a-z0-9_]{0,24}|mysql -pX|sk-[a-z]{20}", 6),
            n in 0u64..100_000,
        ) {
            use serde_json::Value;
            let mut seen = std::collections::HashSet::new();
            let keys: Vec<&str> = keys.iter().map(String::as_str).filter(|k| seen.insert(*k)).collect();
            let nested = |out: &mut String| {
                push_object(out, &mut [("text", Field::Text(&texts[5])), ("label", Field::Name(&names[5]))]);
            };
            let mut fields = Vec::new();
            let mut map = serde_json::Map::new();
            for (i, k) in keys.iter().enumerate() {
                let (field, value) = match i % 6 {
                    0 => (Field::Text(&texts[i]), Value::from(texts[i].as_str())),
                    1 => (Field::Name(&names[i]), Value::from(names[i].as_str())),
                    2 => (Field::Uint(n), Value::from(n)),
                    3 => (Field::Bool(n % 2 == 0), Value::from(n % 2 == 0)),
                    4 => (Field::Null, Value::Null),
                    _ => (
                        Field::Nested(&nested),
                        serde_json::json!({"text": texts[5], "label": names[5]}),
                    ),
                };
                fields.push((*k, field));
                map.insert(k.to_string(), value);
            }
            let mut out = String::new();
            push_object(&mut out, &mut fields);
            let want = redact_json_to_string(&Value::Object(map)).unwrap();
            proptest::prop_assert_eq!(out, want);
        }
    }

    /// The probe agrees with how `json!` objects serialise in this build (the workspace
    /// builds with and without serde_json's `preserve_order`; both are tested).
    #[test]
    fn map_order_probe_matches_serde_json() {
        let text = serde_json::json!({"b": 1, "a": 2}).to_string();
        assert_eq!(map_keeps_order(), text == r#"{"b":1,"a":2}"#, "{text}");
        println!(
            "serde_json::Map keeps insertion order: {}",
            map_keeps_order()
        );
    }

    #[test]
    fn objects_keep_insertion_order_when_the_map_does() {
        let mut out = String::new();
        let nested = |out: &mut String| push_field(out, &Field::Name("Idle"));
        let mut fields = [
            ("note", Field::Name("steer")),
            ("detail", Field::Nested(&nested)),
            ("api_key", Field::Text("k")),
            ("secret", Field::Null),
            ("n", Field::Uint(7)),
        ];
        push_object_in(&mut out, &mut fields, true);
        assert_eq!(
            out,
            r#"{"note":"steer","detail":"Idle","api_key":"[REDACTED]","secret":null,"n":7}"#
        );
        out.clear();
        push_object_in(&mut out, &mut fields, false);
        assert_eq!(
            out,
            r#"{"api_key":"[REDACTED]","detail":"Idle","n":7,"note":"steer","secret":null}"#
        );
    }

    #[test]
    fn names_that_look_like_secrets_are_redacted() {
        for name in [
            "ghp_abcdefghijklmnop1234",
            "sk-abcdefghijklmnopqrst",
            "a=b TOKEN=xyz",
        ] {
            let mut out = String::new();
            push_field(&mut out, &Field::Name(name));
            assert_eq!(out, serde_json::to_string(&redact(name)).unwrap());
            assert!(out.contains(REDACTED), "{name}");
        }
    }

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

    /// Random text built from anchor fragments in mixed case, near-misses and other bytes.
    fn fragment_texts(n: usize, seed: u32) -> Vec<String> {
        let mut pieces: Vec<String> = ANCHORS.iter().map(|(p, _)| p.to_string()).collect();
        pieces.extend(ANCHORS.iter().map(|(p, _)| p.to_ascii_uppercase()));
        pieces.extend(ANCHORS.iter().map(|(p, _)| p[..p.len() - 1].to_string()));
        // `|`-separated, the first one empty.
        let extras = "| |-|--|:|/|=|é|ü€|x|A|ghp_|abcdefghijklmnop|ABCDEFGHIJKLMNOP|\
                      eyJhbGciOi.eyJzdWIi.sig|u:p@h|'|\"|\n|RSA PRIVATE KEY-----|-----END |\
                      TOKEN=|$X|-p|sEcReT";
        pieces.extend(extras.split('|').map(str::to_string));
        let mut state = seed;
        (0..n)
            .map(|_| {
                let mut text = String::new();
                for _ in 0..16 {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    text.push_str(&pieces[state as usize % pieces.len()]);
                }
                text
            })
            .collect()
    }

    /// The table-driven anchor search finds exactly what an Aho-Corasick automaton over the
    /// same anchors (ASCII case-insensitive, overlapping) finds.
    #[test]
    fn anchor_search_equals_aho_corasick() {
        use aho_corasick::{AhoCorasickBuilder, MatchKind};
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(ANCHORS.iter().map(|(p, _)| p))
            .unwrap();
        let mut total = 0;
        for text in fragment_texts(3000, 0x9e37_79b9) {
            let mut expected: Vec<(usize, usize, usize)> = ac
                .find_overlapping_iter(&text)
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            expected.sort_unstable();
            let mut found = Vec::new();
            for_each_anchor(text.as_bytes(), |start, end, index| {
                found.push((start, end, index))
            });
            assert!(found.is_sorted(), "not in order of start: {text:?}");
            assert_eq!(found, expected, "text: {text:?}");
            total += found.len();
        }
        assert!(total > 10_000, "the texts must contain anchors: {total}");
    }

    #[test]
    fn every_anchor_is_found_in_any_case() {
        for (i, (pattern, _)) in ANCHORS.iter().enumerate() {
            for text in [
                format!("x {pattern} y"),
                format!("x {} y", pattern.to_ascii_uppercase()),
            ] {
                let mut found = Vec::new();
                for_each_anchor(text.as_bytes(), |start, end, index| {
                    found.push((start, end, index))
                });
                assert!(
                    found.contains(&(2, 2 + pattern.len(), i)),
                    "{pattern}: {found:?}"
                );
            }
        }
    }

    #[test]
    fn user_flags_are_case_sensitive_and_mysql_needs_a_client() {
        assert_eq!(r("curl -U bob:pw x"), "curl -U bob:pw x");
        assert_eq!(r("curl --user=bob:pw x"), "curl --user=bob:[REDACTED] x");
        assert_eq!(r("x -u a:b -u c:d"), "x -u a:[REDACTED] -u c:[REDACTED]");
        assert_eq!(r("MySQL -ppw db"), "MySQL -p[REDACTED] db");
        assert_eq!(r("psql -ppw db"), "psql -ppw db");
    }

    #[test]
    fn redacted_json_text_equals_redact_json() {
        use serde_json::{json, Value};
        let texts = fragment_texts(400, 0x2545_f491);
        for (i, chunk) in texts.chunks(4).enumerate() {
            let v = json!({
                "cmd": chunk[0],
                "api_key": chunk[1],
                "GH_TOKEN": null,
                "nested": [chunk[2], {"password": [1, 2], "x": chunk[3], "n": i}, 1.5, true],
                chunk[3].clone(): chunk[0],
                "empty": {},
                "list": [],
            });
            let expected = serde_json::to_string(&redact_json(&v)).unwrap();
            assert_eq!(redact_json_to_string(&v).unwrap(), expected);
            let s = Value::String(chunk[1].clone());
            assert_eq!(
                redact_json_to_string(&s).unwrap(),
                serde_json::to_string(&redact_json(&s)).unwrap()
            );
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
