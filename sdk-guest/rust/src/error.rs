//! The refusal of a read, a prompt or a completion: a JSON-RPC error.

use crate::http::HttpError;
use serde::Serialize;
use std::fmt;

/// A read, prompt or completion handler's error: the client gets a JSON-RPC
/// error with this code and message (ABI.md section 4, "Errors"). The host
/// sends a code other than [`Error::NOT_FOUND`] and
/// [`Error::INVALID_PARAMS`] as [`Error::INTERNAL`].
///
/// A `String`, a `&str` or an [`HttpError`] converts into an internal error,
/// so `?` works in a handler returning `Result<_, Error>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Error {
    pub code: i32,
    pub message: String,
}

impl Error {
    /// The code of a resource that does not exist.
    pub const NOT_FOUND: i32 = -32002;
    /// The code of an argument the handler cannot use, or an unknown prompt.
    pub const INVALID_PARAMS: i32 = -32602;
    /// The code of any other failure.
    pub const INTERNAL: i32 = -32603;

    /// An error with `code` and `message`.
    pub fn new(code: i32, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// A resource that does not exist (-32002).
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(Error::NOT_FOUND, message)
    }

    /// An argument the handler cannot use (-32602).
    pub fn invalid_params(message: impl Into<String>) -> Error {
        Error::new(Error::INVALID_PARAMS, message)
    }

    /// Any other failure (-32603).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(Error::INTERNAL, message)
    }

    /// The error document: `{"error":{"code":C,"message":M}}`.
    pub(crate) fn doc(&self) -> String {
        #[derive(Serialize)]
        struct Doc<'a> {
            error: &'a Error,
        }
        serde_json::to_string(&Doc { error: self }).expect("an error always encodes")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::internal(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::internal(message)
    }
}

impl From<HttpError> for Error {
    fn from(e: HttpError) -> Error {
        Error::internal(e.to_string())
    }
}
