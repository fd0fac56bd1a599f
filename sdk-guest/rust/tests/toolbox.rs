//! Tests of the public API, run natively with `cargo test`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use wasmcp::{CallResult, Content, Permissions, Structured, Tool, Toolbox};

#[derive(Deserialize)]
struct Greet {
    name: String,
    #[serde(default)]
    times: u32,
}

#[derive(Serialize)]
struct Weather {
    temperature: f64,
    conditions: &'static str,
    humidity: i64,
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .tool(
            Tool::new("greet")
                .title("Greeter")
                .description("Says hello.")
                .input_schema(r#"{"type":"object","properties":{"name":{"type":"string"},"times":{"type":"integer"}},"required":["name"]}"#)
                .annotations(json!({"readOnlyHint": true}))
                .handler(|a: Greet| format!("Hello, {}!{}", a.name, "!".repeat(a.times as usize))),
        )
        .tool(
            Tool::new("weather")
                .output_schema(r#"{"type":"object"}"#)
                .handler(|_: Value| Structured(Weather { temperature: 22.5, conditions: "Sunny", humidity: 40 })),
        )
        .tool(Tool::new("fail").handler(|_: Value| -> Result<String, String> { Err("it failed".into()) }))
        .tool(Tool::new("image").handler(|_: Value| {
            CallResult::text("an image").with(Content::image(b"\x89PNG", "image/png"))
        }))
        .tool(Tool::new("bad-image").handler(|_: Value| Content::image(b"", "image/png")))
        .tool(Tool::new("not.object").handler(|_: Value| CallResult::structured(&[1, 2])))
        .tool(Tool::new("links").handler(|_: Value| {
            vec![
                Content::resource_link("file:///a.txt", "a.txt"),
                Content::embedded_text("mem://x", Some("text/plain"), "x"),
                Content::embedded_blob("mem://y", None, b"y"),
                Content::audio(b"RIFF", "audio/wav"),
            ]
        }))
}

#[test]
fn describe_lists_tools_in_order() {
    let doc = toolbox().describe().unwrap();
    assert_eq!(
        doc,
        concat!(
            r#"{"tools":[{"name":"greet","title":"Greeter","description":"Says hello.","#,
            r#""inputSchema":{"type":"object","properties":{"name":{"type":"string"},"times":{"type":"integer"}},"required":["name"]},"#,
            r#""annotations":{"readOnlyHint":true}},"#,
            r#"{"name":"weather","inputSchema":{"type":"object","additionalProperties":false},"outputSchema":{"type":"object"}},"#,
            r#"{"name":"fail","inputSchema":{"type":"object","additionalProperties":false}},"#,
            r#"{"name":"image","inputSchema":{"type":"object","additionalProperties":false}},"#,
            r#"{"name":"bad-image","inputSchema":{"type":"object","additionalProperties":false}},"#,
            r#"{"name":"not.object","inputSchema":{"type":"object","additionalProperties":false}},"#,
            r#"{"name":"links","inputSchema":{"type":"object","additionalProperties":false}}]}"#
        )
    );
}

#[test]
fn call_results() {
    let t = toolbox();
    let cases: &[(&str, &str, &str)] = &[
        (
            "greet",
            r#"{"name":"R\"ust\"","times":2}"#,
            r#"{"content":[{"type":"text","text":"Hello, R\"ust\"!!!"}]}"#,
        ),
        (
            "weather",
            "",
            r#"{"content":[],"structuredContent":{"temperature":22.5,"conditions":"Sunny","humidity":40}}"#,
        ),
        (
            "fail",
            "{}",
            r#"{"content":[{"type":"text","text":"it failed"}],"isError":true}"#,
        ),
        (
            "image",
            "{}",
            r#"{"content":[{"type":"text","text":"an image"},{"type":"image","data":"iVBORw==","mimeType":"image/png"}]}"#,
        ),
        (
            "bad-image",
            "{}",
            r#"{"content":[{"type":"text","text":"tool bad-image returned an invalid result: an image or audio block needs data and a MIME type"}],"isError":true}"#,
        ),
        (
            "not.object",
            "{}",
            r#"{"content":[{"type":"text","text":"structured content must be a JSON object, not [1,2]"}],"isError":true}"#,
        ),
        (
            "links",
            "{}",
            concat!(
                r#"{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"},"#,
                r#"{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"x"}},"#,
                r#"{"type":"resource","resource":{"uri":"mem://y","blob":"eQ=="}},"#,
                r#"{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]}"#
            ),
        ),
        (
            "missing",
            "{}",
            r#"{"content":[{"type":"text","text":"unknown tool \"missing\""}],"isError":true}"#,
        ),
        (
            "greet",
            r#"{"name":7}"#,
            r#"{"content":[{"type":"text","text":"invalid arguments for tool greet: invalid type: integer `7`, expected a string at line 1 column 9"}],"isError":true}"#,
        ),
    ];
    for (tool, args, want) in cases {
        assert_eq!(
            &t.call(tool, args.as_bytes()),
            want,
            "call {} {}",
            tool,
            args
        );
    }
}

#[test]
fn refused_definitions() {
    let h = |_: Value| "";
    let cases: Vec<(Tool, &str)> = vec![
        (Tool::new("bad name").handler(h), "a name must be"),
        (Tool::new("").handler(h), "a name must be"),
        (Tool::new("x".repeat(129)).handler(h), "a name must be"),
        (Tool::new("no-handler"), "no handler"),
        (
            Tool::new("s1")
                .input_schema(r#"{"type":"string"}"#)
                .handler(h),
            "\"type\" must be \"object\"",
        ),
        (
            Tool::new("s2").input_schema("{").handler(h),
            "not valid JSON",
        ),
        (
            Tool::new("s3").output_schema("[]").handler(h),
            "not a JSON object",
        ),
        (
            Tool::new("s4").annotations(json!(true)).handler(h),
            "annotations: not a JSON object",
        ),
        (Tool::new("greet").handler(h), "registered twice"),
    ];
    for (tool, want) in cases {
        let err = toolbox().tool(tool).describe().unwrap_err();
        assert!(
            err.contains(want),
            "error {:?} does not contain {:?}",
            err,
            want
        );
    }
    // The longest name is accepted.
    assert!(toolbox()
        .tool(Tool::new("x".repeat(128)).handler(h))
        .describe()
        .is_ok());
}

#[test]
fn permissions_add_up() {
    let doc = Toolbox::new()
        .permissions(
            Permissions::new()
                .fs_writable("/data")
                .fs("/etc/zoneinfo")
                .net("https://api.example.com"),
        )
        .permissions(
            Permissions::new()
                .env("TZ")
                .env("HOME")
                .clock()
                .net("http://127.0.0.1:8080"),
        )
        .permissions(Permissions::new())
        .tool(Tool::new("t").handler(|_: Value| ""))
        .describe()
        .unwrap();
    assert_eq!(
        doc,
        concat!(
            r#"{"tools":[{"name":"t","inputSchema":{"type":"object","additionalProperties":false}}],"#,
            r#""permissions":{"fs":[{"path":"/data","write":true},{"path":"/etc/zoneinfo"}],"#,
            r#""env":["TZ","HOME"],"clock":true,"net":["https://api.example.com","http://127.0.0.1:8080"]}}"#
        )
    );
    // Without a request, no permissions member.
    assert!(!toolbox().describe().unwrap().contains("permissions"));
    assert!(Toolbox::new()
        .permissions(Permissions::new().random())
        .describe()
        .unwrap()
        .ends_with(r#""permissions":{"random":true}}"#));
}

#[test]
fn refused_permissions() {
    for (p, want) in [
        (Permissions::new().fs("data"), "a path must be absolute"),
        (Permissions::new().env("A=B"), "without '='"),
        (Permissions::new().env(""), "without '='"),
        (Permissions::new().net(""), "must not be empty"),
    ] {
        let err = toolbox().permissions(p).describe().unwrap_err();
        assert!(
            err.contains(want),
            "error {:?} does not contain {:?}",
            err,
            want
        );
    }
}
