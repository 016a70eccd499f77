//! The version control models of hg, svn and jj (their forms: `commands/vcs.toml`) by form,
//! as their code read them before they became data.

use super::super::testing::{effects, has};

#[test]
fn hg_rewrites_and_discards() {
    for line in [
        "hg strip -r 3",
        "hg strip tip",
        "hg stri 3",
        "hg histedit",
        "hg rebase -d default",
        "hg rollback",
        "hg prune -r .",
        "hg purge",
        "hg purge --all",
        "hg clean",
        "hg revert --all",
        "hg revert -a --no-backup",
        "hg revert src/a.rs",
        "hg update -C default",
        "hg up --clean",
        "hg checkout -C tip",
        "hg shelve --delete x",
        "hg bookmark -d feature",
        "hg -R ../other strip 1",
    ] {
        assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
    }
    assert!(has("hg purge", "delete@project"));
    assert!(has("hg --cwd ~ purge --all", "delete@home"));
    assert!(has("hg revert src/a.rs", "overwrite@source"));
    assert!(has("hg push -f", "history@remote"));
    assert!(has("hg push --force default", "history@remote"));
    assert!(has("hg rm -f src", "delete@source"));
    assert!(has(
        "hg --config hooks.pre-commit='rm -rf ~' commit -m x",
        "opaque@none"
    ));
}
#[test]
fn hg_benign() {
    for line in [
        "hg status",
        "hg st",
        "hg log -l 5",
        "hg diff -r tip",
        "hg annotate src/a.rs",
        "hg purge --print",
        "hg purge -p",
        "hg bookmarks",
        "hg branches",
        "hg summary",
    ] {
        assert_eq!(effects(line), Vec::<String>::new(), "{line}");
    }
    assert_eq!(effects("hg commit -m x"), vec!["write@vcs"]);
    assert_eq!(effects("hg up default"), vec!["write@vcs"]);
    assert_eq!(effects("hg push"), vec!["send@remote"]);
    assert!(has("hg clone https://x/y", "fetch@remote"));
    assert_eq!(effects("hg frob"), vec!["exec@none"]);
}

#[test]
fn svn_forms() {
    for line in [
        "svn revert -R .",
        "svn revert --recursive .",
        "svn revert --depth infinity .",
        "svn revert src/a.c",
        "svn cleanup --remove-unversioned",
        "svn cleanup --remove-ignored .",
    ] {
        assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
    }
    assert!(has("svn revert -R .", "overwrite@project"));
    assert!(has("svn cleanup --remove-unversioned", "delete@project"));
    assert!(has("svn rm src", "delete@source"));
    assert!(has(
        "svn delete https://svn/x/trunk -m bye",
        "history@remote"
    ));
    assert!(!has("svn delete --keep-local src", "delete@source"));
    assert!(has("svn commit -m x", "send@remote"));
    assert!(has("svn import . https://svn/x -m x", "send@remote"));
    assert!(has("svn co https://svn/x/trunk /tmp/t", "write@temp"));
    assert!(has("svn diff --diff-cmd 'rm -rf ~'", "delete@home"));
    for line in [
        "svn status",
        "svn st",
        "svn log -l 3",
        "svn info",
        "svn diff",
        "svn cat x",
    ] {
        assert_eq!(effects(line), Vec::<String>::new(), "{line}");
    }
    assert_eq!(effects("svn cleanup"), vec!["write@vcs"]);
}

#[test]
fn jj_forms() {
    for line in [
        "jj abandon",
        "jj abandon -r @-",
        "jj undo",
        "jj op restore abc",
        "jj op abandon ..@-",
        "jj restore",
        "jj restore --from @-- src/a.rs",
        "jj rebase -d main",
        "jj bookmark delete x",
        "jj branch forget x",
        "jj -R ../o abandon",
    ] {
        assert!(has(line, "history@vcs"), "{line}: {:?}", effects(line));
    }
    assert!(has("jj restore", "overwrite@project"));
    assert!(has("jj restore --from @-- src/a.rs", "overwrite@source"));
    assert!(has("jj -R ~ restore", "overwrite@home"));
    assert!(has("jj git push --deleted", "history@remote"));
    assert_eq!(effects("jj git push"), vec!["send@remote"]);
    assert_eq!(effects("jj git push --dry-run"), Vec::<String>::new());
    for line in [
        "jj st",
        "jj log -r ::@",
        "jj diff --git",
        "jj op log",
        "jj bookmark list",
    ] {
        assert_eq!(effects(line), Vec::<String>::new(), "{line}");
    }
    assert_eq!(effects("jj new main"), vec!["write@vcs"]);
    assert_eq!(effects("jj describe -m x"), vec!["write@vcs"]);
    assert_eq!(effects("jj frob"), vec!["exec@none"]);
    assert!(has(
        "jj --config ui.editor='rm -rf ~' describe",
        "opaque@none"
    ));
}
