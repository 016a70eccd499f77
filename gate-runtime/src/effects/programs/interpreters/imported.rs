//! Modules code gets by an import call on a literal (`__import__('os')`,
//! `importlib.import_module("subprocess")`, `require('child_process')`) stand for the module
//! by its name: `__import__('os').system(…)` is `os.system(…)`, so the call tables, the
//! decoders ([`super::decoded`]) and the path literals (`__import__("os").path.expanduser`)
//! read it as written plainly. The modules are those the call tables qualify with; an
//! import of any other name is left as the call it is.

use super::scan::Tok;

/// Calls that return the module named by their literal argument.
const IMPORTERS: &[&str] = &["__import__", "import_module", "require"];

/// The modules the call tables and the path builders name, by their import name.
const MODULES: &[&str] = &[
    "os",
    "subprocess",
    "shutil",
    "pathlib",
    "base64",
    "binascii",
    "codecs",
    "tarfile",
    "zipfile",
    "requests",
    "httpx",
    "urllib",
    "runpy",
    "pty",
    "io",
    "socket",
    "sqlite3",
    "child_process",
    "fs",
    "path",
    "os.path",
    "vm",
    "http",
    "https",
    "net",
];

/// `toks` with each import call on a literal naming one of [`MODULES`] replaced by the
/// module's name (with `importlib.` before `import_module` dropped too).
pub(crate) fn fold(toks: Vec<Tok<'_>>) -> Vec<Tok<'_>> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Ident(n) if IMPORTERS.contains(n)))
    {
        return toks;
    }
    let mut out: Vec<Tok<'_>> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let module = match (&toks[k], toks.get(k + 1), toks.get(k + 2), toks.get(k + 3)) {
            (Tok::Ident(f), Some(Tok::P(b'(')), Some(Tok::Str(m)), Some(Tok::P(b')')))
                if IMPORTERS.contains(f) =>
            {
                let m = m.strip_prefix("node:").unwrap_or(m);
                MODULES.iter().find(|n| **n == m)
            }
            _ => None,
        };
        let Some(module) = module else {
            out.push(toks[k].clone());
            k += 1;
            continue;
        };
        if toks[k] == Tok::Ident("import_module")
            && out.len() >= 2
            && out[out.len() - 1] == Tok::P(b'.')
            && out[out.len() - 2] == Tok::Ident("importlib")
        {
            out.truncate(out.len() - 2);
        }
        // `os.path` is two names.
        for (j, part) in module.split('.').enumerate() {
            if j > 0 {
                out.push(Tok::P(b'.'));
            }
            out.push(Tok::Ident(part));
        }
        k += 4;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::scan::{tokens, Lang};
    use super::*;

    fn names(code: &str, lang: Lang) -> Vec<String> {
        fold(tokens(code, lang))
            .into_iter()
            .map(|t| match t {
                Tok::Ident(n) => n.to_string(),
                Tok::Str(s) => format!("{s:?}"),
                Tok::P(c) => (c as char).to_string(),
                _ => "_".to_string(),
            })
            .collect()
    }

    #[test]
    fn an_import_call_on_a_literal_is_the_module() {
        for (code, lang, plain) in [
            (
                "__import__('os').system('x')",
                Lang::Python,
                "os.system(\"x\")",
            ),
            (
                "importlib.import_module(\"subprocess\").run('x')",
                Lang::Python,
                "subprocess.run(\"x\")",
            ),
            (
                "__import__('os.path').expanduser('~')",
                Lang::Python,
                "os.path.expanduser(\"~\")",
            ),
            (
                "require('child_process').execSync('x')",
                Lang::Js,
                "child_process.execSync(\"x\")",
            ),
            (
                "require(\"node:fs\").rmSync('x')",
                Lang::Js,
                "fs.rmSync(\"x\")",
            ),
        ] {
            assert_eq!(names(code, lang).concat(), plain, "{code}");
        }
        // A computed name, or a module no table names, stays the call it is.
        for (code, lang) in [
            ("__import__(name).system('x')", Lang::Python),
            ("__import__('mylib').run('x')", Lang::Python),
            ("require('./local').run('x')", Lang::Js),
        ] {
            assert!(
                names(code, lang)
                    .iter()
                    .any(|n| IMPORTERS.contains(&n.as_str())),
                "{code}"
            );
        }
    }
}
