//! The Rust kernel as a wasmcp tool, work_rust: {"kernel":"scan"|"diff","n":N}
//! returns the checksum as text.

mod kernel;

use serde::Deserialize;
use wasmcp::{Tool, Toolbox};

#[derive(Deserialize)]
struct Args {
    kernel: String,
    n: usize,
}

fn tools() -> Toolbox {
    Toolbox::new().tool(
        Tool::new("work_rust")
            .description("The bench's CPU-bound kernels in Rust.")
            .input_schema(concat!(
                r#"{"type":"object","properties":{"kernel":{"enum":["scan","diff"]},"#,
                r#""n":{"type":"integer","minimum":0}},"required":["kernel","n"]}"#
            ))
            .handler(|a: Args| {
                let sum = if a.kernel == "scan" { kernel::scan(a.n) } else { kernel::diff(a.n) };
                sum.to_string()
            }),
    )
}

wasmcp::export!(tools);
