//! Database clients and framework tasks: SQL read from arguments, `-c`/`-e`, files,
//! here-strings, here-documents and piped stdin, classed as destroy (DROP, TRUNCATE, DELETE
//! or UPDATE without WHERE, …), write or read ([`sql`]); redis commands, mongo shell code and
//! InfluxQL ([`nosql`], reached from `commands/database.toml`); framework resets and
//! migrations ([`frameworks`]).

mod clients;
mod frameworks;
mod nosql;
pub(super) mod sql;

use super::super::{Cmd, Sink};

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    clients::model(cmd, out) || frameworks::model(cmd, out)
}

/// `python manage.py …` and `django-admin …` (asked by the interpreters family).
pub(super) fn django(args: &[std::borrow::Cow<'_, str>], stdin: Option<&str>, out: &mut Sink) {
    frameworks::django(args, stdin, out)
}

/// `php artisan …`, `php bin/console …` (asked by the interpreters family).
pub(super) fn framework_php(script: &str, args: &[std::borrow::Cow<'_, str>], out: &mut Sink) {
    frameworks::framework_php(script, args, out)
}

/// What SQL text does to the database (`typeorm query …`, `prisma db execute` fed SQL).
pub(super) fn sql_text(text: &str, out: &mut Sink) {
    sql::analyse(text, out).emit(out);
}

/// Whether a `redis-cli …` lists every key.
pub(super) use nosql::lists_every_key as redis_lists_every_key;
pub(crate) use nosql::{influxql, redis};

/// Shell words joined back into a line, quoted where needed.
pub(super) fn shell_join<S: AsRef<str>>(words: &[S]) -> String {
    let mut s = String::new();
    for w in words {
        let w = w.as_ref();
        if !s.is_empty() {
            s.push(' ');
        }
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+~*".contains(&b));
        if plain {
            s.push_str(w);
        } else {
            s.push('\'');
            s.push_str(&w.replace('\'', "'\\''"));
            s.push('\'');
        }
    }
    s
}
