//! MongoDB shell code (`mongosh --eval`, a script fed on standard input): dropping a
//! database or collection, or deleting or updating every document, destroys data; other
//! changes write; `eval`/`load` run code gate does not follow.

use gate_spec::effect::Act;

use super::super::super::Sink;
use super::sql::Verdict;

/// MongoDB shell code: `dropDatabase()`, `.drop()`, `deleteMany({})`, `remove({})`,
/// `updateMany({}, …)` destroy; other changes write.
pub(super) fn analyse(code: &str, out: &mut Sink) -> Verdict {
    let toks = crate::effects::programs::interpreters::scan::tokens(
        code,
        crate::effects::programs::interpreters::scan::Lang::Js,
    );
    use crate::effects::programs::interpreters::scan::Tok;
    let mut destroy = false;
    let mut write = false;
    for (k, t) in toks.iter().enumerate() {
        let Tok::Ident(name) = t else {
            continue;
        };
        let after_dot = k > 0 && toks[k - 1] == Tok::P(b'.');
        let call = toks.get(k + 1) == Some(&Tok::P(b'('));
        // An empty filter: `()`, `({})`.
        let empty = matches!(
            (toks.get(k + 2), toks.get(k + 3), toks.get(k + 4)),
            (Some(Tok::P(b')')), _, _)
                | (
                    Some(Tok::P(b'{')),
                    Some(Tok::P(b'}')),
                    Some(Tok::P(b')' | b','))
                )
        );
        match *name {
            "dropDatabase" | "dropAllUsers" | "dropAllRoles" if call => destroy = true,
            "drop" if call && after_dot => destroy = true,
            "deleteMany" | "remove" | "updateMany" | "update" if call && after_dot => {
                if empty {
                    destroy = true;
                } else {
                    write = true;
                }
            }
            "runCommand" | "adminCommand" if call => {
                let rest: String = toks[k..toks.len().min(k + 6)]
                    .iter()
                    .filter_map(|t| match t {
                        Tok::Ident(s) => Some(*s),
                        Tok::Str(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                if rest.contains("dropDatabase") || rest.contains("drop ") || rest.ends_with("drop")
                {
                    destroy = true;
                } else if rest.contains("shutdown") {
                    out.none(Act::Service);
                } else {
                    write = true;
                }
            }
            "insertOne" | "insertMany" | "insert" | "updateOne" | "replaceOne" | "deleteOne"
            | "findOneAndDelete" | "findOneAndUpdate" | "findOneAndReplace" | "findAndModify"
            | "bulkWrite" | "createCollection" | "createIndex" | "dropIndex" | "dropIndexes"
            | "renameCollection" | "createUser" | "dropUser" | "save"
                if call && after_dot =>
            {
                write = true
            }
            "eval" | "load" if call => out.opaque(code),
            _ => {}
        }
    }
    Verdict { destroy, write }
}
