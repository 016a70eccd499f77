//! Who an ownership change gives files to: the user running the line (`$USER`, `${USER}`,
//! `$(id -u)`, `` `whoami` ``, `$UID`, with any group) takes back files of their own, which
//! is reversible administration of their own tree, not a change of who may use them.
//! Reached by name from `commands/files.toml` (`analyser = "chown_owner"`), which says which
//! operands are the files.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use std::borrow::Cow;

/// Whom `chown`'s owner operand (its first: `$USER:$USER`, `root:root`) names, into the
/// sink's flags, which decide what the ownership change is at each place the files are.
pub(crate) fn chown_owner(_: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let owner = a.operands.first().map(|o| &**o);
    out.to_self_owner = owner.is_some_and(is_self);
    out.admin_in_project = out.to_self_owner;
    out.to_system_owner = owner.is_some_and(is_system);
}

/// Spellings of the user running the line, as a shell leaves them in a word.
const SELF: &[&str] = &[
    "$USER",
    "${USER}",
    "$LOGNAME",
    "${LOGNAME}",
    "$UID",
    "${UID}",
    "$(id -u)",
    "$(id -un)",
    "$(id -u -n)",
    "$(id -nu)",
    "$(whoami)",
    "`id -u`",
    "`id -un`",
    "`whoami`",
];

/// The system's owner, by name or id, as a `chown` owner operand names it.
const SYSTEM_OWNERS: &[&str] = &["root", "0"];

/// The system's groups, by name or id (an empty group after `:` is the owner's).
const SYSTEM_GROUPS: &[&str] = &["root", "0", "wheel", ""];

/// Whether a `chown` owner operand gives files to the system's owner (`root`, `root:root`,
/// `0:0`, `root:wheel`): the owner an installed system file has.
fn is_system(spec: &str) -> bool {
    let (owner, group) = match spec.split_once([':', '.']) {
        Some((o, g)) => (o, Some(g)),
        None => (spec, None),
    };
    SYSTEM_OWNERS.contains(&owner) && group.is_none_or(|g| SYSTEM_GROUPS.contains(&g))
}

/// Whether a word is a substitution the line made (`$(…)` as the walker leaves it, or
/// backquotes): the running user when what made it says so, which the walker checks.
fn substituted(word: &str) -> Option<usize> {
    if word.starts_with("$(…)") {
        return Some("$(…)".len());
    }
    word.strip_prefix('`')
        .and_then(|w| w.find('`'))
        .map(|k| k + 2)
}

/// Whether a `chown` owner operand (`OWNER`, `OWNER:GROUP`, `OWNER.GROUP`, `OWNER:`) names
/// the user running the line as the new owner.
fn is_self(spec: &str) -> bool {
    let user = SELF
        .iter()
        .find(|s| spec.starts_with(**s))
        .map(|s| &spec[s.len()..])
        .or_else(|| substituted(spec).map(|k| &spec[k..]));
    user.is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '.']))
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};
    use super::{is_self, is_system};

    #[test]
    fn the_systems_owner_in_every_spelling() {
        for spec in [
            "root",
            "root:root",
            "0:0",
            "root:wheel",
            "root:",
            "root.root",
        ] {
            assert!(is_system(spec), "{spec}");
        }
        for spec in [
            "nobody",
            "root:docker",
            "www-data:root",
            "$USER",
            "1000:0",
            "",
        ] {
            assert!(!is_system(spec), "{spec}");
        }
    }

    #[test]
    fn the_running_user_in_every_spelling() {
        for spec in [
            "$USER",
            "$USER:$USER",
            "${USER}:www-data",
            "$(id -u):$(id -g)",
            "`whoami`:staff",
            "$UID.$GID",
            "$USER:",
            "$(…):$(…)",
        ] {
            assert!(is_self(spec), "{spec}");
        }
        for spec in [
            "root",
            "root:root",
            "nobody:$USER",
            "$USERNAME",
            "$(id -g)",
            "www-data",
        ] {
            assert!(!is_self(spec), "{spec}");
        }
    }

    #[test]
    fn taking_back_ones_own_project_is_reversible_administration() {
        for line in [
            "sudo chown -R $USER:$USER .",
            "sudo chown -R \"$(id -u):$(id -g)\" .",
            "sudo chown -R $USER:www-data .",
            "chown -R \"${USER}\":staff .",
        ] {
            assert!(
                effects(line).iter().any(|e| e.starts_with("admin@")),
                "{line}: {:?}",
                effects(line)
            );
            assert!(
                !effects(line).iter().any(|e| e.starts_with("permissions@")),
                "{line}"
            );
        }
        for (line, want) in [
            ("sudo chown -R root:root .", "permissions@project"),
            ("sudo chown -R $USER /usr/local", "permissions@system"),
            ("sudo chown -R nobody ./src", "permissions@source"),
            ("chown -R $USER ~", "permissions@home"),
            ("chown -R $USER ./build", "permissions@outputs"),
            (
                "sudo chown -R \"$(stat -c %U /etc):$(id -g)\" .",
                "permissions@project",
            ),
        ] {
            assert!(has(line, want), "{line}: {:?}", effects(line));
        }
    }
}
