//! The hook's deadline, kept without a thread: `alarm(2)` and a SIGALRM handler that appends a
//! fault line prepared in advance beside the database and exits 0.
//!
//! A watchdog thread did the same job, but starting a thread (its stack, and a malloc arena
//! for it) cost about 4 % of a whole hook call (0.10 ms of 2.3 ms, paired runs). The handler
//! only calls async-signal-safe functions (`open`, `fstat`, `write`, `close`, `_exit`) on data
//! prepared before the alarm was armed, so it is sound wherever the main thread was
//! interrupted: in SQLite, in a read of stdin, in a lock wait.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// What the handler writes, prepared before the alarm is armed.
struct Prepared {
    /// `faults.jsonl`, if there is a database location.
    log: Option<CString>,
    /// One JSON line, newline included.
    line: Vec<u8>,
    /// The log is left alone once it is larger than this.
    max_bytes: u64,
}

static PREPARED: OnceLock<Prepared> = OnceLock::new();

/// The answer to give if the deadline passes, once the payload has been read (an ask: a tool
/// call gate could not finish checking is not waved through). Newline included.
static ANSWER: OnceLock<Vec<u8>> = OnceLock::new();

/// Set once the main thread starts writing its own answer: the deadline then writes none
/// (a hook prints at most one JSON object).
static ANSWERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets the answer the deadline gives (at most once; later calls are ignored). Until it is
/// set, the deadline answers nothing: the payload was not even read.
pub fn answer_at_deadline(line: Vec<u8>) {
    let _ = ANSWER.set(line);
}

/// The main thread is about to answer: the deadline must not answer too.
pub fn answering() {
    ANSWERED.store(true, std::sync::atomic::Ordering::SeqCst);
}

extern "C" fn on_alarm(_signal: libc::c_int) {
    let answered = ANSWERED.load(std::sync::atomic::Ordering::SeqCst);
    if let Some(answer) = ANSWER.get().filter(|_| !answered) {
        // SAFETY: `write` is async-signal-safe; the buffer lives in a static that is never
        // mutated after it was set. A partial write leaves invalid JSON, which the runtime
        // reads as no answer: no worse than silence.
        unsafe {
            let _ = libc::write(1, answer.as_ptr().cast(), answer.len());
        }
    }
    if let Some(p) = PREPARED.get() {
        if let Some(log) = &p.log {
            // SAFETY: async-signal-safe calls only, on a NUL-terminated path and a buffer that
            // live in a static and are never mutated after `arm` set them.
            unsafe {
                let fd = libc::open(
                    log.as_ptr(),
                    libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
                    0o600 as libc::c_uint,
                );
                if fd >= 0 {
                    let mut st: libc::stat = std::mem::zeroed();
                    if libc::fstat(fd, &mut st) == 0 && (st.st_size as u64) <= p.max_bytes {
                        let _ = libc::write(fd, p.line.as_ptr().cast(), p.line.len());
                    }
                    libc::close(fd);
                }
            }
        }
    }
    // SAFETY: `_exit` is async-signal-safe and ends the process without unwinding or running
    // destructors, which is what a deadline must do.
    unsafe { libc::_exit(0) }
}

/// Arms the deadline: after `deadline`, `line` is appended to `log` (when given and not over
/// `max_bytes`) and the process exits 0. Returns false if the alarm could not be armed (the
/// caller then keeps its own deadline); call at most once per process.
pub fn arm(deadline: Duration, log: Option<&Path>, line: Vec<u8>, max_bytes: u64) -> bool {
    let log = log.and_then(|p| CString::new(p.as_os_str().as_bytes()).ok());
    if PREPARED
        .set(Prepared {
            log,
            line,
            max_bytes,
        })
        .is_err()
    {
        return false;
    }
    let secs = deadline.as_secs().clamp(1, u64::from(libc::c_uint::MAX)) as libc::c_uint;
    // SAFETY: installs a handler for SIGALRM, which nothing else in gate uses; the
    // `sigaction` struct is fully initialised (zeroed, then the handler and an empty mask).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
            return false;
        }
        libc::alarm(secs);
    }
    true
}
