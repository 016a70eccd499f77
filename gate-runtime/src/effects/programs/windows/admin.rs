//! Windows administration programs (`vssadmin`, `wmic`, `wbadmin`, `bcdedit`, `schtasks`,
//! `sc`, `reg`, `net`, `netsh`, `wevtutil`, `cipher`, `diskpart`, `takeown`, `icacls`), typed
//! into any shell: a table of their forms, each the words that select it and what it does.
//!
//! Their syntax is `PROGRAM VERB [OBJECT] /option[:value] …` with case-insensitive words, so a
//! form is a list of text globs matched, in order, against the command's words lowercased (any
//! words may come between: `sc config WinDefend start= disabled` is `config`, `start=`,
//! `disabled`). The first form that matches decides; a program's reading forms (`query`,
//! `list`, `/enum`) come first where a destructive form could also match their words, and a
//! program with no matching form does nothing this model knows of. Words are compared with `/`
//! for `\` (registry keys).

use gate_spec::effect::{Act, Place};

use super::super::super::{Cmd, Sink};
use super::win_path;

/// What a form does.
#[derive(Clone, Copy, Debug)]
enum Does {
    /// Nothing to gate (a read, a listing).
    Nothing,
    /// An act at a place.
    At(Act, Place),
    /// An act at the path the first operand after the form's words names (`takeown /f PATH`).
    OnPath(Act),
}

/// One form: the program names it belongs to, the words that select it, what it does, and an
/// example the tests run.
struct Form {
    programs: &'static [&'static str],
    words: &'static [&'static str],
    does: Does,
    /// A line of this form; the tests read it and compare with `does`.
    #[cfg_attr(not(test), allow(dead_code))]
    example: &'static str,
}

const fn form(
    programs: &'static [&'static str],
    words: &'static [&'static str],
    does: Does,
    example: &'static str,
) -> Form {
    Form {
        programs,
        words,
        does,
        example,
    }
}

const SYSTEM_DELETE: Does = Does::At(Act::Delete, Place::System);
/// Restore points, backups and boot configuration: what recovering the machine needs, denied
/// like writing a disk.
const RECOVERY: Does = Does::At(Act::Device, Place::Nowhere);
const SYSTEM_OVERWRITE: Does = Does::At(Act::Overwrite, Place::System);
const USER_WRITE: Does = Does::At(Act::Write, Place::Dotfiles);
const USER_DELETE: Does = Does::At(Act::Delete, Place::Dotfiles);
const TASKS: Does = Does::At(Act::Cron, Place::Nowhere);
const SERVICE: Does = Does::At(Act::Service, Place::Nowhere);
const USERS: Does = Does::At(Act::Users, Place::Nowhere);
const FIREWALL: Does = Does::At(Act::Firewall, Place::Nowhere);

/// Keys under which a value runs a program at every logon or boot.
/// (A POSIX shell drops the backslashes of an unquoted key, so the separators are left open.)
const RUN_KEY: &str = "*currentversion*run*";
const WINLOGON: &str = "*winlogon*";
const IFEO: &str = "*image file execution options*";
const SERVICES_KEY: &str = "*currentcontrolset*services*";

const FORMS: &[Form] = &[
    // Volume shadow copies and backups: the machine's restore points.
    form(&["vssadmin"], &["list"], Does::Nothing, "vssadmin list shadows"),
    form(&["vssadmin"], &["delete"], RECOVERY, "vssadmin delete shadows /all /quiet"),
    form(&["vssadmin"], &["resize", "shadowstorage"], RECOVERY, "vssadmin resize shadowstorage /for=c: /on=c: /maxsize=401mb"),
    form(&["wmic"], &["shadowcopy", "delete"], RECOVERY, "wmic shadowcopy delete /nointeractive"),
    form(&["wmic"], &["*", "delete"], SYSTEM_DELETE, "wmic process where name='x.exe' delete"),
    form(&["wmic"], &["*", "call", "terminate"], Does::At(Act::Kill, Place::Nowhere), "wmic process where name='x.exe' call terminate"),
    form(&["wbadmin"], &["delete"], RECOVERY, "wbadmin delete catalog -quiet"),
    // Boot configuration.
    form(&["bcdedit"], &["/enum"], Does::Nothing, "bcdedit /enum all"),
    form(&["bcdedit"], &["/deletevalue"], RECOVERY, "bcdedit /deletevalue {default} safeboot"),
    form(&["bcdedit"], &["/delete"], RECOVERY, "bcdedit /delete {current}"),
    form(&["bcdedit"], &["/set"], RECOVERY, "bcdedit /set {default} recoveryenabled no"),
    // Scheduled tasks: what runs later.
    form(&["schtasks"], &["/query"], Does::Nothing, "schtasks /query /fo LIST"),
    form(&["schtasks"], &["/run"], Does::At(Act::Exec, Place::Nowhere), "schtasks /run /tn Backup"),
    form(&["schtasks"], &["/delete"], TASKS, "schtasks /delete /tn Backup /f"),
    form(&["schtasks"], &["/create"], TASKS, "schtasks /create /tn x /tr c:\\x.exe /sc onlogon /ru SYSTEM"),
    form(&["schtasks"], &["/change"], TASKS, "schtasks /change /tn Backup /disable"),
    form(&["schtasks"], &["/end"], Does::At(Act::Kill, Place::Nowhere), "schtasks /end /tn Backup"),
    // Services.
    form(&["sc"], &["query*"], Does::Nothing, "sc queryex type= service"),
    form(&["sc"], &["qc"], Does::Nothing, "sc qc WinDefend"),
    form(&["sc"], &["delete"], SERVICE, "sc delete DiagTrack"),
    form(&["sc"], &["stop"], SERVICE, "sc stop WinDefend"),
    form(&["sc"], &["config", "start=*", "disabled"], SERVICE, "sc config WinDefend start= disabled"),
    form(&["sc"], &["config", "start=disabled"], SERVICE, "sc config WinDefend start=disabled"),
    form(&["sc"], &["pause"], SERVICE, "sc pause x"),
    form(&["sc"], &["failure"], SERVICE, "sc failure x reset= 0 actions= run/0"),
    form(&["sc"], &["config", "binpath=*"], TASKS, "sc config x binpath= c:\\x.exe"),
    form(&["sc"], &["create"], TASKS, "sc create x binpath= c:\\x.exe start= auto"),
    form(&["net"], &["stop"], SERVICE, "net stop wuauserv"),
    form(&["net"], &["pause"], SERVICE, "net pause wuauserv"),
    // The registry: the machine's hive is system configuration, the user's hive is the user's
    // settings; a value under a key that starts programs runs code later.
    form(&["reg"], &["query"], Does::Nothing, "reg query HKLM\\Software\\x"),
    form(&["reg"], &["export"], Does::Nothing, "reg export HKCU\\Software\\x x.reg"),
    form(&["reg"], &["add", RUN_KEY], TASKS, "reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run /v x /d c:\\x.exe"),
    form(&["reg"], &["add", WINLOGON], TASKS, "reg add \"HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\" /v Shell /d x.exe /f"),
    form(&["reg"], &["add", IFEO], TASKS, "reg add \"HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options\\sethc.exe\" /v Debugger /d cmd.exe"),
    form(&["reg"], &["add", SERVICES_KEY], TASKS, "reg add HKLM\\SYSTEM\\CurrentControlSet\\Services\\x /v ImagePath /d c:\\x.exe"),
    form(&["reg"], &["add", "hklm*"], SYSTEM_OVERWRITE, "reg add HKLM\\Software\\Policies\\x /v y /t REG_DWORD /d 0 /f"),
    form(&["reg"], &["add", "hkey_local_machine*"], SYSTEM_OVERWRITE, "reg add \"HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System\" /v EnableLUA /t REG_DWORD /d 0 /f"),
    form(&["reg"], &["add"], USER_WRITE, "reg add HKCU\\Software\\x /v y /d 1"),
    form(&["reg"], &["delete", "hklm*"], SYSTEM_DELETE, "reg delete HKLM\\SYSTEM\\CurrentControlSet\\Control\\SafeBoot\\Network /f"),
    form(&["reg"], &["delete", "hkey_local_machine*"], SYSTEM_DELETE, "reg delete HKEY_LOCAL_MACHINE\\SOFTWARE\\x /va /f"),
    form(&["reg"], &["delete"], USER_DELETE, "reg delete HKCU\\Software\\x /f"),
    form(&["reg"], &["import"], SYSTEM_OVERWRITE, "reg import settings.reg"),
    form(&["reg"], &["load"], SYSTEM_OVERWRITE, "reg load HKLM\\x x.hiv"),
    form(&["reg"], &["unload"], SYSTEM_OVERWRITE, "reg unload HKLM\\x"),
    form(&["reg"], &["copy"], SYSTEM_OVERWRITE, "reg copy HKLM\\Software\\a HKLM\\Software\\b /s"),
    form(&["reg"], &["restore"], SYSTEM_OVERWRITE, "reg restore HKLM\\Software\\x x.hiv"),
    // Accounts.
    form(&["net"], &["user", "/add"], USERS, "net user bob P@ss /add"),
    form(&["net"], &["user", "/del*"], USERS, "net user bob /delete"),
    form(&["net"], &["user", "/active:*"], USERS, "net user administrator /active:yes"),
    form(&["net"], &["user", "*", "*"], USERS, "net user administrator NewPass1"),
    form(&["net"], &["group", "*", "*", "/add"], USERS, "net group admins bob /add /domain"),
    form(&["net"], &["group", "*", "*", "/del*"], USERS, "net group admins bob /delete /domain"),
    form(&["net"], &["localgroup", "*", "*", "/add"], USERS, "net localgroup administrators bob /add"),
    form(&["net"], &["localgroup", "*", "*", "/del*"], USERS, "net localgroup administrators bob /delete"),
    form(&["net"], &["share", "*", "/del*"], SYSTEM_DELETE, "net share data /delete"),
    // The firewall: turning it off, resetting it, deleting its rules (adding a rule is
    // ordinary configuration).
    form(&["netsh"], &["advfirewall", "set", "*", "state", "off"], FIREWALL, "netsh advfirewall set allprofiles state off"),
    form(&["netsh"], &["advfirewall", "reset"], FIREWALL, "netsh advfirewall reset"),
    form(&["netsh"], &["advfirewall", "firewall", "delete"], FIREWALL, "netsh advfirewall firewall delete rule name=all"),
    form(&["netsh"], &["firewall", "set", "opmode*", "*disable*"], FIREWALL, "netsh firewall set opmode mode=DISABLE"),
    // Logs, free space, disks.
    form(&["wevtutil"], &["cl"], SYSTEM_DELETE, "wevtutil cl Security"),
    form(&["wevtutil"], &["clear-log"], SYSTEM_DELETE, "wevtutil clear-log System"),
    form(&["cipher"], &["/w*"], RECOVERY, "cipher /w:C:"),
    form(&["diskpart"], &[], RECOVERY, "diskpart /s wipe.txt"),
    // Ownership and access lists of a path.
    form(&["takeown"], &["/f"], Does::OnPath(Act::Permissions), "takeown /f \"C:\\Windows\\System32\" /r"),
    form(&["icacls"], &[], Does::OnPath(Act::Permissions), "icacls \"C:\\Windows\" /grant Everyone:F /T"),
];

/// Every program name the table knows (lower case, without `.exe`).
fn knows(program: &str) -> bool {
    FORMS.iter().any(|f| f.programs.contains(&program))
}

#[test]
fn every_program_of_the_table_is_a_name_of_the_family() {
    for f in FORMS {
        for p in f.programs {
            assert!(
                super::NAMES.contains(p),
                "{p} is missing from windows::NAMES"
            );
        }
    }
}

/// Model `cmd` when it is one of the table's programs; `false` otherwise.
pub(super) fn model(program: &str, cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let args: Vec<&str> = cmd.args.iter().map(|a| &**a).collect();
    read(program, &args, out)
}

/// Read `program ARGS…` (program lower case, without `.exe`; `sc.exe` for the service
/// controller, which PowerShell spells so) through the table; `false` for a program it does
/// not know. cmd and PowerShell statements come here too.
pub(super) fn read(program: &str, args: &[&str], out: &mut Sink) -> bool {
    let program = if program == "sc.exe" { "sc" } else { program };
    if !knows(program) {
        return false;
    }
    let words: Vec<String> = args
        .iter()
        .map(|a| a.trim_matches('"').to_ascii_lowercase().replace('\\', "/"))
        .collect();
    let Some((f, after)) = FORMS
        .iter()
        .filter(|f| f.programs.contains(&program))
        .find_map(|f| selects(f.words, &words).map(|after| (f, after)))
    else {
        return true;
    };
    match f.does {
        Does::Nothing => {}
        Does::At(act, Place::Nowhere) => out.none(act),
        Does::At(act, place) => out.place(act, place),
        Does::OnPath(act) => {
            // The first word after the form's that is not an option (`/r`, `/grant`) names it.
            match args[after..].iter().find(|a| !a.starts_with('/')) {
                Some(path) => out.path(act, &win_path(path)),
                None => out.place(act, Place::Unknown),
            }
        }
    }
    true
}

/// Whether `pattern` selects `words` (each glob matching a later word than the previous);
/// the index after the last word matched.
fn selects(pattern: &[&str], words: &[String]) -> Option<usize> {
    let mut at = 0;
    for glob in pattern {
        let found = words[at..]
            .iter()
            .position(|w| crate::glob::text(glob, w))?;
        at += found + 1;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::effects::programs::testing::effects;

    #[test]
    fn every_example_reads_as_its_form_says() {
        for f in FORMS {
            let got = effects(f.example);
            let want: Vec<String> = match f.does {
                super::Does::Nothing => Vec::new(),
                super::Does::At(act, place) => vec![format!("{act}@{place}")],
                super::Does::OnPath(act) => vec![format!("{act}@system")],
            };
            assert_eq!(got, want, "{}", f.example);
        }
    }

    #[test]
    fn spellings_of_the_same_form_read_alike() {
        for (line, want) in [
            ("VSSADMIN.EXE Delete Shadows /All /Quiet", "device@none"),
            ("wmic.exe shadowcopy delete /nointeractive", "device@none"),
            ("SC delete DiagTrack", "service@none"),
            ("schtasks.exe /Delete /TN \"x\" /F", "cron@none"),
            ("cmd /c vssadmin delete shadows /all", "device@none"),
            (
                "powershell -c \"vssadmin delete shadows /all /quiet\"",
                "device@none",
            ),
            (
                "sudo reg add HKLM\\Software\\x /v y /d 0 /f",
                "overwrite@system",
            ),
        ] {
            assert!(
                effects(line).iter().any(|e| e == want),
                "{line}: {:?}",
                effects(line)
            );
        }
        for line in [
            "vssadmin list shadows",
            "sc query WinDefend",
            "reg query HKLM\\Software\\x",
            "schtasks /query",
            "netsh advfirewall firewall add rule name=web dir=in action=allow protocol=TCP localport=8080",
            "net user",
            "bcdedit /enum",
        ] {
            assert!(
                effects(line).iter().all(|e| !e.starts_with("delete") && e != "service@none" && e != "firewall@none" && e != "users@none" && e != "cron@none"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }
}
