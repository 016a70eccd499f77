//! The file programs written as data (`commands/files-copy.toml`: moving, copying, linking,
//! and the programs that write the files they name), tested by form through the whole
//! effect model: every option spelling, wrapper and destination spelling.

use super::testing::{effects, has, stdin_effects};

#[test]
fn mv_sources_and_destinations() {
    assert_eq!(
        effects("mv a.txt b.txt"),
        vec!["move@source", "overwrite@source"]
    );
    assert!(has("mv ~ /tmp/x", "move@home"));
    assert!(has("mv /etc/passwd /tmp/", "move@system"));
    assert!(has("mv x.txt ~/.bashrc", "overwrite@dotfiles"));
    assert!(has("mv -f x ~/.ssh/id_rsa", "overwrite@secrets"));
    assert!(has("sudo mv -- a /etc/hosts", "overwrite@system"));
    // Into a directory: the file lands inside it, home itself is not overwritten.
    assert_eq!(
        effects("mv notes.txt ~"),
        vec!["move@source", "overwrite@outside"]
    );
    assert_eq!(
        effects("mv notes.txt ~/"),
        vec!["move@source", "overwrite@outside"]
    );
    assert!(has("mv a b c ~/", "overwrite@outside"));
    assert!(!has("mv a b ~", "overwrite@home"));
    // -t and --target-directory.
    assert!(has("mv -t /tmp a b", "overwrite@temp"));
    assert!(has("mv --target-directory=/tmp ~/.ssh", "move@secrets"));
    assert!(has("mv --target /tmp .git", "move@vcs"));
    assert!(has("mv -t ~ .env", "overwrite@secrets"));
    // -n keeps the destination.
    assert_eq!(
        effects("mv -n a.txt b.txt"),
        vec!["move@source", "write@source"]
    );
    assert!(has("mv --no-clobber a ~/.zshrc", "write@dotfiles"));
    assert!(has("mv -T build ~", "overwrite@home"));
    assert!(has("mv ./* /tmp/", "move@project"));
    // A single -name narrows {} to what it matches.
    assert!(has("find . -name x -exec mv {} /tmp \\;", "move@source"));
    assert!(has("find . -exec mv {} /tmp \\;", "move@project"));
}

#[test]
fn cp_and_install() {
    assert_eq!(
        effects("cp a.txt b.txt"),
        vec!["overwrite@source", "read@source"]
    );
    assert!(has("cp -r src /tmp/x", "read@source"));
    assert!(has("cp /dev/null ~/.bashrc", "overwrite@dotfiles"));
    assert!(has("cp -f x .git/config", "overwrite@vcs"));
    assert!(has("cp -rf dist/* /", "overwrite@root"));
    assert!(has("sudo cp hosts /etc/hosts", "overwrite@system"));
    assert!(has("cp ~/.ssh/id_rsa /tmp/", "read@secrets"));
    assert!(has("cp -t ~/.config a.conf", "overwrite@dotfiles"));
    assert!(has("cp --target-directory=/etc x.conf", "overwrite@system"));
    assert!(has("cp -n a ~/.profile", "write@dotfiles"));
    assert!(has("cp --backup=numbered a ~/.profile", "write@dotfiles"));
    assert!(has("cp -s /etc/passwd here", "link@system"));
    assert!(has("cp -a . ~/backup", "read@project"));
    assert!(has(
        "install -m 755 tool /usr/local/bin/tool",
        "overwrite@system"
    ));
    assert!(has("install -Dm644 a.conf /etc/a.conf", "overwrite@system"));
    assert!(has("install -d ~/.config/app", "write@dotfiles"));
    assert!(has("install -t /usr/bin -m 0755 gate", "overwrite@system"));
    assert!(has("install --mode=600 key ~/.ssh/", "overwrite@secrets"));
}

#[test]
fn ln_links_and_names() {
    assert_eq!(
        effects("ln -s /etc/passwd p"),
        vec!["link@system", "write@source"]
    );
    assert!(has(
        "ln -sf /dev/null ~/.bash_history",
        "overwrite@dotfiles"
    ));
    assert!(has("ln -sfn ~/.ssh keys", "link@secrets"));
    assert!(has(
        "ln --symbolic --force target ~/.bashrc",
        "overwrite@dotfiles"
    ));
    assert!(has("ln -s ~ home", "link@home"));
    assert!(has("ln /etc/shadow", "link@system"));
    assert!(has("ln -s / rootlink", "link@root"));
    assert!(has(
        "ln -t /usr/local/bin -s /home/u/proj/target/release/x",
        "write@system"
    ));
    assert!(has("ln -s ../../.. .cache/up", "link@home"));
    assert!(has("ln -s ../x sub/link", "link@source"));
    assert!(has("ln -sr ../x sub/link", "link@outside"));
    assert!(has("ln -s a b c ~/bin", "write@outside"));
}

#[test]
fn rsync_local_and_remote() {
    assert_eq!(
        effects("rsync -av src/ /tmp/copy"),
        vec!["overwrite@temp", "read@source"]
    );
    assert!(has("rsync -a --delete empty/ ~/", "delete@home"));
    assert!(has("rsync -a --delete-after x/ /", "delete@root"));
    assert!(has("rsync -aP --del src/ ~/work", "delete@outside"));
    assert!(has(
        "rsync -a --remove-source-files ~/docs/ /tmp/d",
        "delete@outside"
    ));
    assert!(has("rsync -avz src/ user@host:/srv/app", "send@remote"));
    assert!(has(
        "rsync -avz --delete src/ host:/srv/app",
        "cloud_delete@remote"
    ));
    assert!(has("rsync -av host:/etc/ ./etc", "fetch@remote"));
    assert!(has(
        "rsync -av rsync://mirror/pub/ /tmp/pub",
        "fetch@remote"
    ));
    assert!(has("rsync -e 'ssh -p 2222' -a . host:x", "send@remote"));
    assert!(has("rsync -a ~/.ssh host:bk", "read@secrets"));
    // One file copied to a name: that name is the file written.
    assert!(has("rsync /dev/null ~/.claude.json", "overwrite@gate"));
    assert!(has("rsync -a notes.txt ~/.bashrc", "overwrite@dotfiles"));
    // A dry run only reads.
    assert_eq!(
        effects("rsync -avn --delete src/ /tmp/x"),
        vec!["read@source"]
    );
    assert_eq!(
        effects("rsync --dry-run -a --delete a/ ~/"),
        vec!["read@source"]
    );
    assert!(has("rsync -a dir ~/", "overwrite@outside"));
    assert!(!has("rsync -a dir ~/", "overwrite@home"));
}

#[test]
fn rename_forms() {
    assert_eq!(
        effects("rename 's/\\.txt$/.md/' *.txt"),
        vec!["move@source"]
    );
    assert_eq!(effects("rename -n 's/a/b/' *"), vec!["read@project"]);
    assert!(has("rename .htm .html ~/*.htm", "move@outside"));
    assert!(has("rename -v s/x/y/ ~/.bashrc", "move@dotfiles"));
}

#[test]
fn tee_and_sponge() {
    assert_eq!(effects("tee out.txt"), vec!["overwrite@source"]);
    assert!(has("echo x | sudo tee /etc/hosts", "overwrite@system"));
    assert!(has("echo x | tee -a ~/.bashrc", "write@dotfiles"));
    assert!(has("echo x | tee --append ~/.bashrc", "write@dotfiles"));
    assert!(!has(
        "echo x | tee --append ~/.bashrc",
        "overwrite@dotfiles"
    ));
    assert!(has(
        "echo k | tee a ~/.ssh/authorized_keys",
        "overwrite@secrets"
    ));
    assert!(has("cat x | sponge ~/.zshrc", "overwrite@dotfiles"));
    assert!(has("cat x | sponge -a ~/.zshrc", "write@dotfiles"));
    assert!(has("jq '.a=1' f.json | sponge f.json", "overwrite@source"));
}

#[test]
fn dd_forms() {
    assert!(has("dd if=/dev/zero of=/dev/sda bs=1M", "overwrite@device"));
    assert!(has(
        "sudo dd if=ubuntu.iso of=/dev/disk2 bs=4m",
        "overwrite@device"
    ));
    assert!(has(
        "dd if=/dev/urandom of=/dev/nvme0n1",
        "overwrite@device"
    ));
    assert!(has("dd if=/dev/sda of=/tmp/mbr.bin count=1", "read@device"));
    assert!(has("dd if=/dev/zero of=~/.bashrc", "overwrite@dotfiles"));
    assert_eq!(
        effects("dd if=a.img of=b.img"),
        vec!["overwrite@source", "read@source"]
    );
    assert_eq!(
        effects("dd if=/dev/zero of=/dev/null count=1"),
        vec!["read@none"]
    );
}

#[test]
fn sort_uniq_outputs() {
    assert_eq!(effects("sort a.txt"), vec!["read@source"]);
    assert_eq!(
        effects("sort -o a.txt a.txt"),
        vec!["overwrite@source", "read@source"]
    );
    assert!(has("sort -k2 -t, x -o ~/.bashrc", "overwrite@dotfiles"));
    assert!(has("sort --output=/etc/passwd x", "overwrite@system"));
    assert!(has("sort --out /etc/passwd x", "overwrite@system"));
    assert!(has("sort -uo ~/.ssh/known_hosts x", "overwrite@secrets"));
    assert!(!has("sort -k 2 data.txt", "overwrite@source"));
    assert!(has("uniq in.txt ~/.profile", "overwrite@dotfiles"));
    assert_eq!(effects("uniq -c in.txt"), vec!["read@source"]);
}

#[test]
fn jq_yq() {
    assert_eq!(effects("jq .name package.json"), vec!["read@source"]);
    assert_eq!(
        effects("jq -r --arg k v '.[$k]' a.json"),
        vec!["read@source"]
    );
    assert_eq!(effects("jq -n '1'"), Vec::<String>::new());
    assert!(has(
        "jq --slurpfile x ~/.aws/credentials . a.json",
        "read@secrets"
    ));
    assert_eq!(effects("yq '.a' c.yaml"), vec!["read@source"]);
    assert_eq!(effects("yq -i '.a = 1' c.yaml"), vec!["write@source"]);
    assert_eq!(effects("yq e -i '.a = 1' c.yaml"), vec!["write@source"]);
    assert_eq!(
        effects("yq eval --inplace '.a = 1' c.yaml"),
        vec!["write@source"]
    );
    assert!(has("yq w -i ~/.kube/config a b", "write@secrets"));
    assert_eq!(effects("yq c.yaml"), vec!["read@source"]);
}

#[test]
fn patch_forms() {
    assert_eq!(
        effects("patch -p1 < fix.diff"),
        vec!["read@source", "write@project"]
    );
    assert!(has("patch -p1 -i fix.diff", "read@source"));
    assert!(has("patch --input=fix.diff -d /etc", "write@system"));
    assert!(has("patch ~/.bashrc fix.diff", "write@dotfiles"));
    assert!(has("patch -o out.c in.c fix.diff", "overwrite@source"));
    assert!(!has("patch -o out.c in.c fix.diff", "write@source"));
    assert_eq!(
        effects("patch --dry-run -p1 -i fix.diff"),
        vec!["read@source"]
    );
    // The files a patch on standard input names.
    let diff = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n";
    assert_eq!(stdin_effects("patch", &["-p1"], diff), vec!["write@source"]);
    let diff = "--- a\n+++ /home/u/.bashrc\t2024\n@@\n";
    assert_eq!(
        stdin_effects("patch", &["-p0"], diff),
        vec!["write@dotfiles"]
    );
    let diff = "*** a/x.rs\n--- b/x.rs\n***************\n*** 1,3 ****\n";
    assert_eq!(
        stdin_effects("patch", &["-p1", "-d", "/etc"], diff),
        vec!["write@system"]
    );
}

#[test]
fn converters() {
    assert_eq!(effects("dos2unix a.sh b.sh"), vec!["write@source"]);
    assert!(has("dos2unix -n in.txt ~/.profile", "overwrite@dotfiles"));
    assert!(has(
        "iconv -f latin1 -t utf8 a.txt -o ~/.bashrc",
        "overwrite@dotfiles"
    ));
    assert_eq!(
        effects("iconv -f latin1 -t utf8 a.txt"),
        vec!["read@source"]
    );
    assert!(has("xxd -r dump.hex /usr/bin/ls", "overwrite@system"));
    assert_eq!(effects("xxd a.bin"), vec!["read@source"]);
    assert!(has("split -l 100 big.txt /tmp/part_", "write@temp"));
}

#[test]
fn every_destination_spelling() {
    for (program, src_act) in [("mv", "move"), ("cp", "read"), ("install", "read")] {
        let cases = [
            ("a.txt b.txt", "overwrite@source"),
            ("a.txt .env", "overwrite@secrets"),
            ("a.txt ~/.bashrc", "overwrite@dotfiles"),
            ("a.txt .git/config", "overwrite@vcs"),
            ("a.txt .git/", "overwrite@vcs"),
            ("a.txt .claude/settings.json", "overwrite@gate"),
            ("settings.json .claude/", "overwrite@gate"),
            ("-t .claude settings.json", "overwrite@gate"),
            ("a.txt /etc/hosts", "overwrite@system"),
            ("a.txt /etc/", "overwrite@system"),
            ("a.txt /", "overwrite@outside"),
            ("-T a.txt /", "overwrite@root"),
            ("a.txt ~", "overwrite@outside"),
            ("a.txt ~/", "overwrite@outside"),
            ("a.txt $HOME", "overwrite@outside"),
            ("-T a.txt ~", "overwrite@home"),
            ("--no-target-directory a.txt $HOME", "overwrite@home"),
            ("a b c ~/.ssh", "overwrite@secrets"),
            ("-b a.txt /etc/hosts", "write@system"),
            ("--backup=numbered a.txt /etc/hosts", "write@system"),
            ("--backup=none a.txt /etc/hosts", "overwrite@system"),
            ("-- a.txt /etc/hosts", "overwrite@system"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .map(|(args, want)| (format!("{program} {args}"), want))
            .filter(|(line, want)| {
                !has(line, want) || !effects(line).iter().any(|e| e.starts_with(src_act))
            })
            .map(|(line, want)| format!("{line}: {:?}, wanted {want}", effects(&line)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
    // A destination only a variable names is the destination itself.
    assert!(has("cp a.txt $DEST", "overwrite@unknown"));
    // A link's name lands inside the directory, not over it.
    assert_eq!(
        effects("cp -s /etc/hosts ~/"),
        vec!["link@system", "write@outside"]
    );
    assert!(has("cp --update=none a ~/.zshrc", "write@dotfiles"));
    assert!(!has("cp --update=none a ~/.zshrc", "overwrite@dotfiles"));
    assert!(has("mv --update a ~/.zshrc", "overwrite@dotfiles"));
    assert!(has("ln -sf --backup=none x ~/.zshrc", "overwrite@dotfiles"));
    assert!(has("ln -sf --backup x ~/.zshrc", "write@dotfiles"));
    // `--help` and a lone operand change nothing.
    assert_eq!(effects("cp --help a ~/.bashrc"), Vec::<String>::new());
    assert_eq!(effects("mv ~/.bashrc"), vec!["read@dotfiles"]);
    // `-` is standard output; `dd of=-` is a file of that name.
    assert_eq!(effects("sort -o - a.txt"), vec!["read@source"]);
    assert!(has("dd if=a.img of=-", "overwrite@source"));
    assert!(has("split -l 10 big.txt ~/.", "write@dotfiles"));
}
