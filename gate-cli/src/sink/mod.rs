//! The audit sink: audit rows streamed to a team's collector as OpenTelemetry logs
//! (OTLP/HTTP) or JSON lines, batched, off the hook's critical path.
//!
//! The hook never sends anything. After it has answered, when a sink is configured and no
//! flush is running or due later (the schedule file beside the database), it starts a
//! detached `gate sink flush`; that process sends every row past the sink's cursor in
//! batches and moves the cursor only past rows the endpoint accepted (a 2xx answer). A
//! failure keeps the backlog, records the error, and backs off exponentially; `gate sink
//! status`, `gate status` and `gate doctor` show the backlog and the last error.

pub mod config;

pub use config::{SinkConfig, SinkFormat};
