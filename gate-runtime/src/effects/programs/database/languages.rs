//! The query languages a program's `queries` are read as (`language = "sql"` in
//! `commands/*.toml`): each is given query text, or a file of it the line does not show, and
//! says what the queries do to the database (writing what else it sees into the sink).

use super::super::super::Sink;
pub(crate) use super::sql::Verdict;

/// What a language reader is given.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Query<'t> {
    /// Query text (an option's value, an operand, standard input).
    Text(&'t str),
    /// A file of queries, by its name (its content is not read here).
    File(&'t str),
}

/// SQL, and the dialects read as SQL (CQL, InfluxQL, ClickHouse's): a file not shown is a
/// write at least, a destroy when its name says so (`drop_all.sql`).
pub(crate) fn sql(q: Query<'_>, out: &mut Sink) -> Verdict {
    match q {
        Query::Text(text) => super::sql::analyse(text, out),
        Query::File(name) => super::sql::unread_file(name),
    }
}

/// MongoDB shell code (`db.dropDatabase()`, `deleteMany({})`); a script not shown is read
/// by its name as a file of SQL is (`drop_all.js`).
pub(crate) fn mongo(q: Query<'_>, out: &mut Sink) -> Verdict {
    match q {
        Query::Text(code) => super::mongo::analyse(code, out),
        Query::File(name) => super::sql::unread_file(name),
    }
}

/// Code in a language gate does not read (`php artisan tinker --execute`): `opaque`, with
/// the places it names.
pub(crate) fn opaque(q: Query<'_>, out: &mut Sink) -> Verdict {
    match q {
        Query::Text(code) | Query::File(code) => out.opaque(code),
    }
    Verdict::default()
}

/// Python run by Django's shell against the project's models (`manage.py shell -c
/// 'User.objects.all().delete()'`); a script fed to it is run as Python.
pub(crate) fn django(q: Query<'_>, out: &mut Sink) -> Verdict {
    match q {
        Query::Text(code) => super::django::analyse(code, out),
        Query::File(name) => {
            super::super::interpreters::runs_python_file(name, out);
            Verdict::default()
        }
    }
}
