//! Framework database tasks whose words need reading: rake and rails tasks (with their
//! `[args]` and `VERSION=0`), `rails runner` code, `bundle exec`, manage.py and the PHP
//! consoles (reached from the interpreters family), whose resets, drops and rollbacks
//! destroy data and whose forward migrations and seeds write. The tools whose database
//! tasks are words (prisma, flask db, mix ecto, typeorm, mikro-orm, drizzle-kit, flyway,
//! liquibase, dotnet ef, sequelize, knex, alembic, supabase db) are data
//! (`commands/database.toml`, `commands/packages.toml`, `commands/cloud.toml`).

use std::borrow::Cow;

use gate_spec::effect::Act;

use super::super::super::{Cmd, Sink};
use super::shell_join;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    let word = |k: usize| args.get(k).map(|a| &**a).unwrap_or("");
    let words: Vec<&str> = args.iter().map(|a| &**a).collect();
    match cmd.program {
        "rails" | "rake" => {
            if matches!(word(0), "db" | "dbconsole") && !word(0).contains(':') {
                if let Some(text) = cmd.stdin {
                    super::sql::analyse(text, out).emit(out);
                }
                return true;
            }
            if matches!(word(0), "runner" | "r") {
                ruby_orm(&words[1..].join(" "), out);
                return true;
            }
            if !rails_tasks(&words, out) {
                out.none(Act::Exec);
            }
        }
        "bundle" | "bundler" if matches!(word(0), "exec" | "ex") => {
            out.script(&shell_join(&words[1..]));
        }
        "django-admin" | "django-admin.py" | "manage.py" => django(args, cmd.stdin, out),
        _ => return false,
    }
    true
}

/// Rake/rails database tasks; false when none is a database task.
fn rails_tasks(words: &[&str], out: &mut Sink) -> bool {
    let mut any = false;
    let zero = words
        .iter()
        .any(|w| matches!(*w, "VERSION=0" | "STEP=999" | "VERSION=00000000000000"));
    for w in words {
        let task = w.split('[').next().unwrap_or(w);
        let destroy = matches!(
            task,
            "db:drop"
                | "db:drop:all"
                | "db:reset"
                | "db:purge"
                | "db:purge:all"
                | "db:schema:load"
                | "db:structure:load"
                | "db:setup"
                | "db:migrate:reset"
                | "db:truncate_all"
                | "db:seed:replant"
                | "db:rollback"
                | "db:migrate:down"
                | "db:migrate:redo"
                | "db:test:purge"
                | "db:test:prepare"
        ) || (task == "db:migrate" && zero);
        if destroy {
            out.none(Act::DbDestroy);
            any = true;
        } else if matches!(
            task,
            "db:migrate"
                | "db:migrate:up"
                | "db:seed"
                | "db:create"
                | "db:create:all"
                | "db:prepare"
                | "db:fixtures:load"
                | "db:environment:set"
        ) {
            out.none(Act::DbWrite);
            any = true;
        } else if task.starts_with("db:") {
            // Status, version, dumps: read only.
            any = true;
        }
    }
    any
}

/// `rails runner CODE`: ActiveRecord bulk deletes.
fn ruby_orm(code: &str, out: &mut Sink) {
    if [
        "delete_all",
        "destroy_all",
        "drop_table",
        "truncate",
        "purge",
    ]
    .iter()
    .any(|m| code.contains(m))
    {
        out.none(Act::DbDestroy);
    } else {
        out.none(Act::Exec);
    }
}

/// `manage.py …`, `django-admin …`.
pub(super) fn django(args: &[Cow<'_, str>], stdin: Option<&str>, out: &mut Sink) {
    let words: Vec<&str> = args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .collect();
    match words.first().copied().unwrap_or("") {
        "flush" | "reset_db" | "reset_schema" | "drop_test_database" => out.none(Act::DbDestroy),
        "migrate" => {
            if words.get(2) == Some(&"zero") {
                out.none(Act::DbDestroy);
            } else if !args.iter().any(|a| a == "--plan" || a == "--check") {
                out.none(Act::DbWrite);
            }
        }
        "loaddata" | "createsuperuser" | "changepassword" | "createcachetable" => {
            out.none(Act::DbWrite)
        }
        "dbshell" => {
            if let Some(text) = stdin {
                super::sql::analyse(text, out).emit(out);
            }
        }
        "shell" => {
            let code = args
                .iter()
                .position(|a| a == "-c" || a == "--command")
                .and_then(|k| args.get(k + 1))
                .map(|c| c.to_string())
                .or_else(|| stdin.map(str::to_string));
            if let Some(c) = code {
                {
                    if c.contains(".delete()")
                        && (c.contains(".all()") || c.contains("objects.delete"))
                    {
                        out.none(Act::DbDestroy);
                    } else {
                        super::super::interpreters::calls::analyse(
                            &c,
                            super::super::interpreters::scan::Lang::Python,
                            out,
                        );
                        if c.contains(".delete()")
                            || c.contains(".save()")
                            || c.contains(".update(")
                        {
                            out.none(Act::DbWrite);
                        }
                    }
                }
            }
        }
        "sqlflush" | "sqlmigrate" | "showmigrations" | "check" | "inspectdb" | "dumpdata"
        | "diffsettings" | "makemigrations" | "version" | "help" | "runserver" | "test"
        | "collectstatic" | "startapp" | "shell_plus" | "show_urls" | "sendtestemail" => {
            if words.first() == Some(&"runserver") || words.first() == Some(&"test") {
                out.none(Act::Exec);
            }
        }
        _ => out.none(Act::Exec),
    }
}

/// `php artisan …` (Laravel) and `php bin/console …` (Symfony, Doctrine).
pub(super) fn framework_php(script: &str, args: &[Cow<'_, str>], out: &mut Sink) {
    let sub = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(|a| &**a)
        .unwrap_or("");
    let has = |o: &str| args.iter().any(|a| a == o);
    match (script, sub) {
        (
            "artisan",
            "migrate:fresh" | "migrate:reset" | "migrate:refresh" | "migrate:rollback" | "db:wipe",
        ) => out.none(Act::DbDestroy),
        ("artisan", "migrate" | "db:seed" | "migrate:install") => {
            if !has("--pretend") {
                out.none(Act::DbWrite)
            }
        }
        ("artisan", "tinker") => out.opaque(&shell_join(args)),
        (
            "console",
            "doctrine:database:drop" | "doctrine:schema:drop" | "doctrine:fixtures:load",
        ) => {
            if has("--force") || sub == "doctrine:fixtures:load" {
                out.none(Act::DbDestroy)
            }
        }
        (
            "console",
            "doctrine:migrations:migrate" | "doctrine:schema:update" | "doctrine:database:create",
        ) => {
            if (has("--force") || sub != "doctrine:schema:update") && !has("--dry-run") {
                out.none(Act::DbWrite)
            }
        }
        ("console", "doctrine:query:sql" | "dbal:run-sql") => {
            let sql: Vec<&str> = args
                .iter()
                .map(|a| &**a)
                .filter(|a| !a.starts_with('-'))
                .skip(1)
                .collect();
            super::sql::analyse(&sql.join(" "), out).emit(out);
        }
        _ => out.none(Act::Exec),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn framework_resets_destroy() {
        for line in [
            "rails db:drop",
            "bin/rails db:reset",
            "./bin/rails db:schema:load",
            "rails db:purge",
            "rake db:drop db:create db:migrate",
            "bundle exec rails db:reset",
            "bundle exec rake db:drop",
            "RAILS_ENV=production rails db:drop DISABLE_DATABASE_ENVIRONMENT_CHECK=1",
            "rails db:migrate VERSION=0",
            "rails db:rollback STEP=3",
            "python manage.py flush --noinput",
            "python3 manage.py reset_db",
            "./manage.py flush",
            "django-admin flush --no-input",
            "python manage.py migrate shop zero",
            "prisma migrate reset --force",
            "prisma db push --force-reset",
            "prisma db push --accept-data-loss",
            "sequelize db:drop",
            "sequelize-cli db:migrate:undo:all",
            "knex migrate:rollback --all",
            "alembic downgrade base",
            "alembic -c alembic.ini downgrade -1",
            "flask db downgrade",
            "php artisan migrate:fresh --seed",
            "php artisan migrate:reset",
            "php artisan db:wipe --force",
            "php bin/console doctrine:database:drop --force",
            "mix ecto.drop",
            "mix ecto.reset",
            "dotnet ef database drop --force",
            "dotnet ef database update 0",
            "supabase db reset",
            "typeorm schema:drop",
            "flyway clean",
            "liquibase dropAll",
        ] {
            assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn forward_migrations_write_and_queries_do_nothing() {
        for line in [
            "rails db:migrate",
            "bundle exec rake db:seed",
            "python manage.py migrate",
            "prisma migrate deploy",
            "prisma db push",
            "knex migrate:latest",
            "alembic upgrade head",
            "flask db upgrade",
            "php artisan migrate --force",
            "mix ecto.migrate",
            "dotnet ef database update",
            "supabase db push",
            "flyway migrate",
        ] {
            assert_eq!(effects(line), vec!["db_write@none"], "{line}");
        }
        for line in [
            "rails db:migrate:status",
            "rails db:version",
            "python manage.py sqlflush",
            "python manage.py showmigrations",
            "python manage.py makemigrations",
            "prisma generate",
            "alembic history",
            "alembic current",
            "flask db migrate -m x",
            "mix ecto.gen.migration add_users",
            "supabase db diff",
            "php artisan migrate --pretend",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("rails server"), vec!["exec@none"]);
        assert_eq!(effects("python manage.py runserver"), vec!["exec@none"]);
        assert!(has("bundle exec rspec", "exec@none"));
    }
}
