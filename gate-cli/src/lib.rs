//! gate-cli as a library: the runtime adapters, installers, configuration and commands the
//! `gate` binary is made of (a library so that tests and benches can drive them directly).

pub mod adapters;
pub mod agent;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod doctor;
pub mod install;
pub mod profile;
pub mod sink;
pub mod time;
pub mod watchdog;

use std::fmt;

/// A usage or input error (exit code 2): a bad argument or an unreadable input file.
#[derive(Debug)]
pub struct InputError(String);

impl InputError {
    pub fn new(message: impl Into<String>) -> InputError {
        InputError(message.into())
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
