//! The database programs' forms, by form: every option spelling, wrapper and input of the
//! clients (`commands/database.toml`'s `queries`), redis commands, MongoDB shell code and
//! the frameworks' tasks, destructive and benign side by side.

use super::super::testing::{effects, has};

#[test]
fn psql_sql_from_every_option_spelling() {
    for line in [
        "psql -c 'DROP TABLE users'",
        "psql -d app -c \"drop table users;\"",
        "psql --command='TRUNCATE t'",
        "psql --command 'DELETE FROM t'",
        "psql --comm 'DELETE FROM t'",
        "psql -U postgres -h db.local -p 5432 app -c 'DROP DATABASE app'",
        "psql postgresql://u@h/app -c 'DROP SCHEMA public CASCADE'",
        "sudo -u postgres psql -c 'DROP DATABASE x'",
        "env PGPASSWORD=x psql -c 'DROP TABLE t'",
        "bash -c \"psql -c 'DROP TABLE t'\"",
        "echo 'DROP TABLE t;' | psql app",
        "printf 'DELETE FROM t;\\n' | psql",
        "psql -c 'select 1' -c 'drop table t'",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    assert_eq!(
        effects("psql -c 'SELECT count(*) FROM users'"),
        Vec::<String>::new()
    );
    assert_eq!(effects("psql -l"), Vec::<String>::new());
    assert_eq!(effects("psql -c '\\dt'"), Vec::<String>::new());
    assert_eq!(
        effects("psql -c \"INSERT INTO t VALUES (1)\""),
        vec!["db_write@none"]
    );
    assert_eq!(
        effects("psql -c \"DELETE FROM t WHERE id = 4\""),
        vec!["db_write@none"]
    );
    assert_eq!(
        effects("psql -f migrations/001.sql"),
        vec!["db_write@none", "read@source"]
    );
    assert!(has("psql -f x.sql -o ~/.bashrc", "overwrite@dotfiles"));
    assert!(has("psql -c '\\! rm -rf ~'", "delete@home"));
}

#[test]
fn mysql_and_mariadb() {
    for line in [
        "mysql -e 'DROP DATABASE shop'",
        "mysql -uroot -psecret -e 'drop database shop'",
        "mysql -u root -p shop --execute='TRUNCATE orders'",
        "mysql --exec 'DELETE FROM orders'",
        "mariadb -h db -e 'UPDATE users SET admin=1'",
        "echo 'DROP TABLE t' | mysql shop",
        "mysql --init-command='DROP TABLE t' shop",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    assert_eq!(effects("mysql -e 'SHOW DATABASES'"), Vec::<String>::new());
    assert_eq!(
        effects("mysql -u root -psecret -e 'select 1'"),
        Vec::<String>::new()
    );
    assert!(has("mysql -e 'system rm -rf /'", "delete@root"));
    assert!(has("mysql -e 'source dump.sql'", "db_write@none"));
}

#[test]
fn sql_files_not_shown_are_a_write_at_least_and_what_their_name_says() {
    // Not read (no disk in a test): the name is the evidence, and only raises.
    for line in [
        "mysql prod < drop_all.sql",
        "mysql -u root app < ./sql/drop-tables.sql",
        "mariadb shop < TruncateAll.SQL",
        "psql -d app -f reset_db.sql",
        "mysql app < clear_all_tables.sql",
        "psql app < teardown.sql",
        "sqlite3 app.db < wipe.sql",
        "PGPASSWORD=x psql -h db -U app -f /tmp/purge_users.sql",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    for line in [
        "mysql app < migrate.sql",
        "psql -d app -f seed.sql",
        "mysql shop < dump.sql",
        "psql app < schema_v2.sql",
        "mysql app < reset_password_tokens.sql",
        "psql -f clear_expired_sessions.sql app",
    ] {
        assert!(has(line, "db_write@none"), "{line}: {:?}", effects(line));
        assert!(!has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
}

#[test]
fn sqlite_and_duckdb() {
    assert!(has("sqlite3 app.db 'DROP TABLE users'", "db_destroy@none"));
    assert!(has("sqlite3 app.db 'DROP TABLE users'", "write@source"));
    assert!(has(
        "sqlite3 -cmd 'DELETE FROM t' app.db",
        "db_destroy@none"
    ));
    assert!(has(
        "sqlite3 --header app.db 'delete from t'",
        "db_destroy@none"
    ));
    assert!(has(
        "sqlite3 ~/.local/state/gate/gate.db 'DELETE FROM events'",
        "write@gate"
    ));
    assert!(has("sqlite3 x.db .tables", "read@source"));
    assert_eq!(
        effects("sqlite3 x.db 'SELECT * FROM t'"),
        vec!["read@source"]
    );
    assert!(has("sqlite3 x.db '.restore old.db'", "db_destroy@none"));
    assert!(has("sqlite3 x.db '.shell rm -rf /'", "delete@root"));
    assert!(has("sqlite3 x.db '.output /etc/hosts'", "overwrite@system"));
    assert!(has(
        "echo 'DROP TABLE t;' | sqlite3 x.db",
        "db_destroy@none"
    ));
    assert!(has("duckdb x.duckdb -c 'DROP TABLE t'", "db_destroy@none"));
    assert_eq!(effects("duckdb -c 'SELECT 42'"), Vec::<String>::new());
}

#[test]
fn other_clients() {
    for line in [
        "sqlcmd -S srv -Q 'DROP DATABASE shop'",
        "sqlcmd -S srv -d shop -q 'TRUNCATE TABLE t'",
        "clickhouse-client --query 'DROP TABLE t'",
        "clickhouse-client -q 'TRUNCATE TABLE t'",
        "clickhouse client --query='DROP DATABASE d'",
        "cockroach sql --insecure -e 'DROP DATABASE d'",
        "cockroach sql --execute='DELETE FROM t'",
        "cqlsh -e 'DROP KEYSPACE ks'",
        "mongosh app --eval 'db.dropDatabase()'",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    assert_eq!(effects("sqlcmd -S srv -Q 'SELECT 1'"), Vec::<String>::new());
    assert_eq!(
        effects("clickhouse-client -q 'SHOW TABLES'"),
        Vec::<String>::new()
    );
    assert_eq!(
        effects("cockroach sql -e 'SHOW DATABASES'"),
        Vec::<String>::new()
    );
    assert!(has("sqlcmd -i setup.sql", "db_write@none"));
}

#[test]
fn redis_commands_any_case_after_options() {
    for line in [
        "redis-cli FLUSHALL",
        "redis-cli flushall",
        "redis-cli -h cache.prod -p 6380 FlushAll",
        "redis-cli -n 2 flushdb",
        "redis-cli -a secret -n 3 FLUSHDB ASYNC",
        "redis-cli --user admin --pass x flushall",
        "redis-cli -u redis://h:6379/0 FLUSHALL",
        "redis-cli replicaof evil.host 6379",
        "echo FLUSHALL | redis-cli",
        "redis-cli --cluster call h:7000 FLUSHALL",
        "sudo redis-cli flushall",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    assert_eq!(effects("redis-cli DEL session:1"), vec!["db_write@none"]);
    assert_eq!(
        effects("redis-cli -h h CONFIG SET dir /tmp"),
        vec!["db_write@none"]
    );
    assert_eq!(effects("redis-cli shutdown"), vec!["service@none"]);
    for benign in [
        "redis-cli ping",
        "redis-cli -n 2 GET key",
        "redis-cli keys 'user:*'",
        "redis-cli info memory",
        "redis-cli --scan --pattern 'x*'",
        "redis-cli config get maxmemory",
        "redis-cli slaveof no one",
    ] {
        assert_eq!(effects(benign), Vec::<String>::new(), "{benign}");
    }
}

#[test]
fn every_key_an_enumeration_lists_handed_to_a_delete() {
    for line in [
        "redis-cli KEYS '*' | xargs redis-cli DEL",
        "redis-cli --scan --pattern '*' | xargs redis-cli del",
        "redis-cli --scan | xargs -n 100 redis-cli unlink",
        "redis-cli -n 2 keys \\* | xargs redis-cli -n 2 del",
        "valkey-cli --scan | xargs -L 1000 valkey-cli UNLINK",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    // A pattern names some keys: a write.
    for line in [
        "redis-cli KEYS 'session:*' | xargs redis-cli DEL",
        "redis-cli --scan --pattern 'cache:*' | xargs redis-cli del",
    ] {
        assert_eq!(effects(line), ["db_write@none"], "{line}");
    }
}

#[test]
fn mongo_shell_code() {
    for line in [
        "mongosh app --eval 'db.dropDatabase()'",
        "mongo app --eval \"db.users.drop()\"",
        "mongosh --quiet --eval 'db.users.deleteMany({})'",
        "mongosh --eval 'db.getCollection(\"x\").deleteMany( { } )'",
        "mongo --eval 'db.users.remove({})'",
        "mongosh --eval 'db.users.updateMany({}, {$set: {a: 1}})'",
        "mongosh --eval 'db.runCommand({dropDatabase: 1})'",
        "mongosh --eval='db.getSiblingDB(\"x\").dropDatabase()'",
    ] {
        assert!(has(line, "db_destroy@none"), "{line}: {:?}", effects(line));
    }
    assert_eq!(
        effects("mongosh --eval 'db.users.deleteMany({age: {$lt: 3}})'"),
        vec!["db_write@none"]
    );
    assert_eq!(
        effects("mongosh --eval 'db.users.find({}).count()'"),
        Vec::<String>::new()
    );
    assert_eq!(
        effects("mongosh --eval 'print(\"db.x.drop()\")'"),
        Vec::<String>::new()
    );
}

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
