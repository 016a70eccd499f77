//! gate-cli as a library: the runtime adapters, installers, configuration and commands the
//! `gate` binary is made of (a library so that tests and benches can drive them directly).

pub mod adapters;
pub mod agent;
pub mod boundary;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod doctor;
pub mod install;
pub mod profile;
pub mod registry;
pub mod sandbox;
pub mod sink;
pub mod time;
pub mod watchdog;

use std::fmt;

/// A usage or input error (exit code 2): a bad argument or an unreadable input file. It
/// prints as one line, `gate: …`, optionally followed by a block of text kept as written
/// (a draft spec's diagnostics with their carets).
#[derive(Debug)]
pub struct InputError {
    message: String,
    block: Option<String>,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> InputError {
        InputError {
            message: message.into(),
            block: None,
        }
    }

    /// An error whose one-line `message` is followed by `block`, printed as it is.
    pub fn with_block(message: impl Into<String>, block: impl Into<String>) -> InputError {
        InputError {
            message: message.into(),
            block: Some(block.into()),
        }
    }

    /// The text printed after the error's line, if any.
    pub fn block(&self) -> Option<&str> {
        self.block.as_deref()
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}
