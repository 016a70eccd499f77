//! Object stores and the aws CLI: `aws s3 rm/rb`, `s3 sync --delete`, any `delete-*`/
//! `terminate-*`/`remove-*` operation, gsutil `rm`/`rb`/`rsync -d`; copies read or overwrite
//! their local side.

use super::super::super::Sink;
use super::{is_dry, transfer, words, Words};
use gate_spec::effect::{Act, Place};

pub(super) fn aws(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(
        args,
        &[
            "--profile",
            "--region",
            "--output",
            "--endpoint-url",
            "--query",
            "--cli-input-json",
            "--ca-bundle",
            "--color",
            "--cli-read-timeout",
            "--cli-connect-timeout",
            "--bucket",
            "--key",
            "--exclude",
            "--include",
            "--storage-class",
            "--acl",
            "--sse",
            "--content-type",
            "--cache-control",
            "--expires",
            "--metadata",
            "--grants",
            "--page-size",
            "--instance-ids",
            "--function-name",
            "--stack-name",
            "--name",
            "--table-name",
            "--cluster",
            "--service",
        ],
    );
    if is_dry(args) {
        return;
    }
    let flag = |n: &str| args.iter().any(|a| a == n);
    let s3 = |s: &str| s.starts_with("s3://");
    match w.as_slice() {
        ["s3", "rm" | "rb", ..] => out.place(Act::CloudDelete, Place::Remote),
        ["s3", "sync", src, dest, ..] => {
            transfer(out, src, dest, s3);
            if flag("--delete") {
                if s3(dest) {
                    out.place(Act::CloudDelete, Place::Remote);
                } else {
                    out.path(Act::Delete, dest);
                }
            }
        }
        ["s3", "cp", src, dest, ..] => transfer(out, src, dest, s3),
        ["s3", "mv", src, dest, ..] => {
            transfer(out, src, dest, s3);
            if s3(src) {
                out.place(Act::CloudDelete, Place::Remote);
            } else {
                out.path(Act::Move, src);
            }
        }
        ["s3", "ls" | "presign", ..] | ["s3"] => {}
        ["s3", "mb" | "website", ..] => out.place(Act::Send, Place::Remote),
        ["configure", "export-credentials", ..] => out.path(Act::Read, "~/.aws/credentials"),
        ["configure", "get" | "list" | "list-profiles", ..] => {}
        ["configure", ..] => out.path(Act::Write, "~/.aws/credentials"),
        [_, op, ..] => {
            const DELETES: &[&str] = &[
                "delete-",
                "terminate-",
                "remove-",
                "deregister-",
                "purge-",
                "destroy-",
                "revoke-",
                "disable-",
                "detach-",
                "cancel-",
                "stop-",
                "reset-",
                "batch-delete",
                "empty-",
            ];
            // `schedule-key-deletion`: a key deleted destroys what it encrypts.
            let deletion = op.split('-').any(|w| w == "deletion");
            if (deletion || DELETES.iter().any(|p| op.starts_with(p)))
                && !op.starts_with("stop-logging")
            {
                out.place(Act::CloudDelete, Place::Remote);
            } else if [
                "describe-",
                "list-",
                "get-",
                "head-",
                "lookup-",
                "search-",
                "scan",
                "query",
                "select-",
                "filter-",
                "batch-get",
                "validate-",
                "estimate-",
                "test-",
                "simulate-",
                "wait",
                "help",
            ]
            .iter()
            .any(|p| op.starts_with(p))
            {
                if op.starts_with("get-secret-value") || op.starts_with("get-parameter") {
                    out.place(Act::Fetch, Place::Remote);
                }
            } else {
                out.place(Act::Send, Place::Remote);
                // What the generic reading finds (an administrator policy attached), and
                // code sent to instances (`ssm send-command --parameters commands=…`).
                super::super::unmodelled_operation(args, out);
            }
        }
        _ => {}
    }
}

pub(super) fn gsutil(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(args, &["-h", "-o", "-u", "-i"]);
    let gs = |s: &str| s.contains("://");
    let Some((sub, rest)) = w.split_first() else {
        return;
    };
    let flag = |n: &str| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(n))
    };
    if flag("n") && *sub == "rsync" {
        return;
    }
    match *sub {
        "rm" | "rb" => out.place(Act::CloudDelete, Place::Remote),
        "rsync" | "cp" | "mv" => {
            if let [.., src, dest] = rest {
                transfer(out, src, dest, gs);
                let deletes = *sub == "rsync" && flag("d") || *sub == "mv" && gs(src);
                if deletes && (gs(dest) || *sub == "mv") {
                    out.place(Act::CloudDelete, Place::Remote);
                } else if deletes {
                    out.path(Act::Delete, dest);
                }
                if *sub == "mv" && !gs(src) {
                    out.path(Act::Move, src);
                }
            }
        }
        "ls" | "cat" | "du" | "stat" | "hash" | "version" | "help" | "config" => {}
        _ => out.place(Act::Send, Place::Remote),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn aws_and_gsutil() {
        assert!(has("aws s3 rm --recursive s3://b", "cloud_delete@remote"));
        assert!(has(
            "aws lambda delete-function --function-name f",
            "cloud_delete@remote"
        ));
        assert!(!has("aws s3 sync . s3://b", "cloud_delete@remote"));
        assert!(has("aws s3 sync . s3://b", "send@remote"));
        assert!(has("gsutil -m rsync -r -d . gs://b", "cloud_delete@remote"));
        assert!(!has("gsutil rsync -r . gs://b", "cloud_delete@remote"));
        assert_eq!(
            effects("aws ec2 describe-instances --region x"),
            Vec::<String>::new()
        );
    }
}
