//! Cloud CLIs modelled in code: object storage (aws, gsutil), and which container listings
//! name every container. The other cloud, cluster, PaaS and container CLIs are data
//! (`commands/cloud.toml`, `commands/orchestration.toml`, `commands/containers.toml`).
//!
//! Deleting resources is `cloud_delete` at `remote`; changing them is a `send`; listing and
//! describing are benign. Dry runs delete nothing.

use std::borrow::Cow;

mod containers;
mod storage;

pub(super) use containers::lists_every as containers_list_every;
pub(super) use containers::lists_every_row as containers_list_every_row;
use storage::{aws, gsutil};

use super::super::{Cmd, Sink};
use gate_spec::effect::{Act, Place};

pub(super) type Words<'c, 'a> = &'c [Cow<'a, str>];

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args = cmd.args;
    match cmd.program {
        "aws" | "awslocal" => aws(args, out),
        "gsutil" => gsutil(args, out),
        _ => return false,
    }
    true
}

/// The non-option words of a command line, skipping the values of options in `valued`
/// (separate from them; `--opt=value` is one word).
fn words<'c>(args: Words<'c, '_>, valued: &[&str]) -> Vec<&'c str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" {
            break;
        }
        if a.starts_with('-') {
            if valued.contains(&&**a) {
                k += 1;
            }
            continue;
        }
        out.push(&**a);
    }
    out
}

pub(super) fn is_dry(args: Words<'_, '_>) -> bool {
    args.iter().any(|a| {
        matches!(
            &**a,
            "--dry-run" | "--dryrun" | "-dry-run" | "--preview-only" | "--what-if"
        ) || a.starts_with("--dry-run=")
    })
}

/// A copy between local paths and a remote store (`is_remote` tells which is which).
pub(super) fn transfer(out: &mut Sink, src: &str, dest: &str, is_remote: impl Fn(&str) -> bool) {
    if is_remote(src) {
        out.place(Act::Fetch, Place::Remote);
    } else if src != "-" {
        out.path(Act::Read, src);
    }
    if is_remote(dest) {
        out.place(Act::Send, Place::Remote);
    } else if dest == "." || dest == "./" || (dest.ends_with('/') && dest != "/") {
        // Into a directory: the copy lands under it, named as the source.
        let name = src
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()
            .unwrap_or("");
        if name.is_empty() || name == "*" {
            out.path(Act::Write, dest);
        } else {
            out.path(
                Act::Overwrite,
                &format!("{}/{name}", dest.trim_end_matches('/')),
            );
        }
    } else if dest != "-" {
        out.path(Act::Overwrite, dest);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{effects, has};

    #[test]
    fn deletions_in_every_cli() {
        for line in [
            "terraform destroy",
            "terraform destroy -auto-approve",
            "terraform -chdir=infra destroy",
            "terraform apply -destroy -auto-approve",
            "tofu destroy",
            "terragrunt run-all destroy",
            "terraform state rm aws_s3_bucket.b",
            "terraform state push -force x.tfstate",
            "terraform workspace delete prod",
            "terraform taint aws_instance.a",
            "terraform force-unlock 123",
            "pulumi destroy --yes",
            "pulumi stack rm prod",
            "cdk destroy --force",
            "serverless remove --stage prod",
            "kubectl delete ns prod",
            "kubectl delete pods --all -A",
            "kubectl -n prod delete deploy api",
            "kubectl --context prod delete -f k8s/",
            "kubectl drain node-1 --ignore-daemonsets",
            "kubectl replace --force -f x.yaml",
            "kubectl scale deploy api --replicas=0",
            "kubectl scale deploy api --replicas 0",
            "kubectl apply --prune -l app=x -f .",
            "oc delete project x",
            "helm uninstall api -n prod",
            "helm delete api",
            "aws s3 rm s3://b/x",
            "aws s3 rm s3://b --recursive",
            "aws s3 rb s3://b --force",
            "aws s3 sync . s3://b --delete",
            "aws --profile prod s3api delete-bucket --bucket b",
            "aws ec2 terminate-instances --instance-ids i-1",
            "aws rds delete-db-instance --db-instance-identifier x",
            "aws kms schedule-key-deletion --key-id 1234 --pending-window-in-days 7",
            "wrangler delete --name worker",
            "wrangler r2 bucket delete prod",
            "wrangler kv namespace delete --namespace-id abc",
            "aws iam remove-user-from-group --user-name u --group-name g",
            "aws sqs purge-queue --queue-url u",
            "gcloud projects delete p",
            "gcloud compute instances delete vm --zone z",
            "gcloud storage rm -r gs://b",
            "gsutil rm -r gs://b",
            "gsutil -m rm gs://b/**",
            "gsutil rb gs://b",
            "gsutil rsync -d -r . gs://b",
            "az group delete -n rg --yes",
            "az storage blob delete-batch -s c",
            "doctl compute droplet delete d1",
            "fly apps destroy app",
            "flyctl destroy app -y",
            "heroku apps:destroy -a app --confirm app",
            "heroku pg:reset DATABASE_URL",
            "vercel rm my-app --yes",
            "vercel env rm KEY production",
            "netlify sites:delete id",
            "firebase firestore:delete --all-collections",
            "firebase database:remove /",
            "firebase hosting:disable",
            "docker system prune -af --volumes",
            "docker volume prune -f",
            "docker volume rm data",
            "docker image prune -a",
            "docker container prune",
            "docker network prune",
            "docker rm -fv web",
            "podman system prune",
            "docker compose down -v",
            "docker compose down --volumes",
            "docker-compose down -v --remove-orphans",
            "docker-compose rm -fv",
            "eksctl delete cluster --name x",
            "kind delete cluster",
            "minikube delete --all",
            "k3d cluster delete x",
            "vagrant destroy -f",
            "ansible all -m file -a 'path=/data state=absent'",
            "nomad job stop -purge api",
            "sudo docker system prune -a",
            "bash -c 'kubectl delete ns prod'",
        ] {
            assert!(
                has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn reads_and_dry_runs_are_benign() {
        for line in [
            "terraform plan",
            "terraform plan -destroy",
            "terraform show",
            "terraform output -json",
            "terraform state list",
            "terraform validate",
            "terraform destroy -help",
            "pulumi preview",
            "pulumi destroy --preview-only",
            "kubectl get pods -A",
            "kubectl -n prod describe deploy api",
            "kubectl logs -f api-1",
            "kubectl delete ns x --dry-run=client",
            "kubectl config use-context prod",
            "kubectl rollout status deploy/api",
            "helm list -A",
            "helm status api",
            "helm template .",
            "helm uninstall api --dry-run",
            "aws s3 ls s3://b",
            "aws s3 rm s3://b --recursive --dryrun",
            "aws ec2 describe-instances",
            "aws sts get-caller-identity",
            "aws ec2 terminate-instances --instance-ids i-1 --dry-run",
            "gcloud compute instances list",
            "gcloud config list",
            "gsutil ls gs://b",
            "az group list",
            "az vm show -n x -g rg",
            "doctl compute droplet list",
            "docker ps -a",
            "docker images",
            "docker compose ps",
            "docker compose down",
            "docker compose logs -f",
            "docker system df",
            "docker image prune",
            "docker volume ls",
            "docker inspect x",
            "minikube status",
            "kind get clusters",
            "fly status",
        ] {
            let e = effects(line);
            assert!(
                e.iter()
                    .all(|x| x.starts_with("read@") || x.starts_with("fetch@")),
                "{line}: {e:?}"
            );
        }
    }

    #[test]
    fn changes_copies_and_workloads() {
        assert_eq!(effects("kubectl apply -f k8s/"), vec!["send@remote"]);
        assert_eq!(
            effects("helm upgrade --install api ./chart"),
            vec!["send@remote"]
        );
        assert_eq!(effects("terraform apply"), vec!["exec@none"]);
        assert!(has("terraform init", "fetch@remote"));
        assert!(has("aws s3 cp .env s3://b/", "read@secrets"));
        assert!(has("aws s3 cp .env s3://b/", "send@remote"));
        assert!(has("aws s3 cp s3://b/x ~/.bashrc", "overwrite@dotfiles"));
        assert!(has("aws s3 sync s3://b ./data --delete", "delete@source"));
        assert!(has("gsutil cp .env gs://b", "read@secrets"));
        assert!(has("kubectl cp .env pod:/tmp/x", "read@secrets"));
        assert!(has("docker rm -f web", "kill@none"));
        // A stopped container is disposable: removing it is not a cloud delete.
        assert!(!has("docker rm web", "cloud_delete@remote"));
        assert!(!has("docker rm -f web", "cloud_delete@remote"));
        assert_eq!(effects("docker stop web"), vec!["kill@none"]);
        assert_eq!(effects("docker run --rm -it alpine sh"), vec!["exec@none"]);
        assert!(has("ansible all -m shell -a 'uptime'", "send@remote"));
        assert!(!has(
            "ansible all -m shell -a 'uptime'",
            "cloud_delete@remote"
        ));
    }
}
