//! A `chmod` mode read for what it does to access: whether the owner keeps read (and, for a
//! recursive change, the directories' search) permission, and whether anyone else gains
//! any. Octal (`600`, `0700`, `4755`) and symbolic (`go-rwx`, `a-rwx`, `u=rw,go=`) modes.
//! Reached by name from `commands/files.toml` (`analyser = "chmod_mode"`), which says which
//! operands are the files.

use super::super::super::getopt::Args;
use super::super::super::{Cmd, Sink};
use std::borrow::Cow;

/// `chmod`'s mode (its first operand: `755`, `go-rwx`, `-x`) read into the sink's flags, which
/// decide what the permissions change is at each place the files are.
pub(crate) fn chmod_mode(_: &Cmd<'_, '_>, a: &Args<'_>, _: &[Cow<'_, str>], out: &mut Sink) {
    let recursive = a.any(&["R", "recursive"]);
    let access = a.operands.first().and_then(|m| read(m, recursive));
    out.owner_only = access.is_some_and(Access::owner_only);
    out.shares_read_only = access.is_some_and(Access::shares_read_only);
    out.owner_gains_only = access.is_some_and(|a| a.owner_gains_only);
    out.admin_in_project = access.is_some_and(Access::conventional);
    out.public_mode = access.is_some_and(Access::public_read_only);
}

/// What a mode does to a file's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Access {
    /// The owner loses read permission (or, recursively, directory search).
    pub revokes_owner: bool,
    /// Group or others gain a permission, or are set to one.
    pub grants_others: bool,
    /// Everyone gains write, or a set-id bit is set: more than a project's files need.
    pub opens_to_all: bool,
    /// Group or others gain write, or a set-id bit is set: someone else may change the file
    /// or run it as its owner.
    pub shares_change: bool,
    /// Group or others lose read permission, or are set to a mode without it (`750`, `o-r`,
    /// `go=`): a file kept from the users who read it.
    pub withholds_read: bool,
    /// Only the owner gains permissions (`u+rwX`, `u+w`): the owner may set their own
    /// file's mode anyway, so nobody can do anything they could not before.
    pub owner_gains_only: bool,
}

impl Access {
    /// The owner keeps their access and nobody else gains any: a file made private.
    pub(super) fn owner_only(self) -> bool {
        !self.revokes_owner && !self.grants_others
    }

    /// The owner keeps their access, everyone else gains no write and no set-id bit is
    /// set (`644`, `755`, `664`, `u+rwX`, `g+w`): a mode a project's files are meant to have.
    pub(super) fn conventional(self) -> bool {
        !self.revokes_owner && !self.opens_to_all
    }

    /// The owner keeps their access and everyone else gains at most read and search
    /// (`644`, `755`, `go+r`): what a public file (a public key, the known-hosts list) is
    /// meant to have.
    pub(super) fn shares_read_only(self) -> bool {
        !self.revokes_owner && !self.shares_change
    }

    /// Shares reading with everyone and change with nobody, keeping the owner's access
    /// (`755`, `644`, `+x`, `a+rX`): the mode installed software and served content have,
    /// which no one gains or loses anything by but execution.
    pub(super) fn public_read_only(self) -> bool {
        self.shares_read_only() && !self.withholds_read
    }
}

/// What `mode` does, or `None` when it cannot be read (a copy such as `g=u`, a variable).
fn read(mode: &str, recursive: bool) -> Option<Access> {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return octal(mode, recursive);
    }
    symbolic(mode, recursive)
}

fn octal(mode: &str, recursive: bool) -> Option<Access> {
    if mode.len() > 4 {
        return None;
    }
    let digits: Vec<u8> = mode.bytes().map(|b| b - b'0').collect();
    let at = |from_end: usize| digits.len().checked_sub(from_end).map_or(0, |k| digits[k]);
    let (special, owner, group, other) = (at(4), at(3), at(2), at(1));
    Some(Access {
        revokes_owner: owner & 4 == 0 || (recursive && owner & 1 == 0),
        grants_others: group != 0 || other != 0,
        opens_to_all: other & 2 != 0 || special & 6 != 0,
        shares_change: group & 2 != 0 || other & 2 != 0 || special & 6 != 0,
        withholds_read: group & 4 == 0 || other & 4 == 0,
        owner_gains_only: false,
    })
}

fn symbolic(mode: &str, recursive: bool) -> Option<Access> {
    let mut access = Access {
        revokes_owner: false,
        grants_others: false,
        opens_to_all: false,
        shares_change: false,
        withholds_read: false,
        owner_gains_only: true,
    };
    for clause in mode.split(',') {
        let who_len = clause
            .find(|c: char| !matches!(c, 'u' | 'g' | 'o' | 'a'))
            .unwrap_or(clause.len());
        let who = &clause[..who_len];
        let all = who.is_empty() || who.contains('a');
        let owner = all || who.contains('u');
        let others = all || who.contains('g') || who.contains('o');
        let everyone = all || who.contains('o');
        let mut rest = &clause[who_len..];
        if rest.is_empty() {
            return None;
        }
        if !who.bytes().all(|b| b == b'u') || who.is_empty() {
            access.owner_gains_only = false;
        }
        while let Some(op) = rest.chars().next() {
            if !matches!(op, '+' | '-' | '=') {
                return None;
            }
            let perms_len = rest[1..].find(['+', '-', '=']).unwrap_or(rest.len() - 1);
            let perms = &rest[1..1 + perms_len];
            if perms.contains(['u', 'g', 'o']) {
                return None;
            }
            if !perms
                .chars()
                .all(|c| matches!(c, 'r' | 'w' | 'x' | 'X' | 's' | 't'))
            {
                return None;
            }
            if op != '+' || perms.contains(['s', 't']) {
                access.owner_gains_only = false;
            }
            let loses_read = perms.contains('r') == (op == '-');
            let loses_search = recursive && perms.contains(['x', 'X']) == (op == '-');
            if owner && op != '+' && (loses_read || loses_search) {
                access.revokes_owner = true;
            }
            if others && (op == '-' && perms.contains('r') || op == '=' && !perms.contains('r')) {
                access.withholds_read = true;
            }
            if others && op != '-' && !perms.is_empty() {
                access.grants_others = true;
            }
            if op != '-' && (everyone && perms.contains('w') || perms.contains('s')) {
                access.opens_to_all = true;
            }
            if op != '-' && (others && perms.contains('w') || perms.contains('s')) {
                access.shares_change = true;
            }
            rest = &rest[1 + perms_len..];
        }
    }
    Some(access)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventional_modes_keep_the_owner_and_open_no_write_to_all() {
        for (mode, recursive) in [
            ("644", false),
            ("755", true),
            ("664", false),
            ("775", true),
            ("u+rwX", true),
            ("g+w", false),
            ("go-w", false),
        ] {
            assert!(
                read(mode, recursive).is_some_and(Access::conventional),
                "{mode}"
            );
        }
        for (mode, recursive) in [
            ("777", true),
            ("666", false),
            ("4755", false),
            ("000", false),
            ("a+w", false),
            ("o+w", false),
            ("+w", false),
            ("u+s", false),
            ("644", true),
        ] {
            assert!(
                !read(mode, recursive).is_some_and(Access::conventional),
                "{mode}"
            );
        }
    }

    #[test]
    fn read_only_sharing_keeps_the_owner_and_lets_nobody_else_change() {
        for mode in ["644", "755", "0444", "go+r", "a+rX", "u+rw,go=r"] {
            assert!(
                read(mode, false).is_some_and(Access::shares_read_only),
                "{mode}"
            );
        }
        for mode in [
            "664", "666", "g+w", "o+w", "+w", "4755", "u+s", "000", "u-r",
        ] {
            assert!(
                !read(mode, false).is_some_and(Access::shares_read_only),
                "{mode}"
            );
        }
    }

    #[test]
    fn only_the_owner_gaining_is_no_change_of_who_may_do_what() {
        for mode in ["u+rwX", "u+w", "u+x,u+r"] {
            assert!(
                read(mode, true).is_some_and(|a| a.owner_gains_only),
                "{mode}"
            );
        }
        for mode in [
            "+w", "a+r", "u=rw", "u-w", "u+s", "ug+w", "u+w,o+r", "700", "go-rwx",
        ] {
            assert!(
                !read(mode, true).is_some_and(|a| a.owner_gains_only),
                "{mode}"
            );
        }
    }

    #[test]
    fn public_modes_share_reading_with_everyone_and_change_with_nobody() {
        for mode in [
            "755",
            "0755",
            "644",
            "444",
            "+x",
            "a+x",
            "a+rX",
            "go+r",
            "u+x,go+rx",
        ] {
            assert!(
                read(mode, false).is_some_and(Access::public_read_only),
                "{mode}"
            );
        }
        for mode in [
            "750", "700", "640", "600", "o-r", "go=", "go-rwx", "a=x", "775", "777", "4755", "000",
            "u-r", "o+w",
        ] {
            assert!(
                !read(mode, false).is_some_and(Access::public_read_only),
                "{mode}"
            );
        }
    }

    fn owner_only(mode: &str) -> bool {
        read(mode, false).is_some_and(Access::owner_only)
    }

    fn revokes(mode: &str, recursive: bool) -> bool {
        read(mode, recursive).is_some_and(|a| a.revokes_owner)
    }

    #[test]
    fn private_modes_keep_the_owner_and_shut_out_the_rest() {
        for mode in [
            "600",
            "0600",
            "400",
            "700",
            "0700",
            "500",
            "go-rwx",
            "og-rwx",
            "g-w,o-rwx",
            "u=rw,go=",
            "go=",
            "u+rw,go-rwx",
            "u=rwx,g=,o=",
        ] {
            assert!(owner_only(mode), "{mode}");
        }
        for mode in [
            "644", "755", "777", "0666", "4755", "a+r", "o+r", "g+w", "+r", "u=rw,g=r", "a=rw",
        ] {
            assert!(!owner_only(mode), "{mode}");
        }
    }

    #[test]
    fn modes_that_shut_the_owner_out() {
        for mode in [
            "000", "0", "200", "a-rwx", "-r", "u-r", "a=", "u=w", "ugo-rwx", "=", "a-r",
        ] {
            assert!(revokes(mode, false), "{mode}");
        }
        // A recursive change that takes the directories' search permission away.
        assert!(revokes("600", true));
        assert!(revokes("a-x", true));
        assert!(!revokes("700", true));
        assert!(!revokes("go-rwx", true));
        // A copy or a variable is not read.
        assert_eq!(read("g=u", false), None);
        assert_eq!(read("$MODE", false), None);
        assert_eq!(read("99", false), None);
    }
}
