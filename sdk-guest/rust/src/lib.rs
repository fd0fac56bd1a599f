//! Write [wasmcp](https://github.com/wasmcp/wasmcp) tools in Rust.
//!
//! A tool module is a `cdylib` crate built for `wasm32-wasi`. It lists its
//! tools in a function returning a [`Toolbox`] and names that function in
//! [`export!`], which defines the exports of the wasmcp guest ABI
//! (`abi/ABI.md`); nothing else about the ABI shows:
//!
//! ```
//! use serde::Deserialize;
//! use wasmcp::{Tool, Toolbox};
//!
//! #[derive(Deserialize)]
//! struct EchoArgs {
//!     message: String,
//! }
//!
//! fn tools() -> Toolbox {
//!     Toolbox::new().tool(
//!         Tool::new("echo")
//!             .description("Echoes back the input message.")
//!             .input_schema(r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#)
//!             .handler(|args: EchoArgs| format!("Echo: {}", args.message)),
//!     )
//! }
//!
//! wasmcp::export!(tools);
//! # fn main() {
//! #     let doc = tools().call("echo", br#"{"message":"hi"}"#);
//! #     assert_eq!(doc, r#"{"content":[{"type":"text","text":"Echo: hi"}]}"#);
//! # }
//! ```
//!
//! A handler takes its arguments as any type serde can deserialize (a struct,
//! or [`serde_json::Value`]) and returns anything that is [`IntoCallResult`]:
//! a `String` (one text block), a [`CallResult`] (content blocks, structured
//! content, a tool error), [`Structured`] (structured content), or a
//! `Result` of one of those whose error becomes a tool error.
//!
//! A module asks for more than the closed sandbox (directories, variables,
//! clocks, randomness, network origins) with [`Toolbox::permissions`], and
//! makes HTTP requests through the host with [`http()`].
//!
//! Run natively (`cargo test`), the same code calls tools through
//! [`Toolbox::call`] and log lines go to standard error.

mod base64;
mod http;
mod log;
mod permissions;
mod result;
mod tool;

pub use crate::http::{http, HttpError, Request, Response};
pub use crate::log::{debug, error, info, log, warn, Level};
pub use base64::encode as base64_encode;
pub use permissions::Permissions;
pub use result::{CallResult, Content, EmbeddedResource, IntoCallResult, Structured};
pub use tool::{IntoSchema, Tool, Toolbox};

/// The version of the wasmcp guest ABI this crate speaks.
pub const ABI_VERSION: i32 = 1;

/// The longest tool name, in bytes.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// The largest number of tools one module may define.
pub const MAX_TOOLS: usize = 1024;

/// The longest log message, in bytes; longer ones are truncated.
pub const MAX_LOG_SIZE: usize = 64 << 10;

/// Defines the module's ABI exports (`wasmcp_abi_version`, `wasmcp_alloc`,
/// `wasmcp_describe`, `wasmcp_call`) around a function returning the
/// module's [`Toolbox`]. Use it once, at the root of the crate. The function
/// runs once per instance, when the host first asks for the tools.
///
/// Outside WebAssembly it expands to nothing, so the crate still builds and
/// tests natively.
#[macro_export]
macro_rules! export {
    ($tools:path) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            #[export_name = "wasmcp_abi_version"]
            extern "C" fn wasmcp_abi_version() -> i32 {
                $crate::ABI_VERSION
            }

            #[export_name = "wasmcp_alloc"]
            extern "C" fn wasmcp_alloc(size: u32) -> u32 {
                $crate::__abi::alloc(size)
            }

            #[export_name = "wasmcp_describe"]
            extern "C" fn wasmcp_describe() -> u64 {
                $crate::__abi::describe($tools)
            }

            #[export_name = "wasmcp_call"]
            extern "C" fn wasmcp_call(
                name_ptr: u32,
                name_len: u32,
                args_ptr: u32,
                args_len: u32,
            ) -> u64 {
                $crate::__abi::call($tools, name_ptr, name_len, args_ptr, args_len)
            }
        };
    };
}

/// The state behind the exports [`export!`] defines. Not part of the API.
#[doc(hidden)]
pub mod __abi {
    use crate::Toolbox;
    use std::cell::RefCell;

    /// What an instance keeps between exports. WebAssembly instances are
    /// single-threaded and the host never re-enters one (ABI.md §3).
    struct State {
        tools: Option<Toolbox>,
        /// The region of the last wasmcp_alloc: tool name, then arguments.
        input: Vec<u8>,
        /// The last document returned, kept until the host copied it.
        output: String,
        describe: Option<String>,
    }

    thread_local! {
        static STATE: RefCell<State> = RefCell::new(State {
            tools: None,
            input: Vec::new(),
            output: String::new(),
            describe: None,
        });
    }

    /// Inputs above this are refused (0) rather than aborting on an
    /// impossible allocation.
    const MAX_ALLOC: u32 = 1 << 30;

    /// Inputs up to this size keep their buffer for the next call.
    const KEEP_INPUT: usize = 64 << 10;

    fn pack(ptr: *const u8, len: usize) -> u64 {
        (ptr as usize as u64) << 32 | len as u64
    }

    fn with_tools<R>(init: fn() -> Toolbox, f: impl FnOnce(&mut State) -> R) -> R {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.tools.is_none() {
                // A panic aborts the instance (the host reports it as a
                // failed call); log its message first, since a guest's
                // stderr is discarded.
                std::panic::set_hook(Box::new(|info| {
                    crate::log(crate::Level::Critical, &info.to_string())
                }));
                s.tools = Some(init());
            }
            f(&mut s)
        })
    }

    pub fn alloc(size: u32) -> u32 {
        if size > MAX_ALLOC {
            return 0;
        }
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            s.output = String::new(); // the host copied it before calling again
            if s.input.capacity() > KEEP_INPUT {
                s.input = Vec::new();
            }
            s.input.clear();
            if s.input.try_reserve_exact(size.max(1) as usize).is_err() {
                return 0;
            }
            s.input.resize(size as usize, 0);
            s.input.as_mut_ptr() as usize as u32
        })
    }

    pub fn describe(init: fn() -> Toolbox) -> u64 {
        with_tools(init, |s| {
            if s.describe.is_none() {
                match s.tools.as_ref().map(Toolbox::describe) {
                    Some(Ok(doc)) => s.describe = Some(doc),
                    Some(Err(err)) => {
                        crate::log(crate::Level::Critical, &format!("wasmcp_describe: {}", err));
                        return 0;
                    }
                    None => return 0,
                }
            }
            let doc = s
                .describe
                .as_ref()
                .map(|d| d.as_bytes())
                .unwrap_or_default();
            pack(doc.as_ptr(), doc.len())
        })
    }

    pub fn call(
        init: fn() -> Toolbox,
        name_ptr: u32,
        name_len: u32,
        args_ptr: u32,
        args_len: u32,
    ) -> u64 {
        with_tools(init, |s| {
            let base = s.input.as_ptr() as usize as u32;
            let (name_len, args_len) = (name_len as usize, args_len as usize);
            // Only the region from wasmcp_alloc is known to be ours (ABI.md §3).
            s.output = if s.input.is_empty() && name_len + args_len > 0
                || name_ptr != base
                || args_ptr as usize != name_ptr as usize + name_len
                || name_len + args_len > s.input.len()
            {
                crate::tool::error_doc("wasmcp_call: name and arguments are not in the region returned by wasmcp_alloc")
            } else {
                let (name, args) = s.input.split_at(name_len);
                let name = String::from_utf8_lossy(name);
                match &s.tools {
                    Some(t) => t.call(&name, &args[..args_len]),
                    None => crate::tool::error_doc("no tools"),
                }
            };
            pack(s.output.as_ptr(), s.output.len())
        })
    }
}
