//! The code that reads what database programs are handed: SQL ([`sql`]: DROP, TRUNCATE,
//! DELETE or UPDATE without WHERE, … and the clients' own commands mixed in), MongoDB shell
//! code ([`mongo`]), Python run by Django's shell ([`django`]) — the query languages a
//! program's `queries` name ([`languages`]) — and redis commands ([`redis`], the `redis`
//! analyser). Which program takes its queries from which option, operand or file, and the
//! framework tasks that reset, roll back or migrate, are data: `commands/database.toml`.

mod django;
pub(crate) mod languages;
mod mongo;
mod redis;
pub(super) mod sql;
#[cfg(test)]
mod tests;

pub(crate) use redis::redis;

/// What SQL text does to the database (`typeorm query …`, `prisma db execute` fed SQL).
pub(super) fn sql_text(text: &str, out: &mut super::super::Sink) {
    sql::analyse(text, out).emit(out);
}

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
