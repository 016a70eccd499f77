//! Forge CLIs (gh, glab, tea, hub's GitHub commands): what deletes hosted resources (`repo delete`, `secret
//! delete`, `api -X DELETE` → `cloud_delete`), what withdraws or makes releases
//! (`unpublish` / `publish`), what changes things remotely (`send`), and what only reads.

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use super::super::super::Sink;
use gate_spec::effect::{Act, Place};

/// Options before or between the group and the verb that take a value.
const VALUED: &[&str] = &["-R", "--repo", "--hostname", "-g", "--group", "--login"];

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

/// `gh`/`glab`/`tea ARGS…`.
pub(super) fn model(program: &str, args: &[Cow<'_, str>], out: &mut Sink) {
    let mut words = Vec::with_capacity(3);
    let mut k = 0;
    let mut verb_at = args.len();
    while let Some(a) = args.get(k) {
        k += 1;
        if VALUED.contains(&&**a) {
            k += 1;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        words.push(&**a);
        if words.len() == 2 {
            verb_at = k;
        }
        if words.len() == 3 {
            break;
        }
    }
    let group = words.first().copied().unwrap_or("");
    let verb = words.get(1).copied().unwrap_or("");
    let rest = &args[verb_at.min(args.len())..];
    let flag = |names: &[&str]| args.iter().any(|a| names.contains(&&**a));
    let group = match group {
        "pr" | "mr" | "pull" | "pulls" => "pr",
        "variable" | "secret" | "variables" | "secrets" => "secret",
        "run" | "ci" | "pipeline" | "schedule" | "actions" => "run",
        "repo" | "repos" => "repo",
        "project" if program != "gh" => "repo",
        "release" | "releases" => "release",
        "issue" | "issues" => "issue",
        "label" | "labels" => "label",
        "extension" | "ext" | "extensions" => "extension",
        "codespace" | "cs" => "codespace",
        "ssh-key" | "gpg-key" | "deploy-key" | "key" => "key",
        g => g,
    };
    let deletes = matches!(verb, "delete" | "remove" | "rm" | "del" | "destroy");
    match group {
        "api" => api(&args[1.min(args.len())..], out),
        "release" => match verb {
            v if deletes || v == "delete-asset" => out.place(Act::Unpublish, Place::Nowhere),
            "create" | "new" | "upload" | "edit" => {
                out.place(Act::Publish, Place::Nowhere);
                // Assets after the tag are read and uploaded.
                for f in rest.iter().skip(1).filter(|a| !a.starts_with('-')) {
                    out.path(Act::Read, f.split('#').next().unwrap_or(f));
                }
            }
            "download" => {
                out.place(Act::Fetch, Place::Remote);
                out.path(Act::Write, ".");
            }
            _ => {}
        },
        "repo" => match verb {
            _ if deletes => out.place(Act::CloudDelete, Place::Remote),
            "clone" => {
                out.place(Act::Fetch, Place::Remote);
                let dest = rest.iter().filter(|a| !a.starts_with('-')).nth(1);
                let name = words
                    .get(2)
                    .and_then(|r| r.rsplit('/').next())
                    .unwrap_or(".");
                out.path(Act::Write, dest.map_or(name, |d| &**d));
            }
            "deploy-key" | "autolink" if words.get(2).is_some_and(|w| *w == "delete") => {
                out.place(Act::CloudDelete, Place::Remote)
            }
            "sync" if flag(&["--force"]) => {
                out.place(Act::Send, Place::Remote);
                out.place(Act::History, Place::Remote);
            }
            "view" | "list" | "search" | "" | "gitignore" | "license" | "contributors" => {}
            "archive" if program == "glab" => out.place(Act::Fetch, Place::Remote),
            _ => out.place(Act::Send, Place::Remote),
        },
        "secret" | "label" | "key" | "cache" | "codespace" | "gist" | "project" | "run"
        | "issue" | "workflow" | "snippet" | "ruleset" | "token" | "cluster" | "environment" => {
            match verb {
                _ if deletes || verb.ends_with("-delete") => {
                    out.place(Act::CloudDelete, Place::Remote)
                }
                "list" | "ls" | "view" | "get" | "status" | "watch" | "trace" | "lint"
                | "export" | "check" | "" => {}
                "download" | "clone" => {
                    out.place(Act::Fetch, Place::Remote);
                    out.path(Act::Write, ".");
                }
                "revoke" => out.place(Act::CloudDelete, Place::Remote),
                "create" | "new" | "edit" | "set" | "add" | "cp" => {
                    out.place(Act::Send, Place::Remote);
                    if group == "gist" || group == "codespace" {
                        for f in rest
                            .iter()
                            .filter(|a| !a.starts_with('-') && !a.contains(':'))
                        {
                            out.path(Act::Read, f);
                        }
                    }
                    if let Some(f) = value_of(args, &["-f", "--env-file", "--body-file"]) {
                        out.path(Act::Read, f);
                    }
                }
                _ => out.place(Act::Send, Place::Remote),
            }
        }
        "pr" => match verb {
            "list" | "view" | "diff" | "status" | "checks" | "" => {}
            "checkout" | "co" => {
                out.place(Act::Fetch, Place::Remote);
                out.path(Act::Write, ".git");
                if flag(&["-f", "--force"]) {
                    out.path(Act::History, ".git");
                }
            }
            "close" if flag(&["-d", "--delete-branch", "--delete-source-branch"]) => {
                out.place(Act::Send, Place::Remote);
                out.place(Act::History, Place::Remote);
            }
            // Merging past the branch's protection (`--admin`) publishes to the shared branch
            // what its review would have held back.
            "merge" if flag(&["--admin"]) => {
                out.place(Act::Send, Place::Remote);
                out.none(Act::Publish);
            }
            _ if deletes => out.place(Act::CloudDelete, Place::Remote),
            _ => out.place(Act::Send, Place::Remote),
        },
        "auth" => match verb {
            "token" => out.path(Act::Read, "~/.config/gh/hosts.yml"),
            "status" if flag(&["-t", "--show-token"]) => {
                out.path(Act::Read, "~/.config/gh/hosts.yml")
            }
            "status" | "" => {}
            _ => out.path(Act::Write, "~/.config/gh/hosts.yml"),
        },
        "extension" => match verb {
            "install" | "upgrade" => {
                out.place(Act::Fetch, Place::Remote);
                out.path(Act::Write, "~/.local/share/gh/extensions");
            }
            "remove" => out.path(Act::Delete, "~/.local/share/gh/extensions"),
            "list" | "search" | "browse" | "" => {}
            _ => out.none(Act::Exec),
        },
        "alias" | "config" => match verb {
            "list" | "get" | "" => {}
            _ => out.path(Act::Write, "~/.config/gh/config.yml"),
        },
        "browse" | "status" | "search" | "help" | "version" | "completion" | "org"
        | "attestation" | "--version" | "" => {}
        _ => out.none(Act::Exec),
    }
}

/// The value of the first of `names` on the line.
fn value_of<'c>(args: &'c [Cow<'_, str>], names: &[&str]) -> Option<&'c str> {
    let i = args.iter().position(|a| names.contains(&&**a))?;
    args.get(i + 1).map(|v| &**v)
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
