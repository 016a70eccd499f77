//! Literals that code decodes before it uses them (`base64.b64decode("cm0g…")`,
//! `Buffer.from("…", "hex")`, `Base64.decode64("…")`, `codecs.decode("…", "rot13")`): each
//! call of a decoder on a literal is folded into the literal it decodes to, so what runs
//! it (`os.system(…)`, `execSync(…)`) is read as the decoded text, as `echo … | base64 -d | sh`
//! is on a shell line. The decoders are data: a name, and the scheme it decodes.

use super::scan::Tok;

/// How a decoder's argument is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    Base64,
    Base32,
    Hex,
    Rot13,
    /// Named by the call's second literal (`Buffer.from(s, "base64")`,
    /// `codecs.decode(s, "hex")`); anything else leaves the call alone.
    Named,
}

/// Decoder calls by their last name, in every language the analyser reads.
const DECODERS: &[(&str, Scheme)] = &[
    // python: base64, binascii, bytes, codecs.
    ("b64decode", Scheme::Base64),
    ("standard_b64decode", Scheme::Base64),
    ("urlsafe_b64decode", Scheme::Base64),
    ("decodebytes", Scheme::Base64),
    ("decodestring", Scheme::Base64),
    ("a2b_base64", Scheme::Base64),
    ("b32decode", Scheme::Base32),
    ("b16decode", Scheme::Hex),
    ("unhexlify", Scheme::Hex),
    ("a2b_hex", Scheme::Hex),
    ("fromhex", Scheme::Hex),
    // JavaScript.
    ("atob", Scheme::Base64),
    ("from", Scheme::Named),
    // ruby's Base64, perl's MIME::Base64, php.
    ("decode64", Scheme::Base64),
    ("strict_decode64", Scheme::Base64),
    ("urlsafe_decode64", Scheme::Base64),
    ("decode_base64", Scheme::Base64),
    ("base64_decode", Scheme::Base64),
    ("hex2bin", Scheme::Hex),
    ("str_rot13", Scheme::Rot13),
    ("decode", Scheme::Named),
];

/// Encodings a [`Scheme::Named`] call may name.
const NAMED: &[(&str, Scheme)] = &[
    ("base64", Scheme::Base64),
    ("base64url", Scheme::Base64),
    ("hex", Scheme::Hex),
    ("rot13", Scheme::Rot13),
    ("rot_13", Scheme::Rot13),
    ("rot-13", Scheme::Rot13),
];

/// Methods that turn decoded bytes into text, called on a decoder's result
/// (`b64decode(…).decode()`, `Buffer.from(…).toString()`): folded away with it.
const TO_TEXT: &[&str] = &["decode", "toString", "force_encoding"];

fn run(scheme: Scheme, text: &str) -> Option<String> {
    let decoded = match scheme {
        Scheme::Base64 => crate::effects::decode::base64(text)?,
        Scheme::Base32 => crate::effects::decode::base32(text)?,
        Scheme::Hex => crate::effects::decode::hex(text)?,
        Scheme::Rot13 => text.chars().map(rot13).collect(),
        Scheme::Named => return None,
    };
    // Binary is no code to read: leave the call as it is.
    (!decoded
        .chars()
        .any(|c| c.is_control() && !c.is_whitespace()))
    .then_some(decoded)
}

fn rot13(c: char) -> char {
    match c {
        'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
        'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
        _ => c,
    }
}

/// The decoded literal of a decoder call whose name is at `k`, and the index just past
/// the call (`)`); `None` when it is no decoder call on a literal.
fn call_at(toks: &[Tok<'_>], k: usize) -> Option<(String, usize)> {
    let Tok::Ident(name) = &toks[k] else {
        return None;
    };
    let (_, mut scheme) = DECODERS.iter().find(|(n, _)| n == name)?;
    if toks.get(k + 1) != Some(&Tok::P(b'(')) {
        return None;
    }
    let Some(Tok::Str(text)) = toks.get(k + 2) else {
        return None;
    };
    let mut end = k + 3;
    if toks.get(end) == Some(&Tok::P(b',')) {
        if let Some(Tok::Str(named)) = toks.get(end + 1) {
            let lower = named.to_ascii_lowercase();
            if scheme == Scheme::Named {
                scheme = NAMED.iter().find(|(n, _)| *n == lower)?.1;
            }
            end += 2;
        }
    }
    if toks.get(end) != Some(&Tok::P(b')')) {
        return None;
    }
    Some((run(scheme, text)?, end + 1))
}

/// `toks` with every decoder call on a literal replaced by the decoded literal: the call's
/// qualifier (`base64.`, `Buffer.`) and a text conversion after it (`.decode("utf-8")`)
/// go with it.
pub(crate) fn fold(toks: Vec<Tok<'_>>) -> Vec<Tok<'_>> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Ident(n) if DECODERS.iter().any(|(d, _)| d == n)))
    {
        return toks;
    }
    let mut out: Vec<Tok<'_>> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let Some((decoded, mut next)) = call_at(&toks, k) else {
            out.push(toks[k].clone());
            k += 1;
            continue;
        };
        // The qualifier already copied: `a.b.` before the name.
        while out.len() >= 2
            && out[out.len() - 1] == Tok::P(b'.')
            && matches!(out[out.len() - 2], Tok::Ident(_))
        {
            out.truncate(out.len() - 2);
        }
        // `.decode()`, `.decode("utf-8")`, `.toString()` after the call.
        if toks.get(next) == Some(&Tok::P(b'.')) {
            if let Some(Tok::Ident(m)) = toks.get(next + 1) {
                if TO_TEXT.contains(m) && toks.get(next + 2) == Some(&Tok::P(b'(')) {
                    let close = toks[next + 2..]
                        .iter()
                        .position(|t| *t == Tok::P(b')'))
                        .map(|p| next + 2 + p);
                    if let Some(close) = close.filter(|c| c - next <= 4) {
                        next = close + 1;
                    }
                }
            }
        }
        out.push(Tok::Str(decoded));
        k = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::scan::{tokens, Lang};
    use super::*;

    fn folded(code: &str, lang: Lang) -> Vec<String> {
        fold(tokens(code, lang))
            .into_iter()
            .filter_map(|t| match t {
                Tok::Str(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn decoder_calls_on_literals_become_what_they_decode() {
        let rm = "rm -rf ~".to_string();
        for (code, lang) in [
            ("os.system(base64.b64decode('cm0gLXJmIH4='))", Lang::Python),
            (
                "os.system(b64decode(b'cm0gLXJmIH4=').decode())",
                Lang::Python,
            ),
            (
                "os.system(base64.b64decode('cm0gLXJmIH4=').decode('utf-8'))",
                Lang::Python,
            ),
            (
                "os.system(bytes.fromhex('726d202d7266207e').decode())",
                Lang::Python,
            ),
            (
                "os.system(binascii.unhexlify('726d202d7266207e'))",
                Lang::Python,
            ),
            (
                "os.system(codecs.decode('ez -es ~', 'rot13'))",
                Lang::Python,
            ),
            ("execSync(atob('cm0gLXJmIH4='))", Lang::Js),
            (
                "execSync(Buffer.from('cm0gLXJmIH4=', 'base64').toString())",
                Lang::Js,
            ),
            (
                "execSync(Buffer.from('726d202d7266207e', 'hex').toString('utf8'))",
                Lang::Js,
            ),
            ("system(Base64.decode64('cm0gLXJmIH4='))", Lang::Ruby),
            ("system(decode_base64('cm0gLXJmIH4='))", Lang::Perl),
            ("system(base64_decode('cm0gLXJmIH4='));", Lang::Php),
        ] {
            assert!(
                folded(code, lang).contains(&rm),
                "{code}: {:?}",
                folded(code, lang)
            );
        }
        // Not decoders, or not on a literal, or binary: left alone.
        for (code, lang) in [
            ("print(data.decode('utf-8'))", Lang::Python),
            ("os.system(base64.b64decode(x))", Lang::Python),
            ("Array.from('abc')", Lang::Js),
            ("base64.b64decode('AAEC')", Lang::Python),
        ] {
            assert!(!folded(code, lang).contains(&rm), "{code}");
            assert!(
                !folded(code, lang).iter().any(|s| s.contains('\u{1}')),
                "{code}"
            );
        }
    }
}
