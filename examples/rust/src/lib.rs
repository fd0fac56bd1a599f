//! The wasmcp example tools in Rust, the same set as examples/go/everything
//! (which mirrors the MCP "everything" server):
//!
//! ```text
//! echo                    {"message":"hi"}        -> "Echo: hi"
//! get-sum                 {"a":7,"b":5}           -> "The sum of 7 and 5 is 12."
//! get-structured-content  {"location":"Chicago"}  -> structured weather, with an output schema
//! get-tiny-image          {}                      -> text, a 16x16 PNG, text
//! get-resource-links      {"count":2}             -> text and resource links
//! get-error               {"message":"why"}       -> isError: true
//! ```
//!
//! Build (from this directory; `make plugins` does it with Debian's toolchain):
//!
//! ```text
//! RUSTC=/usr/bin/rustc /usr/bin/cargo build --release --target wasm32-wasi
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wasmcp::{CallResult, Content, Structured, Tool, Toolbox};

/// Every tool only reads its arguments.
const HINTS: &str = r#"{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}"#;

#[derive(Deserialize)]
struct EchoArgs {
    message: String,
}

#[derive(Deserialize)]
struct SumArgs {
    a: f64,
    b: f64,
}

#[derive(Deserialize)]
struct WeatherArgs {
    location: String,
}

/// The structured result of get-structured-content; fields serialize in
/// this order.
#[derive(Serialize)]
struct Weather {
    temperature: f64,
    conditions: &'static str,
    humidity: f64,
}

#[derive(Deserialize)]
struct LinksArgs {
    #[serde(default)]
    count: Option<u32>,
}

#[derive(Deserialize)]
struct ErrorArgs {
    #[serde(default)]
    message: String,
}

/// Fixed, made-up values, so that results are deterministic.
fn weather(location: &str) -> Option<Weather> {
    match location {
        "New York" => Some(Weather {
            temperature: 22.5,
            conditions: "Partly cloudy",
            humidity: 65.0,
        }),
        "Chicago" => Some(Weather {
            temperature: 18.0,
            conditions: "Windy",
            humidity: 55.0,
        }),
        "Los Angeles" => Some(Weather {
            temperature: 28.3,
            conditions: "Sunny",
            humidity: 40.0,
        }),
        _ => None,
    }
}

/// A 16x16 RGB PNG (322 bytes): a colour gradient crossed by two dark
/// diagonals, the same image as the Go example's.
const TINY_PNG: &str = concat!(
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABCUlEQVR42oySIY+DQBCFJxRNQrLVuM1JHBpXjcO9BMdfWM1fwDUZh6vGoXHodaupwm9y",
    "6YX2YLt3dIJhZ77deTMvFOLL3jkm+uSTAuHdshAgy3QU8oTZckgxWeJlQRz9x2QL9E/BAyCiKGZjECd+5mIwPlPBq8Ek5cngvfHSoE/59Rtsc2nOw7Rj",
    "6gldztuTwLkvL/g2rIwa0BbsFKwatlFUfL2CiJrKI8kD/IYv5QFuClXzWKVSaBv3EVfDoFC0a99Ny7Vy57YDphp5t1PZdlzW8AOmRNrz+x66ni8l3Ckt",
    "GZLxT2v0I2cZ9Pi0xkki0gfmGzVLiVlzKCTsfGxVItIzn8/4DgAA///FsmU2KdbO8QAAAABJRU5ErkJggg==",
);

/// The module's tools, in the order clients list them.
pub fn tools() -> Toolbox {
    Toolbox::new()
        .tool(
            Tool::new("echo")
                .description("Echoes back the input message.")
                .input_schema(concat!(
                    r#"{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},"#,
                    r#""required":["message"],"additionalProperties":false}"#
                ))
                .annotations(HINTS)
                .handler(|a: EchoArgs| {
                    wasmcp::debug(&format!("echo: {}", a.message));
                    format!("Echo: {}", a.message)
                }),
        )
        .tool(
            Tool::new("get-sum")
                .title("Sum")
                .description("Returns the sum of two numbers.")
                .input_schema(concat!(
                    r#"{"type":"object","properties":{"a":{"type":"number","description":"First number."},"#,
                    r#""b":{"type":"number","description":"Second number."}},"required":["a","b"],"#,
                    r#""additionalProperties":false}"#
                ))
                .annotations(HINTS)
                // Display prints the shortest digits that read back as the
                // number, never an exponent: 7, 0.5, 0.30000000000000004.
                .handler(|a: SumArgs| -> Result<String, String> {
                    let sum = a.a + a.b;
                    if !sum.is_finite() {
                        return Err("The sum is out of the range of a 64-bit float.".into());
                    }
                    Ok(format!("The sum of {} and {} is {}.", a.a, a.b, sum))
                }),
        )
        .tool(
            Tool::new("get-structured-content")
                .description("Returns the current weather for a city as structured content (made-up, fixed values).")
                .input_schema(concat!(
                    r#"{"type":"object","properties":{"location":{"type":"string","description":"City name.","#,
                    r#""enum":["New York","Chicago","Los Angeles"]}},"required":["location"],"additionalProperties":false}"#
                ))
                .output_schema(concat!(
                    r#"{"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in degrees Celsius."},"#,
                    r#""conditions":{"type":"string","description":"Weather conditions."},"#,
                    r#""humidity":{"type":"number","description":"Relative humidity in percent.","minimum":0,"maximum":100}},"#,
                    r#""required":["temperature","conditions","humidity"],"additionalProperties":false}"#
                ))
                .annotations(HINTS)
                .handler(|a: WeatherArgs| {
                    // Unknown cities do not reach here: the host validates
                    // location against the enum.
                    weather(&a.location).map(Structured).ok_or_else(|| {
                        format!("no weather for {:?}; choose New York, Chicago or Los Angeles", a.location)
                    })
                }),
        )
        .tool(
            Tool::new("get-tiny-image")
                .description("Returns a tiny PNG image between two text blocks.")
                .annotations(HINTS)
                .handler(|_: Value| {
                    vec![
                        Content::text("This is a tiny image:"),
                        Content::Image { data: TINY_PNG.into(), mime_type: "image/png".into() },
                        Content::text("The image above is a 16x16 PNG."),
                    ]
                }),
        )
        .tool(
            Tool::new("get-resource-links")
                .description("Returns links to example resources.")
                .input_schema(concat!(
                    r#"{"type":"object","properties":{"count":{"type":"integer","description":"Number of links to return.","#,
                    r#""default":3,"minimum":1,"maximum":10}},"additionalProperties":false}"#
                ))
                .annotations(HINTS)
                .handler(|a: LinksArgs| {
                    let n = a.count.unwrap_or(3);
                    let mut res = CallResult::text(format!("Here are {} resource links:", n));
                    for i in 1..=n {
                        res = res.with(Content::ResourceLink {
                            uri: format!("test://static/resource/{}", i),
                            name: format!("Resource {}", i),
                            title: None,
                            description: Some(format!("Example resource number {}", i)),
                            mime_type: Some("text/plain".into()),
                            size: None,
                        });
                    }
                    res
                }),
        )
        .tool(
            Tool::new("get-error")
                .description("Always fails with a tool error (isError: true), to test error handling.")
                .input_schema(concat!(
                    r#"{"type":"object","properties":{"message":{"type":"string","description":"Error message to return."}},"#,
                    r#""additionalProperties":false}"#
                ))
                .annotations(HINTS)
                .handler(|a: ErrorArgs| -> Result<String, String> {
                    let message = if a.message.is_empty() { "this tool always fails" } else { &a.message };
                    wasmcp::error(&format!("get-error: {}", message));
                    Err(format!("get-error: {}", message))
                }),
        )
}

wasmcp::export!(tools);

#[cfg(test)]
mod tests {
    #[test]
    fn results() {
        let t = super::tools();
        let cases = [
            (
                "echo",
                r#"{"message":"hi"}"#,
                r#"{"content":[{"type":"text","text":"Echo: hi"}]}"#,
            ),
            (
                "get-sum",
                r#"{"a":0.1,"b":0.2}"#,
                r#"{"content":[{"type":"text","text":"The sum of 0.1 and 0.2 is 0.30000000000000004."}]}"#,
            ),
            (
                "get-sum",
                r#"{"a":1e21,"b":0}"#,
                r#"{"content":[{"type":"text","text":"The sum of 1000000000000000000000 and 0 is 1000000000000000000000."}]}"#,
            ),
            (
                "get-sum",
                r#"{"a":1e308,"b":1e308}"#,
                r#"{"content":[{"type":"text","text":"The sum is out of the range of a 64-bit float."}],"isError":true}"#,
            ),
            (
                "get-structured-content",
                r#"{"location":"Chicago"}"#,
                r#"{"content":[],"structuredContent":{"temperature":18.0,"conditions":"Windy","humidity":55.0}}"#,
            ),
            (
                "get-error",
                "{}",
                r#"{"content":[{"type":"text","text":"get-error: this tool always fails"}],"isError":true}"#,
            ),
        ];
        for (tool, args, want) in cases {
            assert_eq!(t.call(tool, args.as_bytes()), want, "{} {}", tool, args);
        }
    }
}
