//! Effects of tool calls that are not shell lines: edit and read tools of every runtime,
//! apply_patch, MCP tools and any other tool whose input names paths. The tool's name says
//! the act; its paths, resolved and classed like a shell target, say where.

use gate_spec::effect::{Act, Place};
use gate_spec::ir::ActionClass;

use super::places::{self, Where};
use super::{effects_of_line, Effect};
use crate::event::Event;
use crate::observer::is_shell_tool;

/// The act a tool's name says, when it says one (`Write`, `mcp__fs__delete_file`, `read_file`);
/// else its class's; else a write (a tool that names paths and whose name says nothing may
/// write them).
fn act_of_tool(tool: &str, class: Option<ActionClass>) -> Act {
    said_act(tool, class).unwrap_or(Act::Write)
}

/// The act a tool's name or class says, or `None`.
fn said_act(tool: &str, class: Option<ActionClass>) -> Option<Act> {
    const DELETE: &[&str] = &["delete", "remove", "unlink", "rmdir", "trash", "rm"];
    const MOVE: &[&str] = &["move", "rename", "mv"];
    const PERMISSIONS: &[&str] = &["chmod", "chown", "permission"];
    const WRITE: &[&str] = &[
        "write",
        "edit",
        "create",
        "replace",
        "patch",
        "update",
        "insert",
        "append",
        "put",
        "save",
        "upload",
        "mkdir",
        "set",
        "notebook",
        "multiedit",
        "copy",
        "cp",
    ];
    const READ: &[&str] = &[
        "read",
        "view",
        "get",
        "list",
        "search",
        "grep",
        "glob",
        "find",
        "ls",
        "stat",
        "open",
        "fetch",
        "tree",
        "info",
        "show",
        "cat",
        "head",
        "tail",
        "directory",
    ];
    let lower = tool.to_ascii_lowercase();
    // The verb is the last segment of an MCP name (`mcp__server__write_file`); its words are
    // read in order, and the first that says an act decides (`get_settings` reads).
    let verb = lower.rsplit("__").next().unwrap_or(&lower);
    let table: [(&[&str], Act); 5] = [
        (DELETE, Act::Delete),
        (MOVE, Act::Move),
        (PERMISSIONS, Act::Permissions),
        (WRITE, Act::Write),
        (READ, Act::Read),
    ];
    for word in verb.split(['_', '-', '.']).filter(|w| !w.is_empty()) {
        for (words, act) in &table {
            if words
                .iter()
                .any(|w| word == *w || word.starts_with(w) && w.len() > 3)
            {
                return Some(*act);
            }
        }
    }
    for (words, act) in &table {
        if words.iter().any(|w| w.len() > 3 && verb.contains(w)) {
            return Some(*act);
        }
    }
    match class {
        Some(ActionClass::Read | ActionClass::Search) => Some(Act::Read),
        Some(ActionClass::Delete) => Some(Act::Delete),
        Some(ActionClass::Write) => Some(Act::Write),
        _ => None,
    }
}

/// Effects of one tool event run in `at`. A shell tool's command is read as a shell line; a
/// PowerShell tool's as `pwsh -Command`; other tools act on the paths the adapter found.
/// Shell text any tool carries elsewhere in its input is read as lines too, and strings under
/// keys with no role are targets where they resolve to a protected place or outside the
/// project. Everything is resolved in the tool's working directory when its input names one
/// (Codex `workdir`, Gemini `dir_path`). `parsed` is the shell command already parsed by the
/// classifier, so a hook parses each command once (`None`: it is parsed here).
pub fn effects_of_event_parsed(
    event: &Event,
    at: &Where,
    parsed: Option<&crate::shell::Parsed<'_>>,
    out: &mut Vec<Effect>,
) {
    let Some(tool) = event.tool.as_deref() else {
        return;
    };
    let here;
    let at = match event.workdir.as_deref() {
        Some(dir) => {
            here = in_workdir(dir, at);
            &here
        }
        None => at,
    };
    let shell = is_shell_tool(tool);
    match (tool, event.target.as_deref()) {
        (_, Some(cmd)) if shell => match parsed {
            Some(parsed) => super::effects_of_parsed(parsed, cmd, at, 0, out),
            None => effects_of_line(cmd, at, out),
        },
        ("powershell" | "pwsh" | "PowerShell", Some(cmd)) => {
            let quoted = format!("pwsh -Command '{}'", cmd.replace('\'', "'\\''"));
            effects_of_line(&quoted, at, out)
        }
        _ => {}
    }
    // Shell text carried elsewhere in the input (an MCP tool's `command`, a script field, a
    // shell driver's keystrokes).
    for cmd in &event.commands {
        effects_of_line(cmd, at, out);
    }
    let act = if tool == "apply_patch" {
        Act::Write
    } else {
        act_of_tool(tool, event.class)
    };
    let paths_from = out.len();
    for p in &event.paths {
        let (place, target) = places::place_in(p, &at.cwd, None, at);
        if place == Place::Nowhere && act != Act::Read {
            continue;
        }
        out.push(Effect {
            act,
            place,
            target: target.clone(),
        });
        if act == Act::Read {
            super::key_reads::push(&target, !lists_names(tool), at, out);
        }
        // A tool that removes or moves a directory acts on everything in it.
        if matches!(act, Act::Delete | Act::Move) {
            super::contents::within(act, &target, &super::Reach::All, at, &at.cwd, out);
        }
    }
    if act == Act::Read && !shell {
        super::secrets::tool_reveals(tool, out, paths_from);
    }
    // Fields gate has no role for: a string that lands on a protected place or outside the
    // project is a target, of the act the tool's name says; what a shell tool, or a tool
    // whose name says nothing, does there gate cannot tell.
    let stray = match said_act(tool, event.class) {
        Some(act) if !shell && event.class != Some(ActionClass::Exec) => act,
        _ => Act::Opaque,
    };
    for m in &event.mentions {
        let (place, target) = places::place_in(m, &at.cwd, None, at);
        if guarded(place) {
            out.push(Effect {
                act: stray,
                place,
                target,
            });
        }
    }
    super::disk::read_disk(at, out);
    also_runs_later(at, out);
    if let Some(text) = event.written.as_deref() {
        super::written::effects_of_written(text, at, out);
    }
}

/// A tool that lists names without reading content (Claude Code's Glob and LS, Gemini CLI's
/// `glob` and `list_directory`, an MCP `list_*` tool): its read of a directory that holds
/// gate's key does not read the key.
fn lists_names(tool: &str) -> bool {
    let verb = tool
        .rsplit("__")
        .next()
        .unwrap_or(tool)
        .to_ascii_lowercase();
    verb == "ls" || verb.contains("glob") || verb.starts_with("list")
}

/// `at` moved to a tool's working directory, resolved against `at.cwd` (`$WORKDIR`, a
/// directory not known, when it cannot be resolved).
fn in_workdir(dir: &str, at: &Where) -> Where {
    let r = places::resolve(dir.trim(), &at.cwd, &at.home, None);
    let cwd = if r.unknown_root {
        "$WORKDIR".to_string()
    } else {
        r.display()
    };
    Where { cwd, ..at.clone() }
}

/// Places a stray string of a tool's input is a target at: the protected ones and anything
/// outside the project (the project's own files, temporary files, remotes and what cannot be
/// resolved are what free-form values name all the time).
fn guarded(place: Place) -> bool {
    matches!(
        place,
        Place::Gate
            | Place::Secrets
            | Place::Vcs
            | Place::Device
            | Place::Root
            | Place::Home
            | Place::Dotfiles
            | Place::System
            | Place::Outside
    )
}

/// A change to a file something runs or obeys later (a shell start-up file, a cron table,
/// the sudoers file) is also that second effect, on every tool surface.
fn also_runs_later(at: &Where, out: &mut Vec<Effect>) {
    let mut more = Vec::new();
    for e in out.iter() {
        let changes = matches!(
            e.act,
            Act::Write | Act::Overwrite | Act::Delete | Act::Move | Act::Link
        );
        let could = matches!(
            e.place,
            Place::Dotfiles | Place::System | Place::Secrets | Place::Unknown
        );
        if changes && could && !e.target.is_empty() {
            if let Some(act) = super::later::runs_later(&e.target, &at.home, e.act) {
                more.push(Effect {
                    act,
                    place: e.place,
                    target: e.target.clone(),
                });
            }
        }
    }
    out.extend(more);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_say_the_act() {
        assert_eq!(act_of_tool("Write", None), Act::Write);
        assert_eq!(act_of_tool("Edit", None), Act::Write);
        assert_eq!(act_of_tool("MultiEdit", None), Act::Write);
        assert_eq!(act_of_tool("write_file", None), Act::Write);
        assert_eq!(act_of_tool("replace", None), Act::Write);
        assert_eq!(act_of_tool("mcp__filesystem__write_file", None), Act::Write);
        assert_eq!(act_of_tool("mcp__filesystem__edit_file", None), Act::Write);
        assert_eq!(act_of_tool("mcp__fs__delete_file", None), Act::Delete);
        assert_eq!(act_of_tool("mcp__fs__move_file", None), Act::Move);
        assert_eq!(act_of_tool("Read", None), Act::Read);
        assert_eq!(act_of_tool("read_file", None), Act::Read);
        assert_eq!(act_of_tool("mcp__fs__list_directory", None), Act::Read);
        assert_eq!(act_of_tool("mcp__x__frobnicate", None), Act::Write);
        assert_eq!(act_of_tool("mcp__cfg__get_settings", None), Act::Read);
        assert_eq!(act_of_tool("NotebookEdit", None), Act::Write);
        assert_eq!(act_of_tool("Glob", None), Act::Read);
        assert_eq!(act_of_tool("LS", None), Act::Read);
        assert_eq!(
            act_of_tool("mcp__x__frobnicate", Some(ActionClass::Read)),
            Act::Read
        );
    }
}
