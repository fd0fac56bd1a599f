//! The tool "request" of sdk-guest/internal/httpcheck: it makes the request
//! its arguments describe with `wasmcp::http` and returns the response as
//! structured content (the body in base64), or a tool error
//! "status N: message".

use serde::{Deserialize, Serialize};
use wasmcp::{http, HttpError, Permissions, Request, Structured, Tool, Toolbox};

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    body: Option<String>,
}

#[derive(Serialize)]
struct Reply {
    status: u16,
    url: String,
    headers: Vec<(String, String)>,
    body: String,
}

fn request(a: Args) -> Result<Structured<Reply>, String> {
    let req = Request {
        method: a.method,
        url: a.url,
        headers: a.headers,
        body: a.body.map(String::into_bytes),
    };
    let res = http(&req).map_err(|e| {
        let status = match e {
            HttpError::Failed(_) => 2,
            HttpError::Invalid(_) => 3,
            HttpError::Timeout(_) => 4,
            HttpError::Denied(_) => 5,
        };
        format!("status {}: {}", status, e)
    })?;
    Ok(Structured(Reply {
        status: res.status,
        url: res.url,
        headers: res.headers,
        body: wasmcp::base64_encode(&res.body),
    }))
}

fn tools() -> Toolbox {
    Toolbox::new().permissions(Permissions::new().net("*")).tool(
        Tool::new("request")
            .input_schema(concat!(
                r#"{"type":"object","properties":{"method":{"type":"string"},"url":{"type":"string"},"#,
                r#""headers":{"type":"array","items":{"type":"array","items":{"type":"string"}}},"#,
                r#""body":{"type":"string"}},"required":["url"]}"#
            ))
            .handler(request),
    )
}

wasmcp::export!(tools);
