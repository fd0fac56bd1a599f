//! Logging through the host (`wasmcp.log`), the supported way for a guest to
//! report diagnostics: its standard output and error are discarded.

/// The severity of a log line: MCP's (syslog's) levels, least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u32)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Notice = 2,
    Warning = 3,
    Error = 4,
    Critical = 5,
    Alert = 6,
    Emergency = 7,
}

impl Level {
    /// The MCP name of the level ("debug", "info", ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }
}

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "wasmcp")]
extern "C" {
    #[link_name = "log"]
    fn host_log(level: u32, msg_ptr: *const u8, msg_len: usize);
}

/// Sends one line to the host's log at `level`. Lines over 64 KiB are
/// truncated (on a character boundary). Natively, it writes to standard error.
pub fn log(level: Level, msg: &str) {
    let mut end = msg.len().min(crate::MAX_LOG_SIZE);
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    let msg = &msg[..end];
    #[cfg(target_arch = "wasm32")]
    // SAFETY: the host only reads msg_len bytes at msg_ptr, during the call.
    unsafe {
        host_log(level as u32, msg.as_ptr(), msg.len())
    }
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("wasmcp {}: {}", level.as_str(), msg);
}

/// Logs `msg` at [`Level::Debug`].
pub fn debug(msg: &str) {
    log(Level::Debug, msg)
}

/// Logs `msg` at [`Level::Info`].
pub fn info(msg: &str) {
    log(Level::Info, msg)
}

/// Logs `msg` at [`Level::Warning`].
pub fn warn(msg: &str) {
    log(Level::Warning, msg)
}

/// Logs `msg` at [`Level::Error`].
pub fn error(msg: &str) {
    log(Level::Error, msg)
}
