//! The programs of `commands/files-read.toml` (the readers) and the compressors of
//! `commands/files-archive.toml` through the whole effect model (the data's own examples
//! check each form; these check the mechanism around it).

use super::testing::{effects, has};

#[test]
fn readers_read_their_operands() {
    assert_eq!(effects("cat a.txt"), vec!["read@source"]);
    assert_eq!(
        effects("cat ~/.ssh/id_rsa"),
        vec!["read@secrets", "reveal@secrets"]
    );
    assert_eq!(
        effects("head -n 5 .env"),
        vec!["read@secrets", "reveal@secrets"]
    );
    assert_eq!(effects("tail -n 100 -f log.txt"), vec!["read@source"]);
    assert_eq!(effects("less -N +G a.txt"), vec!["read@source"]);
    assert_eq!(effects("wc -l src/a.rs"), vec!["read@source"]);
    assert_eq!(effects("ls -la ~"), vec!["read@home"]);
    assert_eq!(effects("ls"), vec!["read@project"]);
    assert_eq!(effects("ls -I target"), vec!["read@project"]);
    assert_eq!(effects("stat -c %s a.bin"), vec!["read@source"]);
    assert_eq!(effects("diff -u a b"), vec!["read@source"]);
    assert_eq!(effects("diff -U 3 -L x a b"), vec!["read@source"]);
    assert_eq!(effects("cut -d, -f1 data.csv"), vec!["read@source"]);
    assert_eq!(effects("tr a-z A-Z"), Vec::<String>::new());
    assert_eq!(effects("realpath ../x"), Vec::<String>::new());
    assert_eq!(effects("basename /etc/passwd"), Vec::<String>::new());
    assert_eq!(effects("du -sh /var/log"), vec!["read@system"]);
}

#[test]
fn grep_pattern_is_not_a_path() {
    assert_eq!(effects("grep foo a.txt"), vec!["read@source"]);
    assert_eq!(effects("grep '/etc' a.txt"), vec!["read@source"]);
    assert_eq!(effects("grep -rn TODO src"), vec!["read@source"]);
    assert_eq!(effects("grep -r TODO"), vec!["read@project"]);
    assert_eq!(effects("grep TODO"), Vec::<String>::new());
    assert_eq!(
        effects("grep -e /etc -e x ~/.bashrc"),
        vec!["read@dotfiles"]
    );
    assert_eq!(effects("grep -f pats.txt a"), vec!["read@source"]);
    assert_eq!(effects("grep -A 3 -m1 x a"), vec!["read@source"]);
    assert_eq!(effects("grep --regexp=/ a"), vec!["read@source"]);
    assert!(has("grep -r password ~/.aws", "read@secrets"));
    assert_eq!(effects("rg foo"), vec!["read@project"]);
    assert_eq!(effects("rg -g '*.rs' foo src"), vec!["read@source"]);
    assert_eq!(effects("rg --files src"), vec!["read@source"]);
    assert_eq!(effects("rg -t rust -r bar foo"), vec!["read@project"]);
    assert!(!has("rg ~ a.txt", "read@home"));
}

#[test]
fn compressors_replace_or_keep() {
    assert_eq!(
        effects("gzip a.log"),
        vec!["delete@source", "overwrite@source", "read@source"]
    );
    assert!(has("gzip -r ~", "delete@home"));
    assert!(has("gzip --recursive /etc", "delete@system"));
    assert!(has("gunzip ~/.bashrc.gz", "delete@dotfiles"));
    assert!(has("xz -9 ~/.ssh/id_rsa", "delete@secrets"));
    assert!(has("bzip2 -f .env", "delete@secrets"));
    assert_eq!(
        effects("gzip -k a.log"),
        vec!["overwrite@source", "read@source"]
    );
    assert_eq!(
        effects("gzip --keep a.log"),
        vec!["overwrite@source", "read@source"]
    );
    assert_eq!(effects("gzip -c a.log"), vec!["read@source"]);
    assert_eq!(effects("gzip -dc a.gz"), vec!["read@source"]);
    assert_eq!(effects("gzip -t a.gz"), vec!["read@source"]);
    assert_eq!(effects("xz -l a.xz"), vec!["read@source"]);
    assert!(!has("zstd a.log", "delete@source"));
    assert!(has("zstd --rm a.log", "delete@source"));
    assert!(has("zstd a.log -o ~/.bashrc", "overwrite@dotfiles"));
    assert!(!has("lz4 a.log", "delete@source"));
    assert_eq!(effects("zcat a.gz"), vec!["read@source"]);
    assert_eq!(effects("zgrep foo a.gz"), vec!["read@source"]);
}
