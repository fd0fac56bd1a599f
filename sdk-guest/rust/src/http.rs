//! One HTTP request through the host (`wasmcp.http_request`, `abi/ABI.md`
//! section 5).
//!
//! A request is a JSON head on one line, a LF and the raw body; the reply to
//! a request a server answered has the same shape, any other reply is a
//! message. Only [`http`] refers to the host's imports, so that the linker
//! leaves them out of a module that makes no request: a module importing
//! `http_request` does not load in a host older than it.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// An HTTP request, built with [`Request::get`], [`Request::post`] or
/// [`Request::new`] and chained calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The method; empty means GET.
    pub method: String,
    /// An absolute http or https URL.
    pub url: String,
    /// Headers, sent in order; a name may repeat. `Host`, `Content-Length`,
    /// `Transfer-Encoding`, `Connection`, `Te`, `Trailer` and `Upgrade` are
    /// the host's to write: a request setting one is [`HttpError::Invalid`].
    pub headers: Vec<(String, String)>,
    /// The body, of any bytes; `None` sends none.
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// A request with `method` to `url`.
    pub fn new(method: impl Into<String>, url: impl Into<String>) -> Request {
        Request {
            method: method.into(),
            url: url.into(),
            ..Request::default()
        }
    }

    /// A GET request.
    pub fn get(url: impl Into<String>) -> Request {
        Request::new("GET", url)
    }

    /// A POST request with `body`.
    pub fn post(url: impl Into<String>, body: impl Into<Vec<u8>>) -> Request {
        Request::new("POST", url).body(body)
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = Some(body.into());
        self
    }
}

/// A server's answer, whatever its HTTP status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The URL that answered, after redirects.
    pub url: String,
    /// The headers, sorted by name, a name repeated for each of its values.
    pub headers: Vec<(String, String)>,
    /// The whole body, decompressed if the host asked for compression.
    pub body: Vec<u8>,
}

impl Response {
    /// The value of the first header named `name`, compared without regard
    /// to case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }
}

/// Why a request got no response. Each carries the host's message, which
/// names the rule for [`HttpError::Denied`]; `Display` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpError {
    /// The operator's net policy refused the origin, or an address the host
    /// resolved to (status 5). Nothing was sent to that server.
    Denied(String),
    /// The method, a header or the URL is invalid (status 3). Nothing was
    /// sent.
    Invalid(String),
    /// DNS, the connection or TLS failed, the response was over the policy's
    /// `maxResponse`, or there were more than 5 redirects (status 2, and any
    /// status this SDK does not know).
    Failed(String),
    /// The call's deadline passed or the call was cancelled before the
    /// response was complete (status 4). The request was aborted.
    Timeout(String),
}

impl HttpError {
    /// The host's message.
    pub fn message(&self) -> &str {
        match self {
            HttpError::Denied(m)
            | HttpError::Invalid(m)
            | HttpError::Failed(m)
            | HttpError::Timeout(m) => m,
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for HttpError {}

/// The statuses of `abi/ABI.md` section 5.
const STATUS_OK: u32 = 0;
#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // decode treats it as any unknown status
const STATUS_FAILED: u32 = 2;
const STATUS_INVALID: u32 = 3;
const STATUS_TIMEOUT: u32 = 4;
const STATUS_DENIED: u32 = 5;

/// Makes one HTTP request through the host and returns the response,
/// whatever its HTTP status (a 404 is `Ok`). The host follows redirects (at
/// most 5), each within the operator's net policy for this plugin; the
/// module asks for the origins it needs with
/// [`Permissions::net`](crate::Permissions::net). The call waits for the
/// whole response, which counts against the tool call's deadline.
///
/// ```no_run
/// use wasmcp::{http, HttpError, Request};
///
/// fn content_type(url: &str) -> Result<String, HttpError> {
///     let res = http(&Request::get(url).header("Accept", "text/html"))?;
///     Ok(format!("{} {}", res.status, res.header("Content-Type").unwrap_or("")))
/// }
/// ```
///
/// Natively (`cargo test`) there is no host: every request is
/// [`HttpError::Failed`].
pub fn http(req: &Request) -> Result<Response, HttpError> {
    let (status, reply) = send(&encode(req)?);
    decode(status, reply)
}

/// The request document: the head, then a LF and the body when there is one.
fn encode(req: &Request) -> Result<Vec<u8>, HttpError> {
    #[derive(Serialize)]
    struct Head<'a> {
        #[serde(skip_serializing_if = "str::is_empty")]
        method: &'a str,
        url: &'a str,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        headers: &'a [(String, String)],
    }
    let body = req.body.as_deref();
    let mut doc = Vec::with_capacity(128 + body.map_or(0, |b| b.len() + 1));
    // Compact JSON escapes every LF in a string: the head stays on one line.
    serde_json::to_writer(
        &mut doc,
        &Head {
            method: &req.method,
            url: &req.url,
            headers: &req.headers,
        },
    )
    .map_err(|e| HttpError::Invalid(format!("http request: {}", e)))?;
    if let Some(body) = body {
        doc.push(b'\n');
        doc.extend_from_slice(body);
    }
    Ok(doc)
}

/// The response from the reply to a request: for `STATUS_OK` the head up to
/// the first LF and the body after it, otherwise the host's message.
fn decode(status: u32, mut reply: Vec<u8>) -> Result<Response, HttpError> {
    let message = |reply: Vec<u8>| String::from_utf8_lossy(&reply).into_owned();
    match status {
        STATUS_OK => {}
        STATUS_INVALID => return Err(HttpError::Invalid(message(reply))),
        STATUS_TIMEOUT => return Err(HttpError::Timeout(message(reply))),
        STATUS_DENIED => return Err(HttpError::Denied(message(reply))),
        // STATUS_FAILED, and the statuses this SDK does not know, which
        // are reserved.
        _ => return Err(HttpError::Failed(message(reply))),
    }
    #[derive(Deserialize)]
    struct Head {
        status: u16,
        url: String,
        #[serde(default)]
        headers: Vec<(String, String)>,
    }
    let malformed = |e: &dyn fmt::Display| {
        HttpError::Failed(format!(
            "http response: the host's reply is malformed: {}",
            e
        ))
    };
    let lf = reply
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| malformed(&"no line feed after the head"))?;
    let head: Head = serde_json::from_slice(&reply[..lf]).map_err(|e| malformed(&e))?;
    // The body is the rest of the reply: drop the head in place rather than
    // copy what may be megabytes.
    reply.drain(..=lf);
    Ok(Response {
        status: head.status,
        url: head.url,
        headers: head.headers,
        body: reply,
    })
}

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "wasmcp")]
extern "C" {
    #[link_name = "http_request"]
    fn host_http_request(req_ptr: *const u8, req_len: usize) -> u64;
    #[link_name = "read_reply"]
    fn host_read_reply(dst_ptr: *mut u8, dst_len: usize) -> u32;
}

/// Passes the request document to the host: the status and the reply.
#[cfg(target_arch = "wasm32")]
fn send(doc: &[u8]) -> (u32, Vec<u8>) {
    // SAFETY: the host reads doc during the call and writes at most
    // reply.len() bytes into reply.
    unsafe {
        let r = host_http_request(doc.as_ptr(), doc.len());
        let mut reply = vec![0u8; r as u32 as usize];
        let n = host_read_reply(reply.as_mut_ptr(), reply.len());
        reply.truncate(n as usize);
        ((r >> 32) as u32, reply)
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn send(_: &[u8]) -> (u32, Vec<u8>) {
    (STATUS_FAILED, b"http requests need a wasmcp host".to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let cases: [(Request, &[u8]); 4] = [
            (Request::new("", "http://x/"), br#"{"url":"http://x/"}"#),
            (Request::get("http://x/"), br#"{"method":"GET","url":"http://x/"}"#),
            (
                Request::post("http://x/", &b"a\nb\0c\n"[..])
                    .header("Content-Type", "application/octet-stream")
                    .header("X-Two", "a\nb"),
                b"{\"method\":\"POST\",\"url\":\"http://x/\",\"headers\":[[\"Content-Type\",\"application/octet-stream\"],[\"X-Two\",\"a\\nb\"]]}\na\nb\0c\n",
            ),
            (
                Request::new("PUT", "http://x/").body(""),
                b"{\"method\":\"PUT\",\"url\":\"http://x/\"}\n",
            ),
        ];
        for (req, want) in cases {
            assert_eq!(encode(&req).unwrap(), want, "{:?}", req);
        }
    }

    #[test]
    fn responses() {
        let reply = b"{\"status\":201,\"url\":\"http://x/final\",\"headers\":[[\"Content-Type\",\"text/plain\"],[\"X-A\",\"1\"],[\"X-A\",\"2\"]]}\nbody\n\0\xff";
        let res = decode(STATUS_OK, reply.to_vec()).unwrap();
        assert_eq!((res.status, res.url.as_str()), (201, "http://x/final"));
        assert_eq!(res.headers.len(), 3);
        assert_eq!(res.header("content-type"), Some("text/plain"));
        assert_eq!(res.header("x-a"), Some("1"));
        assert_eq!(res.header("Content"), None);
        assert_eq!(res.body, b"body\n\0\xff");
        assert_eq!(res.text(), "body\n\0\u{fffd}");

        let empty = decode(
            STATUS_OK,
            b"{\"status\":204,\"url\":\"u\",\"headers\":[]}\n".to_vec(),
        )
        .unwrap();
        assert_eq!((empty.status, empty.body.len()), (204, 0));
    }

    #[test]
    fn errors() {
        let msg = "http://x is not in plugin t's net policy";
        assert_eq!(decode(5, msg.into()), Err(HttpError::Denied(msg.into())));
        assert_eq!(
            decode(3, b"bad".to_vec()),
            Err(HttpError::Invalid("bad".into()))
        );
        assert_eq!(
            decode(4, b"late".to_vec()),
            Err(HttpError::Timeout("late".into()))
        );
        assert_eq!(
            decode(2, b"down".to_vec()),
            Err(HttpError::Failed("down".into()))
        );
        assert_eq!(
            decode(9, b"new".to_vec()),
            Err(HttpError::Failed("new".into()))
        );
        assert_eq!(HttpError::Denied(msg.into()).to_string(), msg);
        for reply in [
            &b"{\"status\":200,\"url\":\"u\",\"headers\":[]}"[..],
            b"{\"status\":200,\"url\":\"u\"\n,\"headers\":[]}\n",
            b"{\"url\":\"u\",\"headers\":[]}\n",
            b"{\"status\":200,\"url\":\"u\",\"headers\":[[\"A\"]]}\n",
            b"not json\n",
        ] {
            match decode(STATUS_OK, reply.to_vec()) {
                Err(HttpError::Failed(m)) if m.contains("malformed") => {}
                other => panic!("reply {:?}: {:?}", String::from_utf8_lossy(reply), other),
            }
        }
        match http(&Request::get("http://x/")) {
            Err(HttpError::Failed(m)) if m.contains("need a wasmcp host") => {}
            other => panic!("natively: {:?}", other),
        }
    }
}
