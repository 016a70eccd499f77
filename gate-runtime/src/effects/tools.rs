//! Effects of tool calls that are not shell lines: edit and read tools of every runtime,
//! apply_patch, MCP tools and any other tool whose input names paths. The tool's name says
//! the act; its paths, resolved and classed like a shell target, say where.

use gate_spec::effect::{Act, Place};
use gate_spec::ir::ActionClass;

use super::places::{self, Where};
use super::{effects_of_line, Effect};
use crate::event::Event;
use crate::observer::is_shell_tool;

/// The act a tool's name says, when it says one (`Write`, `mcp__fs__delete_file`, `read_file`).
fn act_of_tool(tool: &str, class: Option<ActionClass>) -> Act {
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
                return *act;
            }
        }
    }
    for (words, act) in &table {
        if words.iter().any(|w| w.len() > 3 && verb.contains(w)) {
            return *act;
        }
    }
    match class {
        Some(ActionClass::Read | ActionClass::Search) => Act::Read,
        Some(ActionClass::Delete) => Act::Delete,
        // A tool that names paths and whose name says nothing: it may write them.
        _ => Act::Write,
    }
}

/// Effects of one tool event run in `at`. A shell tool's command is read as a shell line; a
/// PowerShell tool's as `pwsh -Command`; other tools act on the paths the adapter found.
/// `parsed` is the shell command already parsed by the classifier, so a hook parses each
/// command once (`None`: it is parsed here).
pub fn effects_of_event_parsed(
    event: &Event,
    at: &Where,
    parsed: Option<&crate::shell::Parsed<'_>>,
    out: &mut Vec<Effect>,
) {
    let Some(tool) = event.tool.as_deref() else {
        return;
    };
    match (tool, event.target.as_deref()) {
        (t, Some(cmd)) if is_shell_tool(t) => match parsed {
            Some(parsed) => super::effects_of_parsed(parsed, cmd, at, 0, out),
            None => effects_of_line(cmd, at, out),
        },
        ("powershell" | "pwsh" | "PowerShell", Some(cmd)) => {
            let quoted = format!("pwsh -Command '{}'", cmd.replace('\'', "'\\''"));
            effects_of_line(&quoted, at, out)
        }
        _ => {}
    }
    // A shell command carried by a tool that is not a shell tool (an MCP tool's `command`).
    if let Some(cmd) = event.command.as_deref().filter(|_| !is_shell_tool(tool)) {
        effects_of_line(cmd, at, out);
    }
    if !event.paths.is_empty() {
        let act = if tool == "apply_patch" {
            Act::Write
        } else {
            act_of_tool(tool, event.class)
        };
        for p in &event.paths {
            let (place, target) = places::place_of(p, &at.cwd, None, at);
            if place == Place::Nowhere && act != Act::Read {
                continue;
            }
            out.push(Effect {
                act,
                place,
                target: target.clone(),
            });
            // A tool that removes or moves a directory acts on everything in it.
            if matches!(act, Act::Delete | Act::Move) {
                super::contents::within(act, &target, &super::Reach::All, at, &at.cwd, out);
            }
        }
    }
    super::disk::through_links(at, out);
    also_runs_later(at, out);
    if let Some(text) = event.written.as_deref() {
        super::written::effects_of_written(text, at, out);
    }
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
