//! Infrastructure as code and clusters: terraform/tofu/terragrunt (destroy, `apply -destroy`,
//! state surgery) and kubectl/oc (delete, drain, forced replace, scale to zero, pruning
//! apply), with plans, reads and dry runs benign.

use super::super::super::Sink;
use super::{words, Words};
use gate_spec::effect::{Act, Place};

pub(super) fn terraform(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(
        args,
        &["-chdir", "--terragrunt-working-dir", "--working-dir"],
    );
    let flag = |names: &[&str]| {
        args.iter().any(|a| {
            names
                .iter()
                .any(|n| a == n || a.starts_with(&format!("{n}=")))
        })
    };
    if flag(&["-help", "--help", "-h"]) {
        return;
    }
    // terragrunt: `run-all destroy`, `run --all -- destroy`, `stack run destroy`.
    let w: Vec<&str> = w
        .into_iter()
        .filter(|v| !matches!(*v, "run-all" | "run" | "stack"))
        .collect();
    match w.as_slice() {
        ["destroy", ..] => out.place(Act::CloudDelete, Place::Remote),
        ["apply", ..] if flag(&["-destroy", "--destroy"]) => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["apply", ..] => out.none(Act::Exec),
        ["state", "rm" | "replace-provider", ..]
        | ["workspace", "delete", ..]
        | ["taint", ..]
        | ["force-unlock", ..] => out.place(Act::CloudDelete, Place::Remote),
        ["state", "push", ..] if flag(&["-force", "--force"]) => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["state", "push" | "mv", ..]
        | ["import", ..]
        | ["untaint", ..]
        | ["workspace", "new", ..] => out.place(Act::Send, Place::Remote),
        ["init", ..] | ["get", ..] => {
            out.place(Act::Fetch, Place::Remote);
            out.path(Act::Write, ".terraform");
        }
        ["fmt", ..] if !flag(&["-check", "-diff", "--check"]) => out.path(Act::Write, "."),
        ["console", ..] | ["refresh", ..] => out.none(Act::Exec),
        _ => {}
    }
}

pub(super) const KUBE_VALUED: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "-l",
    "--selector",
    "-f",
    "--filename",
    "-o",
    "--output",
    "--field-selector",
    "-c",
    "--container",
    "--timeout",
    "--grace-period",
    "-p",
    "--patch",
    "--type",
    "--replicas",
    "--image",
    "-k",
    "--kustomize",
    "--values",
    "--set",
    "--version",
    "--repo",
    "-i",
];

pub(super) fn kubectl(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(args, KUBE_VALUED);
    // `--dry-run=client|server` changes nothing (`--dry-run=none` does).
    let dry = args
        .iter()
        .any(|a| a.starts_with("--dry-run") && !a.ends_with("=none"));
    if dry {
        return;
    }
    let value = |name: &str| -> Option<&str> {
        let eq = format!("{name}=");
        args.iter().enumerate().find_map(|(i, a)| {
            if let Some(v) = a.strip_prefix(&eq) {
                Some(v)
            } else if a == name {
                args.get(i + 1).map(|v| &**v)
            } else {
                None
            }
        })
    };
    let flag = |n: &str| {
        args.iter()
            .any(|a| a == n || a.starts_with(&format!("{n}=")))
    };
    match w.as_slice() {
        ["delete", ..] | ["drain", ..] => out.place(Act::CloudDelete, Place::Remote),
        ["replace", ..] if flag("--force") => out.place(Act::CloudDelete, Place::Remote),
        ["apply", ..] if flag("--prune") => out.place(Act::CloudDelete, Place::Remote),
        ["scale", ..] if value("--replicas").is_some_and(|r| r == "0") => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["config", v, ..] if v.starts_with("delete-") || *v == "unset" => {
            out.path(Act::Write, "~/.kube/config")
        }
        ["config", ..] => {}
        ["cp", from, to, ..] => {
            if to.contains(':') {
                out.place(Act::Send, Place::Remote);
                out.path(Act::Read, from);
            } else {
                out.place(Act::Fetch, Place::Remote);
                out.path(Act::Overwrite, to);
            }
        }
        ["get" | "describe" | "logs" | "top" | "explain" | "api-resources" | "api-versions"
        | "version" | "cluster-info" | "diff" | "events" | "wait" | "auth" | "completion"
        | "plugin" | "kustomize" | "options" | "help", ..]
        | [] => {}
        ["rollout", "status" | "history", ..] => {}
        ["exec" | "debug" | "run", ..] => {
            out.place(Act::Send, Place::Remote);
            // The command after `--` runs in the pod.
            if let Some(i) = args.iter().position(|a| a == "--") {
                let words: Vec<&str> = args[i + 1..].iter().map(|a| &**a).collect();
                if !words.is_empty() {
                    out.remote_script(&crate::shell::quote_argv(&words));
                }
            }
        }
        _ => out.place(Act::Send, Place::Remote),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn terraform_and_kubectl() {
        assert!(has("terraform -chdir=infra destroy", "cloud_delete@remote"));
        assert!(has("terragrunt run-all destroy", "cloud_delete@remote"));
        assert!(!has("terraform plan -destroy", "cloud_delete@remote"));
        assert!(has(
            "kubectl --namespace=prod delete pod x",
            "cloud_delete@remote"
        ));
        assert!(has(
            "kubectl scale --replicas=0 deploy/x",
            "cloud_delete@remote"
        ));
        assert!(!has(
            "kubectl scale --replicas=3 deploy/x",
            "cloud_delete@remote"
        ));
        assert!(!has(
            "kubectl delete pod x --dry-run=server",
            "cloud_delete@remote"
        ));
        assert_eq!(
            effects("kubectl get pods -n kube-system"),
            Vec::<String>::new()
        );
    }
}
