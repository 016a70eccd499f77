//! The cloud, storage and container CLIs by form: what the data in `commands/cloud.toml` and
//! `commands/containers.toml` makes of every spelling, and the listings that name every item.

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

#[test]
fn a_table_of_every_container_cut_to_its_ids_names_every_container() {
    // A table cut to its ids reads as the listing of ids itself.
    for (line, ids) in [
        (
            "docker container rm --force `docker ps -a | tail -n +2 | awk '{print $1}'`",
            "docker container rm --force `docker ps -aq`",
        ),
        (
            "docker image rm --force `docker images -a | tail -n +2 | awk '{print $3}'`",
            "docker image rm --force `docker images -aq`",
        ),
        (
            "docker rm -f $(docker ps -a | awk 'NR>1 {print $1}')",
            "docker rm -f $(docker ps -aq)",
        ),
        (
            "docker rmi $(docker images | sed 1d | awk '{print $3}')",
            "docker rmi $(docker images -q)",
        ),
    ] {
        assert_eq!(effects(line), effects(ids), "{line}");
    }
    // Rows a filter selects are not every item.
    for (line, ids) in [
        (
            "docker rmi -f $(docker images | grep '<none>' | awk '{print $3}')",
            "docker rmi -f $(docker images -q)",
        ),
        (
            "docker rm -f $(docker ps -a | grep Exited | awk '{print $1}')",
            "docker rm -f $(docker ps -aq)",
        ),
        (
            "docker rm -f $(docker ps -a | head -3 | awk '{print $1}')",
            "docker rm -f $(docker ps -aq)",
        ),
        (
            "docker rm -f $(docker ps -a | awk '/Exited/ {print $1}')",
            "docker rm -f $(docker ps -aq)",
        ),
    ] {
        assert_ne!(effects(line), effects(ids), "{line}");
    }
}

#[test]
fn every_container_a_listing_names() {
    for line in [
        "docker rm -f $(docker ps -aq)",
        "docker rm -f `docker ps -a -q`",
        "docker container rm -f $(docker container ls -aq)",
        "docker ps -aq | xargs docker rm -f",
        "sudo docker rm -vf $(sudo docker ps -qa)",
        "podman rm -f $(podman ps -aq)",
    ] {
        assert!(
            has(line, "cloud_delete@remote"),
            "{line}: {:?}",
            effects(line)
        );
        assert!(has(line, "kill_all@none"), "{line}: {:?}", effects(line));
    }
    assert!(has("docker stop $(docker ps -q)", "kill_all@none"));
    assert!(has("docker swarm leave --force", "cloud_delete@remote"));
    assert!(!has("docker swarm leave", "cloud_delete@remote"));
    assert!(has("docker kill $(docker ps -q)", "kill_all@none"));
    assert!(has(
        "docker rmi -f $(docker images -q)",
        "cloud_delete@remote"
    ));
    assert!(has(
        "docker volume rm $(docker volume ls -q)",
        "cloud_delete@remote"
    ));
    // A filtered listing names some: one container's worth.
    for line in [
        "docker rm $(docker ps -aq -f status=exited)",
        "docker rm -f $(docker ps -q --filter name=web)",
        "docker stop web",
        "docker rm -f web",
    ] {
        let e = effects(line);
        assert!(
            e.iter()
                .all(|e| e != "kill_all@none" && e != "cloud_delete@remote"),
            "{line}: {e:?}"
        );
    }
}

#[test]
fn docker_and_compose() {
    assert!(has(
        "docker system prune --all --force",
        "cloud_delete@remote"
    ));
    assert!(has("podman volume rm -f data", "cloud_delete@remote"));
    assert!(has(
        "docker compose -f x.yml down -v",
        "cloud_delete@remote"
    ));
    assert!(!has("docker compose down", "cloud_delete@remote"));
    assert!(!has("docker image prune -f", "cloud_delete@remote"));
    assert_eq!(effects("docker ps"), Vec::<String>::new());
}
