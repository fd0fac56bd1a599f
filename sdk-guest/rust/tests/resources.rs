//! Tests of resources, resource templates, prompts and completion, run
//! natively with `cargo test`.

use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use wasmcp::{
    Completion, CompletionRequest, Content, EmbeddedResource, Error, Prompt, PromptArgument,
    PromptMessage, PromptResult, Resource, ResourceTemplate, Toolbox, Variables,
};

#[derive(Deserialize)]
struct ReviewArgs {
    diff: String,
    focus: Option<String>,
}

fn review(a: ReviewArgs) -> PromptResult {
    let mut r = PromptResult::new(vec![
        PromptMessage::user(Content::text("Review this change:")),
        PromptMessage::user(Content::embedded_text(
            "diff://current",
            Some("text/x-diff"),
            a.diff,
        )),
    ])
    .description("Review a diff");
    if let Some(f) = a.focus {
        r = r.with(PromptMessage::assistant(Content::text(format!(
            "I will focus on {}.",
            f
        ))));
    }
    r
}

fn focus(req: &CompletionRequest) -> Completion {
    assert_eq!(req.argument, "focus");
    let values: Vec<String> = ["security", "style", "speed"]
        .iter()
        .filter(|a| a.starts_with(&req.value))
        .map(|a| a.to_string())
        .collect();
    Completion::new(values).total(3)
}

/// A handler answering with the variables it got, as JSON.
fn vars(_: &str, v: &Variables) -> Result<String, Error> {
    match v.get("path").map(String::as_str) {
        Some("missing") => Err(Error::not_found("no file missing")),
        _ => Ok(serde_json::to_string(v).unwrap()),
    }
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .resource(
            Resource::new("text://greeting", "greeting")
                .title("Greeting")
                .description("A fixed text.")
                .mime_type("text/plain")
                .text("Hello, resources!"),
        )
        .resource(
            Resource::new("blob://bytes", "bytes")
                .mime_type("application/octet-stream")
                .size(4)
                .annotations(json!({"audience": ["user"]}))
                .handler(|_: &str| vec![0u8, 0xff, 0x10, 0x80]),
        )
        .resource(Resource::new("test://parts", "parts").handler(|uri: &str| {
            vec![
                EmbeddedResource::text(uri, None, format!("{} has 2 parts", uri)),
                EmbeddedResource::text("test://parts/1", None, "one"),
                EmbeddedResource::blob("test://parts/2", Some("image/png"), b"\x89PNG"),
            ]
        }))
        .resource(Resource::new("test://fails", "fails").handler(
            |uri: &str| -> Result<String, Error> { Err(format!("{} is on fire", uri).into()) },
        ))
        .resource(
            Resource::new("test://nothing", "nothing")
                .handler(|_: &str| Vec::<EmbeddedResource>::new()),
        )
        .resource(
            Resource::new("test://bad", "bad")
                .handler(|_: &str| EmbeddedResource::text("", None, "no uri")),
        )
        .resource(
            Resource::new("ui://app/view", "view")
                .mime_type("text/html;profile=mcp-app")
                .meta(r#"{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}"#)
                .text("<p>hi</p>"),
        )
        // A resource is served before any template that matches its URI.
        .resource(Resource::new("file:///fixed", "fixed").text("fixed"))
        .resource_template(
            ResourceTemplate::new("file:///{+path}", "files")
                .mime_type("text/plain")
                .handler(vars)
                .complete(|req: &CompletionRequest| {
                    ["a.txt", "b.txt", "notes/c.md"]
                        .into_iter()
                        .filter(|p| p.starts_with(&req.value))
                        .collect::<Vec<_>>()
                }),
        )
        // Longer text before the first expression: preferred where both match.
        .resource_template(ResourceTemplate::new("file:///docs/{name}", "docs").handler(vars))
        .resource_template(
            ResourceTemplate::new("notes://{id}{?lang,fmt}", "notes")
                .icons(r#"[{"src":"https://example.com/n.png"}]"#)
                .handler(vars),
        )
        .prompt(
            Prompt::new("review")
                .title("Review")
                .description("Reviews a diff.")
                .argument(
                    PromptArgument::new("diff")
                        .description("The diff to review.")
                        .required(),
                )
                .argument(PromptArgument::new("focus").title("Focus"))
                .handler(review)
                .complete(focus),
        )
        .prompt(Prompt::new("blocks").handler(|_: Value| {
            vec![
                PromptMessage::user(Content::image(b"\x89PNG", "image/png")),
                PromptMessage::assistant(Content::audio(b"RIFF", "audio/wav")),
                PromptMessage::user(Content::resource_link("test://a", "a")),
                PromptMessage::user(Content::embedded_blob("test://b", None, b"b")),
            ]
        }))
        .prompt(Prompt::new("none").handler(|_: Value| Vec::<PromptMessage>::new()))
        .prompt(
            Prompt::new("bad")
                .handler(|_: Value| vec![PromptMessage::user(Content::image(b"", "image/png"))]),
        )
        .prompt(
            Prompt::new("refuses")
                .argument(PromptArgument::new("x"))
                .handler(|a: BTreeMap<String, String>| -> Result<String, Error> {
                    Err(Error::invalid_params(format!("cannot use {}", a["x"])))
                })
                .complete(|_: &CompletionRequest| vec!["v".to_string(); 150]),
        )
}

#[test]
fn describe() {
    assert_eq!(
        toolbox().describe().unwrap(),
        concat!(
            r#"{"tools":[],"resources":["#,
            r#"{"uri":"text://greeting","name":"greeting","title":"Greeting","description":"A fixed text.","mimeType":"text/plain"},"#,
            r#"{"uri":"blob://bytes","name":"bytes","mimeType":"application/octet-stream","size":4,"annotations":{"audience":["user"]}},"#,
            r#"{"uri":"test://parts","name":"parts"},{"uri":"test://fails","name":"fails"},"#,
            r#"{"uri":"test://nothing","name":"nothing"},{"uri":"test://bad","name":"bad"},"#,
            r#"{"uri":"ui://app/view","name":"view","mimeType":"text/html;profile=mcp-app","#,
            r#""_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}},"#,
            r#"{"uri":"file:///fixed","name":"fixed"}],"#,
            r#""resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files","mimeType":"text/plain"},"#,
            r#"{"uriTemplate":"file:///docs/{name}","name":"docs"},"#,
            r#"{"uriTemplate":"notes://{id}{?lang,fmt}","name":"notes","icons":[{"src":"https://example.com/n.png"}]}],"#,
            r#""prompts":[{"name":"review","title":"Review","description":"Reviews a diff.","arguments":["#,
            r#"{"name":"diff","description":"The diff to review.","required":true},{"name":"focus","title":"Focus"}]},"#,
            r#"{"name":"blocks"},{"name":"none"},{"name":"bad"},{"name":"refuses","arguments":[{"name":"x"}]}]}"#
        )
    );
    // Permissions stay a member of their own, and a toolbox of tools alone
    // describes only them.
    let doc = Toolbox::new()
        .permissions(wasmcp::Permissions::new().clock())
        .prompt(Prompt::new("p").handler(|_: Value| "hi"))
        .describe()
        .unwrap();
    assert_eq!(
        doc,
        r#"{"tools":[],"permissions":{"clock":true},"prompts":[{"name":"p"}]}"#
    );
}

#[test]
fn read() {
    let t = toolbox();
    for (uri, want) in [
        (
            "text://greeting",
            r#"{"contents":[{"uri":"text://greeting","mimeType":"text/plain","text":"Hello, resources!"}]}"#,
        ),
        (
            "blob://bytes",
            r#"{"contents":[{"uri":"blob://bytes","mimeType":"application/octet-stream","blob":"AP8QgA=="}]}"#,
        ),
        (
            "test://parts",
            concat!(
                r#"{"contents":[{"uri":"test://parts","text":"test://parts has 2 parts"},"#,
                r#"{"uri":"test://parts/1","text":"one"},{"uri":"test://parts/2","mimeType":"image/png","blob":"iVBORw=="}]}"#
            ),
        ),
        (
            "test://fails",
            r#"{"error":{"code":-32603,"message":"test://fails is on fire"}}"#,
        ),
        (
            "test://nothing",
            r#"{"error":{"code":-32603,"message":"resource test://nothing: invalid contents: no contents"}}"#,
        ),
        (
            "test://bad",
            r#"{"error":{"code":-32603,"message":"resource test://bad: invalid contents: an embedded resource needs a uri"}}"#,
        ),
        (
            "unknown://x",
            r#"{"error":{"code":-32002,"message":"resource unknown://x not found"}}"#,
        ),
        (
            "file:///fixed",
            r#"{"contents":[{"uri":"file:///fixed","text":"fixed"}]}"#,
        ),
        (
            "file:///missing",
            r#"{"error":{"code":-32002,"message":"no file missing"}}"#,
        ),
    ] {
        assert_eq!(t.read(uri), want, "read {}", uri);
    }
    assert!(t.read("ui://app/view").contains(r#""text":"<p>hi</p>""#));
}

#[test]
fn templates() {
    let t = toolbox();
    for (uri, want) in [
        ("file:///a/b/c.txt", Some(r#"{"path":"a/b/c.txt"}"#)),
        ("file:///a%20b.txt", Some(r#"{"path":"a b.txt"}"#)),
        ("file:///docs/readme", Some(r#"{"name":"readme"}"#)), // the longer prefix wins
        ("file:///docs/a/b", Some(r#"{"path":"docs/a/b"}"#)),  // {name} takes no '/'
        ("notes://42?lang=fr", Some(r#"{"id":"42","lang":"fr"}"#)),
        ("notes://a/b", None),
    ] {
        let doc: Value = serde_json::from_str(&t.read(uri)).unwrap();
        match want {
            Some(vars) => assert_eq!(doc["contents"][0]["text"], json!(vars), "read {}", uri),
            None => assert_eq!(doc["error"]["code"], json!(-32002), "read {}", uri),
        }
    }
    assert!(t
        .read("file:///a.txt")
        .contains(r#""mimeType":"text/plain""#));
}

#[test]
fn prompts() {
    let t = toolbox();
    for (name, args, want) in [
        (
            "review",
            r#"{"diff":"-a\n+b"}"#,
            concat!(
                r#"{"description":"Review a diff","messages":["#,
                r#"{"role":"user","content":{"type":"text","text":"Review this change:"}},"#,
                r#"{"role":"user","content":{"type":"resource","resource":{"uri":"diff://current","mimeType":"text/x-diff","text":"-a\n+b"}}}]}"#
            ),
        ),
        (
            "blocks",
            "",
            concat!(
                r#"{"messages":[{"role":"user","content":{"type":"image","data":"iVBORw==","mimeType":"image/png"}},"#,
                r#"{"role":"assistant","content":{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},"#,
                r#"{"role":"user","content":{"type":"resource_link","uri":"test://a","name":"a"}},"#,
                r#"{"role":"user","content":{"type":"resource","resource":{"uri":"test://b","blob":"Yg=="}}}]}"#
            ),
        ),
        (
            "review",
            "{}",
            r#"{"error":{"code":-32602,"message":"prompt review: missing required argument \"diff\""}}"#,
        ),
        (
            "review",
            r#"{"diff":1}"#,
            r#"{"error":{"code":-32602,"message":"prompt review: argument \"diff\" is not a string"}}"#,
        ),
        (
            "review",
            r#"{"diff":"x","tone":"kind"}"#,
            r#"{"error":{"code":-32602,"message":"prompt review has no argument \"tone\""}}"#,
        ),
        (
            "review",
            "[]",
            r#"{"error":{"code":-32602,"message":"prompt review: the arguments are not a JSON object"}}"#,
        ),
        (
            "missing",
            "{}",
            r#"{"error":{"code":-32602,"message":"unknown prompt \"missing\""}}"#,
        ),
        (
            "refuses",
            r#"{"x":"it"}"#,
            r#"{"error":{"code":-32602,"message":"cannot use it"}}"#,
        ),
        (
            "none",
            "{}",
            r#"{"error":{"code":-32603,"message":"prompt none returned invalid messages: no messages"}}"#,
        ),
        (
            "bad",
            "{}",
            r#"{"error":{"code":-32603,"message":"prompt bad returned invalid messages: an image or audio block needs data and a MIME type"}}"#,
        ),
    ] {
        assert_eq!(
            t.get_prompt(name, args.as_bytes()),
            want,
            "prompt {} {}",
            name,
            args
        );
    }
    assert!(t
        .get_prompt("review", br#"{"diff":"x","focus":"style"}"#)
        .ends_with(
            r#"{"role":"assistant","content":{"type":"text","text":"I will focus on style."}}]}"#
        ));
}

#[test]
fn complete() {
    let t = toolbox();
    let c = |req: &str| t.complete(req.as_bytes());
    assert_eq!(
        c(
            r#"{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"s"},"context":{"arguments":{"diff":"x"}}}"#
        ),
        r#"{"values":["security","style","speed"],"total":3}"#
    );
    assert_eq!(
        c(
            r#"{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"sp"}}"#
        ),
        r#"{"values":["speed"],"total":3,"hasMore":true}"#
    );
    assert_eq!(
        c(
            r#"{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"path","value":"n"}}"#
        ),
        r#"{"values":["notes/c.md"]}"#
    );
    for req in [
        r#"{"ref":{"type":"ref/prompt","name":"missing"},"argument":{"name":"focus","value":""}}"#,
        r#"{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"tone","value":""}}"#,
        r#"{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"p","value":""}}"#,
        r#"{"ref":{"type":"ref/resource","uri":"notes://{id}{?lang,fmt}"},"argument":{"name":"id","value":""}}"#,
        r#"{"ref":{"type":"ref/other"},"argument":{"name":"x","value":""}}"#,
    ] {
        assert_eq!(c(req), r#"{"values":[]}"#, "complete {}", req);
    }
    let many: Value = serde_json::from_str(&c(
        r#"{"ref":{"type":"ref/prompt","name":"refuses"},"argument":{"name":"x","value":""}}"#,
    ))
    .unwrap();
    assert_eq!(
        many["values"].as_array().unwrap().len(),
        wasmcp::MAX_COMPLETION_VALUES
    );
    assert_eq!(many["hasMore"], json!(true));
    assert!(c("[]").starts_with(r#"{"error":{"code":-32602,"message":"completion: "#));
}

#[test]
fn without_offers() {
    // A toolbox of tools alone serves nothing but says so in documents.
    let t = Toolbox::new();
    assert_eq!(
        t.read("x:y"),
        r#"{"error":{"code":-32002,"message":"resource x:y not found"}}"#
    );
    assert_eq!(
        t.get_prompt("p", b"{}"),
        r#"{"error":{"code":-32602,"message":"unknown prompt \"p\""}}"#
    );
    assert_eq!(t.complete(b"{}"), r#"{"values":[]}"#);
}

#[test]
fn refused_definitions() {
    let h = |_: &str| "";
    let resources = vec![
        (
            Resource::new("relative/path", "x").handler(h),
            "not an absolute URI",
        ),
        (Resource::new("1x:y", "x").handler(h), "not an absolute URI"),
        (Resource::new("x:a b", "x").handler(h), "a space"),
        (Resource::new("x:a#b", "x").handler(h), "fragment"),
        (Resource::new("x:a", "").handler(h), "a name must be"),
        (
            Resource::new("x:a", "x").mime_type("text").handler(h),
            "not type/subtype",
        ),
        (
            Resource::new("x:a", "x").annotations("[]").handler(h),
            "annotations: not a JSON object",
        ),
        (
            Resource::new("x:a", "x").icons("{}").handler(h),
            "icons: not a JSON array",
        ),
        (Resource::new("x:a", "x"), "neither a handler nor a text"),
        (
            Resource::new("UI://a/b", "x")
                .mime_type("text/html")
                .handler(h),
            "a ui:// view must have",
        ),
        (
            Resource::new("text://greeting", "x").handler(h),
            "registered twice",
        ),
    ];
    for (r, want) in resources {
        let err = toolbox().resource(r).describe().unwrap_err();
        assert!(err.contains(want), "error {:?} lacks {:?}", err, want);
    }
    let th = |_: &str, _: &Variables| "";
    for (t, want) in [
        ("{+uri}", "must hold a scheme"),
        ("{scheme}://x", "must hold a scheme"),
        ("x:{", "without its '}'"),
        ("x:{a*}", "explode"),
        ("x:{a,a}", "appears twice"),
        ("file:///{+path}", "registered twice"),
    ] {
        let err = toolbox()
            .resource_template(ResourceTemplate::new(t, "t").handler(th))
            .describe()
            .unwrap_err();
        assert!(
            err.contains(want),
            "template {}: error {:?} lacks {:?}",
            t,
            err,
            want
        );
    }
    let err = toolbox()
        .resource_template(ResourceTemplate::new("x:{a}", "t"))
        .describe()
        .unwrap_err();
    assert!(err.contains("no handler"), "{}", err);
    let ph = |_: Value| "";
    let mut many = Prompt::new("many");
    for i in 0..=wasmcp::MAX_PROMPT_ARGUMENTS {
        many = many.argument(PromptArgument::new(format!("a{}", i)));
    }
    for (p, want) in [
        (Prompt::new("a b").handler(ph), "a name must be"),
        (Prompt::new("review").handler(ph), "registered twice"),
        (Prompt::new("nohandler"), "no handler"),
        (
            Prompt::new("twice")
                .argument(PromptArgument::new("a"))
                .argument(PromptArgument::new("a"))
                .handler(ph),
            "twice",
        ),
        (
            Prompt::new("empty")
                .argument(PromptArgument::new(""))
                .handler(ph),
            "1 to 128 bytes",
        ),
        (many.handler(ph), "at most 64 arguments"),
    ] {
        let err = toolbox().prompt(p).describe().unwrap_err();
        assert!(err.contains(want), "error {:?} lacks {:?}", err, want);
    }
}
