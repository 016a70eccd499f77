//! The forge CLIs' words that need reading (gh, glab, tea; their forms are data in
//! `commands/forge.toml`): `api` calls by their method (DELETE → `cloud_delete`, a body →
//! `send`, else `fetch`) and the files they send, a release's assets, a clone's
//! destination. Each is an analyser reached by name.

use std::borrow::Cow;

use super::super::super::getopt::{self, Args, Grammar};
use super::super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

const API: Grammar = Grammar {
    short: "iv",
    short_value: "XfFHqtpP",
    long: &["paginate", "include", "silent", "verbose", "slurp"],
    long_value: &[
        "method",
        "raw-field",
        "field",
        "input",
        "header",
        "jq",
        "template",
        "preview",
        "hostname",
        "cache",
    ],
    posix: false,
};

/// What each analyser is given (see `table::analysers::Analyser`).
type Words<'c, 'a> = &'c [Cow<'a, str>];

/// `gh api …`: the words after `api`, read with its own options.
pub(crate) fn api_call(cmd: &Cmd<'_, '_>, _: &Args<'_>, _: Words<'_, '_>, out: &mut Sink) {
    if let Some(i) = cmd.args.iter().position(|a| a == "api") {
        api(&cmd.args[i + 1..], out);
    }
}

/// `gh release create|upload TAG ASSET…`: each asset after the tag is read (a `#label`
/// after it names the asset, not the file).
pub(crate) fn assets(_: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    for f in rest.iter().skip(1) {
        out.path(Act::Read, f.split('#').next().unwrap_or(f));
    }
}

/// `gh repo clone REPO [DIR]`: fetched into DIR, else into the repository's name.
pub(crate) fn clone(_: &Cmd<'_, '_>, _: &Args<'_>, rest: Words<'_, '_>, out: &mut Sink) {
    out.place(Act::Fetch, Place::Remote);
    let name = rest
        .first()
        .and_then(|r| r.rsplit('/').next())
        .unwrap_or(".");
    out.path(Act::Write, rest.get(1).map_or(name, |d| &**d));
}

/// `gh api`/`glab api`: the method decides (DELETE → `cloud_delete`, a body → `send`,
/// otherwise a `fetch`); files given as fields or input are read.
fn api(args: &[Cow<'_, str>], out: &mut Sink) {
    let a = getopt::read(&API, args);
    let method = a
        .value("X")
        .or(a.value("method"))
        .map(str::to_ascii_uppercase);
    let fields: Vec<&str> = a.values(&["f", "F", "field", "raw-field"]).collect();
    for f in a.values(&["F", "field"]) {
        if let Some((_, v)) = f.split_once("=@") {
            out.path(Act::Read, v);
        }
    }
    if let Some(f) = a.value("input") {
        if f != "-" {
            out.path(Act::Read, f);
        }
    }
    // A ref set with `force` (`PATCH repos/o/r/git/refs/heads/main -F force=true`) is a
    // forced push: the commits it leaves behind are gone from the branch.
    let endpoint = a.operands.first().map(|e| &**e).unwrap_or("");
    let forced = fields
        .iter()
        .any(|f| f.eq_ignore_ascii_case("force=true") || f.eq_ignore_ascii_case("force=1"));
    if endpoint.contains("git/refs") && forced && method.as_deref() != Some("GET") {
        out.place(Act::History, Place::Remote);
    }
    match method.as_deref() {
        Some("DELETE") => out.place(Act::CloudDelete, Place::Remote),
        Some("GET" | "HEAD") => out.place(Act::Fetch, Place::Remote),
        Some(_) => out.place(Act::Send, Place::Remote),
        None if !fields.is_empty() || a.has("input") => out.place(Act::Send, Place::Remote),
        None => out.place(Act::Fetch, Place::Remote),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn a_ref_forced_through_the_api_is_a_forced_push() {
        for line in [
            "gh api repos/o/r/git/refs/heads/main -X PATCH -f sha=abc -F force=true",
            "gh api -X PATCH \"repos/${OWNER}/r/git/refs/heads/${BRANCH}\" -f \"sha=${SHA}\" -F \"force=true\"",
        ] {
            assert!(has(line, "history@remote"), "{line}: {:?}", effects(line));
        }
        assert!(!has(
            "gh api repos/o/r/git/refs/heads/main -X PATCH -f sha=abc",
            "history@remote"
        ));
        assert!(!has(
            "gh api repos/o/r/git/refs/heads/main",
            "history@remote"
        ));
    }

    #[test]
    fn hub_deletes_repositories_and_speaks_gh() {
        for line in [
            "hub delete -y owner/repo",
            "hub delete repo",
            "sudo hub delete -y o/r",
        ] {
            assert!(
                has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
        assert!(has("hub api -X DELETE repos/o/r", "cloud_delete@remote"));
        // Otherwise it is git.
        assert!(has("hub push --force origin main", "history@remote"));
        assert!(!has("hub clone o/r", "cloud_delete@remote"));
        assert!(!has("hub delete --help", "cloud_delete@remote"));
    }

    #[test]
    fn deletions_of_hosted_resources() {
        for line in [
            "gh repo delete o/r --yes",
            "gh repo delete --yes o/r",
            "gh -R o/r secret delete TOKEN",
            "gh secret remove TOKEN",
            "gh variable delete X",
            "gh issue delete 12 --yes",
            "gh run delete 123",
            "gh cache delete --all",
            "gh gist delete abc",
            "gh label delete bug",
            "gh ssh-key delete 1",
            "gh repo deploy-key delete 1",
            "gh codespace delete --all",
            "gh project item-delete 1",
            "gh api -X DELETE repos/o/r",
            "gh api --method delete /repos/o/r/git/refs/heads/x",
            "gh api --meth=DELETE repos/o/r",
            "glab repo delete g/p",
            "glab variable delete X",
            "glab ci delete 1",
            "glab api -X DELETE projects/1",
            "sudo gh repo delete o/r --yes",
        ] {
            assert!(
                has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn releases() {
        for line in [
            "gh release delete v1.0 --yes",
            "gh release delete-asset v1 a.zip",
            "glab release delete v1",
            "tea releases delete v1",
        ] {
            assert!(has(line, "unpublish@none"), "{line}: {:?}", effects(line));
        }
        for line in [
            "gh release create v1.0 --notes x",
            "gh release create v1.0 dist/a.tgz",
            "gh release upload v1 dist/a.tgz",
            "glab release create v1",
        ] {
            assert!(has(line, "publish@none"), "{line}: {:?}", effects(line));
        }
        assert!(has("gh release create v1 .env", "read@secrets"));
    }

    #[test]
    fn remote_changes_and_reads() {
        assert_eq!(effects("gh pr create --fill"), vec!["send@remote"]);
        assert_eq!(effects("gh pr merge 12 --squash"), vec!["send@remote"]);
        assert!(has("gh pr merge 12 --admin --squash", "publish@none"));
        assert!(has("gh pr close 12 --delete-branch", "history@remote"));
        assert_eq!(effects("gh secret set TOKEN -b x"), vec!["send@remote"]);
        assert!(has("gh secret set KEY -f .env", "read@secrets"));
        assert!(has("gh gist create .env", "read@secrets"));
        assert!(has("gh gist create .env", "send@remote"));
        assert!(has("gh api repos/o/r/issues -F body=@.env", "read@secrets"));
        assert!(has("gh api repos/o/r/issues -f title=x", "send@remote"));
        assert_eq!(effects("gh api repos/o/r"), vec!["fetch@remote"]);
        assert!(has("gh repo clone o/r", "fetch@remote"));
        assert!(has("gh repo clone o/r /tmp/r", "write@temp"));
        assert!(has("gh auth token", "read@secrets") || has("gh auth token", "read@dotfiles"));
        assert!(has("gh repo sync --force", "history@remote"));
        assert!(has("gh pr checkout 12 --force", "history@vcs"));
        for line in [
            "gh pr list",
            "gh pr view 12 --web",
            "gh pr diff 12",
            "gh pr checks",
            "gh issue list --state open",
            "gh issue view 3",
            "gh run list",
            "gh run view 1 --log",
            "gh run watch",
            "gh release list",
            "gh release view v1",
            "gh repo view",
            "gh secret list",
            "gh auth status",
            "gh status",
            "gh --version",
            "glab mr list",
            "glab ci status",
            "glab ci view",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
        assert_eq!(effects("gh frobnicate"), vec!["exec@none"]);
    }
}
