//! Container engines and compose: prunes, volume and container removal, `compose down -v`
//! (`cloud_delete`), kills and stops, and the read-only listings; every container or image
//! a listing names, removed or stopped, is all of them (`cloud_delete`, `kill_all`).

use super::super::super::{Sink, EVERY_LISTED};
use super::{words, Words};
use gate_spec::effect::{Act, Place};

pub(super) fn docker(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(
        args,
        &[
            "-H",
            "--host",
            "--context",
            "-c",
            "--config",
            "-l",
            "--log-level",
            "-f",
            "--filter",
            "--format",
            "-t",
            "--tag",
            "--name",
            "-v",
            "--volume",
            "-e",
            "--env",
            "-p",
            "--publish",
            "-w",
            "--workdir",
            "-u",
            "--user",
            "--network",
            "--platform",
            "--env-file",
            "--entrypoint",
            "-m",
            "--memory",
            "--mount",
            "--label",
            "--file",
            "--project-name",
            "--profile",
            "--build-arg",
            "--target",
            "--time",
            "--signal",
            "-s",
        ],
    );
    let flag = |names: &[&str]| has_flag(args, names);
    // Handed every item a listing names (`docker rm -f $(docker ps -aq)`).
    let every = args.iter().any(|a| a == EVERY_LISTED);
    if let Some(&keyword @ ("exec" | "run")) = w.first() {
        in_container(args, keyword, out);
        return;
    }
    if matches!(w.as_slice(), ["system", "reset", ..]) {
        // podman: every container, image and volume.
        out.place(Act::CloudDelete, Place::Remote);
        return;
    }
    match w.as_slice() {
        ["compose", ..] => compose(&args[1.min(args.len())..], out),
        ["system", "prune", ..]
        | ["volume", "prune" | "rm" | "remove", ..]
        | ["container" | "network", "prune", ..] => out.place(Act::CloudDelete, Place::Remote),
        ["image" | "builder" | "buildx", "prune", ..] => {
            if flag(&["-a", "--all"]) {
                out.place(Act::CloudDelete, Place::Remote);
            }
        }
        ["rm", ..] | ["container", "rm" | "remove", ..] => {
            // A container is disposable; its anonymous volumes (`-v`) hold data. Every
            // container there is, removed, is what `system prune` removes and more.
            if flag(&["-v", "--volumes"]) || every {
                out.place(Act::CloudDelete, Place::Remote);
            }
            if flag(&["-f", "--force"]) {
                out.none(if every { Act::KillAll } else { Act::Kill });
            }
        }
        // A manager leaving by force takes the swarm's state (services, secrets) with it.
        ["swarm", "leave", ..] if flag(&["-f", "--force"]) => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["network" | "secret" | "config" | "context" | "plugin" | "service" | "stack" | "node", "rm" | "remove", ..] => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["kill", ..] | ["stop", ..] | ["container", "kill" | "stop", ..] => {
            out.none(if every { Act::KillAll } else { Act::Kill })
        }
        ["rmi", ..] | ["image", "rm" | "remove", ..] if every => {
            out.place(Act::CloudDelete, Place::Remote)
        }
        ["rmi", ..] | ["image", "rm" | "remove", ..] => out.place(Act::Send, Place::Remote),
        ["pull", ..] | ["image", "pull", ..] => out.place(Act::Fetch, Place::Remote),
        ["login", ..] => out.path(Act::Write, "~/.docker/config.json"),
        ["logout", ..] => out.path(Act::Write, "~/.docker/config.json"),
        ["cp", from, to, ..] => {
            if to.contains(':') {
                out.path(Act::Read, from);
            } else {
                out.path(Act::Overwrite, to);
            }
        }
        ["save", ..] | ["export", ..] => {
            if let Some(i) = args.iter().position(|a| a == "-o" || a == "--output") {
                if let Some(f) = args.get(i + 1) {
                    out.path(Act::Overwrite, f);
                }
            }
        }
        ["ps" | "images" | "logs" | "inspect" | "version" | "info" | "stats" | "top" | "events"
        | "history" | "search" | "port" | "diff" | "help", ..]
        | [_, "ls" | "list" | "inspect" | "logs" | "ps" | "df" | "history", ..]
        | ["system", "info", ..]
        | [] => {}
        _ => out.none(Act::Exec),
    }
}

/// `docker exec [OPTIONS] CONTAINER COMMAND…`, `docker run [OPTIONS] IMAGE COMMAND…` and
/// compose's `exec`/`run SERVICE COMMAND…`: the command runs in the container, whose files
/// (and the volumes mounted there) are not this machine's.
fn in_container(args: Words<'_, '_>, keyword: &str, out: &mut Sink) {
    const VALUED: &[&str] = &[
        "-e",
        "--env",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "--env-file",
        "--detach-keys",
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--name",
        "--entrypoint",
        "-l",
        "--label",
        "--network",
        "--net",
        "--mount",
        "-m",
        "--memory",
        "--platform",
        "--pull",
        "-h",
        "--hostname",
        "--add-host",
        "--device",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--ulimit",
        "--restart",
        "--log-driver",
        "--log-opt",
        "--cpus",
        "--gpus",
        "--shm-size",
        "--tmpfs",
        "--workdir",
        "--index",
    ];
    out.none(Act::Exec);
    let Some(start) = args.iter().position(|a| a == keyword) else {
        return;
    };
    let mut k = start + 1;
    while let Some(a) = args.get(k) {
        if VALUED.contains(&&**a) {
            k += 2;
        } else if a.starts_with('-') {
            k += 1;
        } else {
            break;
        }
    }
    // `args[k]` is the container, image or service; the rest is the command.
    let words: Vec<&str> = args.iter().skip(k + 1).map(|a| &**a).collect();
    if !words.is_empty() {
        out.remote_script(&crate::shell::quote_argv(&words));
    }
}

pub(super) fn compose(args: Words<'_, '_>, out: &mut Sink) {
    let w = words(
        args,
        &[
            "-f",
            "--file",
            "-p",
            "--project-name",
            "--profile",
            "--env-file",
            "--project-directory",
            "-t",
            "--timeout",
            "--rmi",
        ],
    );
    let flag = |names: &[&str]| has_flag(args, names);
    match w.as_slice() {
        ["down", ..] => {
            if flag(&["-v", "--volumes"]) || args.iter().any(|a| a.starts_with("--rmi")) {
                out.place(Act::CloudDelete, Place::Remote);
            }
        }
        ["rm", ..] => {
            if flag(&["-v", "--volumes"]) {
                out.place(Act::CloudDelete, Place::Remote);
            }
        }
        ["kill" | "stop", ..] => out.none(Act::Kill),
        [keyword @ ("exec" | "run"), ..] => in_container(args, keyword, out),
        ["push", ..] => out.none(Act::Publish),
        ["pull", ..] => out.place(Act::Fetch, Place::Remote),
        ["ps" | "logs" | "config" | "ls" | "images" | "top" | "version" | "port" | "events", ..]
        | [] => {}
        _ => out.none(Act::Exec),
    }
}

/// Whether one of `names` is given: a long option as written, or a short one alone or in a
/// bundle (`-fv` gives `-v`).
/// Whether `docker ARGS` lists every container, image, volume or network, one id a line
/// (`ps -aq`, `ps -q` (every running one), `images -q`, `volume ls -q`); a filter narrows it.
pub(crate) fn lists_every(args: Words<'_, '_>) -> bool {
    let quiet = has_flag(args, &["-q", "--quiet"]);
    let filtered = args.iter().any(|a| {
        a == "-f"
            || a.starts_with("--filter")
            || (a.starts_with("-f") && a.len() > 2 && !a.starts_with("--"))
    });
    if !quiet || filtered {
        return false;
    }
    let w: Vec<&str> = args
        .iter()
        .map(|a| &**a)
        .filter(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    matches!(
        w.as_slice(),
        ["ps"]
            | ["container", "ls" | "list" | "ps"]
            | ["images"]
            | ["image", "ls" | "list"]
            | ["volume" | "network", "ls" | "list"]
    )
}

fn has_flag(args: &[std::borrow::Cow<'_, str>], names: &[&str]) -> bool {
    args.iter().any(|a| {
        names.contains(&&**a)
            || (a.starts_with('-')
                && !a.starts_with("--")
                && names.iter().any(|n| n.len() == 2 && a.contains(&n[1..])))
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

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
}
