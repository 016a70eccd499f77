//! Programs that turn text the line shows into other text: the decoders whose output, piped
//! or substituted into a shell, is the code that runs (`echo cm0g… | base64 -d | sh`,
//! `xxd -r -p <<< 726d… | bash`, `rev <<< '~ fr- mr' | sh`, `tr a-z n-za-m`), and the
//! escapes `printf` and `echo -e` make real.
//!
//! Each decoder is a row of [`DECODERS`]: the program, whether its arguments make it decode,
//! and the decoding. A decoder that cannot decode its input gives nothing (the caller keeps
//! its `opaque`).

use std::borrow::Cow;

type Args<'c, 'a> = &'c [Cow<'a, str>];

/// One decoder: its program names, whether these arguments decode, and the decoding.
struct Decoder {
    programs: &'static [&'static str],
    decodes: fn(Args<'_, '_>) -> bool,
    decode: fn(&str, Args<'_, '_>) -> Option<String>,
}

/// Every decoder, with what it reads.
///
/// - `base64 -d` / `--decode`, `openssl base64 -d`, `openssl enc -d -base64`: base64.
/// - `base32 -d`: base32 (RFC 4648).
/// - `xxd -r -p`, `xxd -rp`: plain hex.
/// - `rev`: each line reversed.
/// - `tr SET1 SET2` (ranges like `a-z`, `n-za-m`: ROT13 and any other substitution) and
///   `tr -d SET`.
const DECODERS: &[Decoder] = &[
    Decoder {
        programs: &["base64", "gbase64"],
        decodes: |a| has_any(a, &["-d", "-D", "--decode"]),
        decode: |t, _| base64(t),
    },
    Decoder {
        programs: &["openssl"],
        decodes: |a| {
            (has_any(a, &["base64"]) || has_any(a, &["-base64", "-a"])) && has_any(a, &["-d"])
        },
        decode: |t, _| base64(t),
    },
    Decoder {
        programs: &["base32", "gbase32"],
        decodes: |a| has_any(a, &["-d", "--decode"]),
        decode: |t, _| base32(t),
    },
    Decoder {
        programs: &["xxd"],
        decodes: |a| {
            has_any(a, &["-rp", "-pr"])
                || has_any(a, &["-r"]) && has_any(a, &["-p", "-ps", "-plain"])
        },
        decode: |t, _| hex(t),
    },
    Decoder {
        programs: &["rev"],
        decodes: |a| a.is_empty(),
        decode: |t, _| {
            Some(
                t.lines()
                    .map(|l| l.chars().rev().collect::<String>() + "\n")
                    .collect(),
            )
        },
    },
    Decoder {
        programs: &["tr"],
        decodes: |a| {
            a.iter()
                .all(|w| !w.starts_with('-') || matches!(&**w, "-d"))
        },
        decode: tr,
    },
];

/// Whether `program` is one a decoder runs (a cheap test before its input is gathered).
pub(crate) fn is_decoder(program: &str) -> bool {
    DECODERS.iter().any(|d| d.programs.contains(&program))
}

fn has_any(args: Args<'_, '_>, names: &[&str]) -> bool {
    args.iter().any(|a| names.contains(&&**a))
}

/// What `program` with `args` prints when given `input`, when it is a decoder.
pub(crate) fn decode(program: &str, args: Args<'_, '_>, input: &str) -> Option<String> {
    let d = DECODERS
        .iter()
        .find(|d| d.programs.contains(&program) && (d.decodes)(args))?;
    (d.decode)(input, args)
}

pub(crate) fn base64(text: &str) -> Option<String> {
    use base64::Engine as _;
    let clean: String = text.split_whitespace().collect();
    let engine = base64::engine::general_purpose::STANDARD;
    let decoded = engine.decode(clean.as_bytes()).or_else(|_| {
        base64::engine::general_purpose::STANDARD_NO_PAD.decode(clean.trim_end_matches('='))
    });
    decoded
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

pub(crate) fn base32(text: &str) -> Option<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bits: u64 = 0;
    let mut count = 0;
    let mut bytes = Vec::new();
    for b in text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
    {
        let v = ALPHABET.iter().position(|a| *a == b.to_ascii_uppercase())? as u64;
        bits = (bits << 5 | v) & 0xFFFF;
        count += 5;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

pub(crate) fn hex(text: &str) -> Option<String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| (b as char).to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Vec<u8> = digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A `tr` set with its ranges expanded (`a-z`, `n-za-m`), escapes made real.
fn tr_set(set: &str) -> Vec<char> {
    let chars: Vec<char> = unescape(set).chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() && out.len() < 4096 {
        // A range within one 256-character block (`a-z`, `\x00-\xff`); a wider one is
        // taken literally, so a line cannot make the reader build a huge set.
        if k + 2 < chars.len()
            && chars[k + 1] == '-'
            && chars[k] <= chars[k + 2]
            && (chars[k + 2] as u32) - (chars[k] as u32) < 256
        {
            out.extend(chars[k]..=chars[k + 2]);
            k += 3;
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    out
}

fn tr(text: &str, args: Args<'_, '_>) -> Option<String> {
    let sets: Vec<&str> = args.iter().map(|a| &**a).filter(|a| *a != "-d").collect();
    if has_any(args, &["-d"]) {
        let gone = tr_set(sets.first()?);
        return Some(text.chars().filter(|c| !gone.contains(c)).collect());
    }
    let [from, to] = sets[..] else {
        return None;
    };
    let (from, to) = (tr_set(from), tr_set(to));
    let last = *to.last()?;
    Some(
        text.chars()
            .map(|c| match from.iter().position(|f| *f == c) {
                Some(i) => to.get(i).copied().unwrap_or(last),
                None => c,
            })
            .collect(),
    )
}

/// The escapes `printf` and `echo -e` make real: `\n`, `\t`, `\\`, `\xHH`, `\NNN` (octal,
/// with or without a leading `0`).
pub(crate) fn unescape(w: &str) -> String {
    if !w.contains('\\') {
        return w.to_string();
    }
    let b = w.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'\\' || k + 1 == b.len() {
            out.push(b[k]);
            k += 1;
            continue;
        }
        let c = b[k + 1];
        k += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let n = b[k..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .count();
                match u8::from_str_radix(&w[k..k + n], 16) {
                    Ok(v) if n > 0 => out.push(v),
                    _ => out.extend_from_slice(b"\\x"),
                }
                k += n;
            }
            b'0'..=b'7' => {
                let start = k - 1;
                let n = b[start..]
                    .iter()
                    .take(4)
                    .take_while(|d| matches!(d, b'0'..=b'7'))
                    .count();
                let digits = if b[start] == b'0' && n == 4 {
                    &w[start + 1..start + 4]
                } else {
                    &w[start..start + n.min(3)]
                };
                k = start
                    + if b[start] == b'0' && n == 4 {
                        4
                    } else {
                        n.min(3)
                    };
                out.push(u8::from_str_radix(digits, 8).unwrap_or(b'?'));
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&'static str]) -> Vec<Cow<'static, str>> {
        s.iter().map(|w| Cow::Borrowed(*w)).collect()
    }

    #[test]
    fn each_decoder_decodes() {
        assert_eq!(
            decode("base64", &words(&["-d"]), "cm0gLXJmIH4=").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("openssl", &words(&["base64", "-d"]), "cm0gLXJmIH4=").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("xxd", &words(&["-r", "-p"]), "726d202d7266207e").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("base32", &words(&["-d"]), "OJWSALLSMYQH4===").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("xxd", &words(&["-rp"]), "72 6d 20 2d 72 66 20 7e\n").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("rev", &[], "~ fr- mr\n").as_deref(),
            Some("rm -rf ~\n")
        );
        assert_eq!(
            decode("tr", &words(&["a-z", "n-za-m"]), "ez -es ~").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("tr", &words(&["A-Za-z", "N-ZA-Mn-za-m"]), "ez -es ~").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode("tr", &words(&["-d", "#"]), "r#m -r#f ~").as_deref(),
            Some("rm -rf ~")
        );
        // Not decoding: encoding, a hexdump, no decoder.
        assert_eq!(decode("base64", &[], "rm"), None);
        assert_eq!(decode("xxd", &words(&["-p"]), "rm"), None);
        assert_eq!(decode("cat", &[], "rm"), None);
        assert_eq!(decode("xxd", &words(&["-r", "-p"]), "zz"), None);
    }

    #[test]
    fn printf_escapes() {
        assert_eq!(unescape("\\x72\\x6d -rf ~"), "rm -rf ~");
        assert_eq!(unescape("\\162\\155 -rf ~"), "rm -rf ~");
        assert_eq!(unescape("\\0162\\0155"), "rm");
        assert_eq!(unescape("a\\nb\\tc\\\\"), "a\nb\tc\\");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("\\q\\"), "\\q\\");
    }
}
