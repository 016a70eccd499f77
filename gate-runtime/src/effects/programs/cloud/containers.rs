//! Container listings that name every container, image, volume or network (`docker ps -aq`):
//! a command handed one acts on all of them. What the engines' commands do is data
//! (`commands/containers.toml`).

use super::Words;

/// Whether `docker ARGS` lists every container, image, volume or network, one id a line
/// (`ps -aq`, `ps -q` (every running one), `images -q`, `volume ls -q`); a filter narrows it.
pub(crate) fn lists_every(args: Words<'_, '_>) -> bool {
    has_flag(args, &["-q", "--quiet"]) && lists_every_row(args)
}

/// Whether `docker ARGS` lists every container, image, volume or network, as ids or as a
/// table (`docker ps -a`: a header, then a row each); a filter narrows it.
pub(crate) fn lists_every_row(args: Words<'_, '_>) -> bool {
    let filtered = args.iter().any(|a| {
        a == "-f"
            || a.starts_with("--filter")
            || (a.starts_with("-f") && a.len() > 2 && !a.starts_with("--"))
    });
    if filtered {
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

/// Whether one of `names` is given: a long option as written, or a short one alone or in a
/// bundle (`-fv` gives `-v`).
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
}
