//! Python run by Django's shell (`manage.py shell -c CODE`, or fed on standard input):
//! deleting every row of a model destroys data; deleting, saving or updating some writes;
//! the rest of the code is read as any Python one-liner is.

use super::super::super::Sink;
use super::super::interpreters::{calls, scan::Lang};
use super::sql::Verdict;

/// What the code does to the database (its other calls written into `out`).
pub(super) fn analyse(code: &str, out: &mut Sink) -> Verdict {
    let deletes = code.contains(".delete()");
    if deletes && (code.contains(".all()") || code.contains("objects.delete")) {
        return Verdict {
            destroy: true,
            write: false,
        };
    }
    calls::analyse(code, Lang::Python, out);
    Verdict {
        destroy: false,
        write: deletes || code.contains(".save()") || code.contains(".update("),
    }
}
