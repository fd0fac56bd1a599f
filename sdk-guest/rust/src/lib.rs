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
//! Beside its tools, a module may offer [resources](Resource), [resource
//! templates](ResourceTemplate) (RFC 6570: the SDK matches a URI and hands
//! the handler its [`Variables`]) and [prompts](Prompt), whose arguments and
//! variables a [completion](Completion) handler may suggest values for. A
//! handler that cannot answer returns an [`Error`] with the ABI's code:
//!
//! ```
//! use serde::Deserialize;
//! use wasmcp::{Content, Error, Prompt, PromptArgument, PromptMessage, Resource, ResourceTemplate, Toolbox, Variables};
//!
//! #[derive(Deserialize)]
//! struct ReviewArgs {
//!     diff: String,
//! }
//!
//! fn offers() -> Toolbox {
//!     Toolbox::new()
//!         .resource(Resource::new("notes://welcome", "welcome").mime_type("text/markdown").text("# Welcome"))
//!         .resource_template(ResourceTemplate::new("file:///{+path}", "files").handler(
//!             |_: &str, vars: &Variables| match vars["path"].as_str() {
//!                 "readme.md" => Ok("# Read me"),
//!                 path => Err(Error::not_found(format!("no file {}", path))),
//!             },
//!         ))
//!         .prompt(
//!             Prompt::new("review")
//!                 .argument(PromptArgument::new("diff").required())
//!                 .handler(|a: ReviewArgs| {
//!                     vec![
//!                         PromptMessage::user(Content::text("Review this change:")),
//!                         PromptMessage::user(Content::embedded_text("diff://current", Some("text/x-diff"), a.diff)),
//!                     ]
//!                 }),
//!         )
//! }
//!
//! wasmcp::export!(offers);
//! # fn main() {
//! #     let t = offers();
//! #     assert_eq!(t.read("file:///readme.md"), r##"{"contents":[{"uri":"file:///readme.md","text":"# Read me"}]}"##);
//! #     assert_eq!(t.read("file:///x"), r#"{"error":{"code":-32002,"message":"no file x"}}"#);
//! #     assert!(t.get_prompt("review", br#"{"diff":"-a"}"#).contains(r#""text":"-a""#));
//! # }
//! ```
//!
//! Run natively (`cargo test`), the same code calls tools through
//! [`Toolbox::call`] (and reads, gets prompts and completes through
//! [`Toolbox::read`], [`Toolbox::get_prompt`], [`Toolbox::complete`]) and
//! log lines go to standard error.

mod base64;
mod error;
mod http;
mod log;
mod offers;
mod permissions;
mod prompt;
mod resource;
mod result;
mod tool;
mod uritemplate;

pub use crate::http::{http, HttpError, Request, Response};
pub use crate::log::{debug, error, info, log, warn, Level};
pub use base64::encode as base64_encode;
pub use error::Error;
pub use permissions::Permissions;
pub use prompt::{
    Completion, CompletionRequest, IntoCompletion, IntoPromptResult, Prompt, PromptArgument,
    PromptMessage, PromptResult, Role,
};
pub use resource::{IntoContents, Resource, ResourceTemplate, Variables};
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

/// The most resources one module may define.
pub const MAX_RESOURCES: usize = 1024;

/// The most resource templates one module may define.
pub const MAX_RESOURCE_TEMPLATES: usize = 256;

/// The most prompts one module may define.
pub const MAX_PROMPTS: usize = 1024;

/// The longest resource URI or URI template, in bytes.
pub const MAX_URI_LEN: usize = 2048;

/// The most arguments one prompt may have.
pub const MAX_PROMPT_ARGUMENTS: usize = 64;

/// The most values a completion sends.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Defines the module's ABI exports (`wasmcp_abi_version`, `wasmcp_alloc`,
/// `wasmcp_describe`, `wasmcp_call`, and `wasmcp_read`, `wasmcp_prompt`,
/// `wasmcp_complete` for resources and prompts) around a function returning
/// the module's [`Toolbox`]. Use it once, at the root of the crate. The
/// function runs once per instance, when the host first asks for the tools.
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

            #[export_name = "wasmcp_read"]
            extern "C" fn wasmcp_read(uri_ptr: u32, uri_len: u32) -> u64 {
                $crate::__abi::read($tools, uri_ptr, uri_len)
            }

            #[export_name = "wasmcp_prompt"]
            extern "C" fn wasmcp_prompt(
                name_ptr: u32,
                name_len: u32,
                args_ptr: u32,
                args_len: u32,
            ) -> u64 {
                $crate::__abi::prompt($tools, name_ptr, name_len, args_ptr, args_len)
            }

            #[export_name = "wasmcp_complete"]
            extern "C" fn wasmcp_complete(req_ptr: u32, req_len: u32) -> u64 {
                $crate::__abi::complete($tools, req_ptr, req_len)
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
                start(&mut s, init);
            }
            f(&mut s)
        })
    }

    /// Makes the toolbox, once per instance. Apart from with_tools, which
    /// each export instantiates, so that its code is there once.
    #[inline(never)]
    fn start(s: &mut State, init: fn() -> Toolbox) {
        // A panic aborts the instance (the host reports it as a failed
        // call); log its message first, since a guest's stderr is
        // discarded.
        std::panic::set_hook(Box::new(|info| {
            crate::log(crate::Level::Critical, &info.to_string())
        }));
        s.tools = Some(init());
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

    /// Reports whether name and args, which follow it, lie in the region of
    /// the last wasmcp_alloc, the only one known to be ours (ABI.md §3). An
    /// export of one input passes it as name, args_len 0.
    fn in_input(s: &State, name_ptr: u32, name_len: u32, args_ptr: u32, args_len: u32) -> bool {
        let (name_len, args_len) = (name_len as usize, args_len as usize);
        !(s.input.is_empty() && name_len + args_len > 0
            || name_ptr != s.input.as_ptr() as usize as u32
            || args_ptr as usize != name_ptr as usize + name_len
            || name_len + args_len > s.input.len())
    }

    pub fn call(
        init: fn() -> Toolbox,
        name_ptr: u32,
        name_len: u32,
        args_ptr: u32,
        args_len: u32,
    ) -> u64 {
        with_tools(init, |s| {
            let (name_len, args_len) = (name_len as usize, args_len as usize);
            s.output = if !in_input(s, name_ptr, name_len as u32, args_ptr, args_len as u32) {
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

    /// The exports of resources and prompts.
    #[derive(Clone, Copy)]
    enum Export {
        Read,
        Prompt,
        Complete,
    }

    /// Answers an export of the addition through the toolbox's offers,
    /// which a module of tools alone lacks: a host calls these only for a
    /// module whose Describe document lists what they serve (ABI.md §2),
    /// and 0 tells any other that there is no document. An export of one
    /// input has it as the name.
    fn offered(
        init: fn() -> Toolbox,
        export: Export,
        (name_ptr, name_len, args_ptr, args_len): (u32, u32, u32, u32),
    ) -> u64 {
        with_tools(init, |s| {
            let offers = match s.tools.as_ref().and_then(|t| t.offers.as_deref()) {
                Some(o) => o,
                None => return 0,
            };
            let out = if !in_input(s, name_ptr, name_len, args_ptr, args_len) {
                offers.outside(match export {
                    Export::Read => "wasmcp_read",
                    Export::Prompt => "wasmcp_prompt",
                    Export::Complete => "wasmcp_complete",
                })
            } else {
                let (name, args) = s.input.split_at(name_len as usize);
                match export {
                    Export::Read => offers.read(name),
                    Export::Prompt => offers.prompt(name, &args[..args_len as usize]),
                    Export::Complete => offers.complete(name),
                }
            };
            s.output = out;
            pack(s.output.as_ptr(), s.output.len())
        })
    }

    pub fn read(init: fn() -> Toolbox, uri_ptr: u32, uri_len: u32) -> u64 {
        offered(
            init,
            Export::Read,
            (uri_ptr, uri_len, uri_ptr.wrapping_add(uri_len), 0),
        )
    }

    pub fn prompt(
        init: fn() -> Toolbox,
        name_ptr: u32,
        name_len: u32,
        args_ptr: u32,
        args_len: u32,
    ) -> u64 {
        offered(
            init,
            Export::Prompt,
            (name_ptr, name_len, args_ptr, args_len),
        )
    }

    pub fn complete(init: fn() -> Toolbox, req_ptr: u32, req_len: u32) -> u64 {
        offered(
            init,
            Export::Complete,
            (req_ptr, req_len, req_ptr.wrapping_add(req_len), 0),
        )
    }
}
