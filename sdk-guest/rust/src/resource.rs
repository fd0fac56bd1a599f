//! Resources and resource templates: their definitions and what a read
//! handler may return. Definitions are checked as package abi checks them
//! (abi/resources.go), so that a module the host would refuse fails at
//! once, saying why.

use crate::error::Error;
use crate::prompt::{CompleteHandler, CompletionRequest, IntoCompletion};
use crate::result::EmbeddedResource;
use crate::tool::IntoSchema;
use crate::uritemplate::UriTemplate;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The variables of a URI a template matched, percent-decoded; a variable
/// the URI leaves out is not there.
pub type Variables = BTreeMap<String, String>;

/// A read handler, given the URI read, its variables and the definition's
/// MIME type.
pub(crate) type ReadHandler =
    Box<dyn Fn(&str, &Variables, Option<&str>) -> Result<Vec<EmbeddedResource>, Error>>;

/// What a read handler may return: a `String` or `&str` (the text of the
/// URI read, with the definition's MIME type), a `Vec<u8>` (its bytes, sent
/// base64-encoded), one [`EmbeddedResource`] or several (items of any URI),
/// or a `Result` of one of those whose error is an [`Error`] (or converts
/// into one).
pub trait IntoContents {
    /// The contents of `uri`, whose definition has the MIME type `mime_type`.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<EmbeddedResource>, Error>;
}

impl IntoContents for String {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<EmbeddedResource>, Error> {
        Ok(vec![EmbeddedResource::text(uri, mime_type, self)])
    }
}

impl IntoContents for &str {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<EmbeddedResource>, Error> {
        self.to_string().into_contents(uri, mime_type)
    }
}

impl IntoContents for Vec<u8> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<EmbeddedResource>, Error> {
        Ok(vec![EmbeddedResource::blob(uri, mime_type, &self)])
    }
}

impl IntoContents for EmbeddedResource {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<EmbeddedResource>, Error> {
        Ok(vec![self])
    }
}

impl IntoContents for Vec<EmbeddedResource> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<EmbeddedResource>, Error> {
        Ok(self)
    }
}

impl<T: IntoContents, E: Into<Error>> IntoContents for Result<T, E> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<EmbeddedResource>, Error> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}

/// What resources and templates share, in the Describe document.
#[derive(Default, Serialize)]
pub(crate) struct Common {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<String>,
}

/// What resources, templates and prompts may carry beyond their fields.
#[derive(Default, Serialize)]
pub(crate) struct Extras {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) annotations: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) icons: Option<Box<RawValue>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub(crate) meta: Option<Box<RawValue>>,
}

/// The builder methods resources and templates share.
macro_rules! common_methods {
    ($t:ty) => {
        /// Sets the human-readable title clients show instead of the name.
        pub fn title(mut self, title: impl Into<String>) -> $t {
            self.common.title = Some(title.into());
            self
        }

        /// Sets the description.
        pub fn description(mut self, description: impl Into<String>) -> $t {
            self.common.description = Some(description.into());
            self
        }

        /// Sets the MIME type, `type/subtype` with optional parameters; a
        /// `ui://` view's is `text/html;profile=mcp-app`.
        pub fn mime_type(mut self, mime_type: impl Into<String>) -> $t {
            let mime_type = mime_type.into();
            if !media_type(&mime_type) {
                self.fail(format!("the MIME type {:?} is not type/subtype", mime_type));
            }
            self.common.mime_type = Some(mime_type);
            self
        }

        /// Sets MCP annotations (`audience`, `priority`, `lastModified`), a
        /// JSON object.
        pub fn annotations(mut self, annotations: impl IntoSchema) -> $t {
            match annotations.into_schema() {
                Ok(raw) => self.extras.annotations = Some(raw),
                Err(e) => self.fail(format!("annotations: {}", e)),
            }
            self
        }

        /// Sets MCP icons, a JSON array of `{"src", "mimeType", "sizes",
        /// "theme"}` objects.
        pub fn icons(mut self, icons: &str) -> $t {
            match json_array(icons) {
                Ok(raw) => self.extras.icons = Some(raw),
                Err(e) => self.fail(format!("icons: {}", e)),
            }
            self
        }

        /// Sets `_meta`, a JSON object passed to clients (`{"ui": {"csp":
        /// ...}}` for a view).
        pub fn meta(mut self, meta: impl IntoSchema) -> $t {
            match meta.into_schema() {
                Ok(raw) => self.extras.meta = Some(raw),
                Err(e) => self.fail(format!("meta: {}", e)),
            }
            self
        }

        fn fail(&mut self, msg: String) {
            if self.error.is_none() {
                self.error = Some(msg);
            }
        }
    };
}

pub(crate) use common_methods;

pub(crate) fn json_array(text: &str) -> Result<Box<RawValue>, String> {
    let raw =
        RawValue::from_string(text.to_string()).map_err(|e| format!("not valid JSON: {}", e))?;
    if raw.get().trim_start().starts_with('[') {
        Ok(raw)
    } else {
        Err("not a JSON array".into())
    }
}

/// A resource: one URI, built with chained calls:
/// `Resource::new(uri, name).mime_type(..).text(..)` or `.handler(..)`.
pub struct Resource {
    pub(crate) uri: String,
    pub(crate) common: Common,
    size: Option<u64>,
    extras: Extras,
    pub(crate) read: Option<ReadHandler>,
    pub(crate) error: Option<String>,
}

/// A resource in the Describe document.
#[derive(Serialize)]
pub(crate) struct ResourceDefinition<'a> {
    uri: &'a str,
    #[serde(flatten)]
    common: &'a Common,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(flatten)]
    extras: &'a Extras,
}

impl Resource {
    /// Starts a resource: `uri` an absolute URI (`scheme:...`, printable
    /// ASCII, no fragment) unique in the module, `name` 1 to 256 bytes.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Resource {
        let (uri, name) = (uri.into(), name.into());
        let error = uri_problem(&uri, false).or_else(|| name_problem(&name));
        Resource {
            uri,
            common: Common {
                name,
                ..Common::default()
            },
            size: None,
            extras: Extras::default(),
            read: None,
            error,
        }
    }

    common_methods!(Resource);

    /// Sets the size of the contents in bytes.
    pub fn size(mut self, size: u64) -> Resource {
        self.size = Some(size);
        self
    }

    /// Sets the contents: this text, with the resource's MIME type.
    pub fn text(self, text: impl Into<String>) -> Resource {
        let text = text.into();
        self.handler(move |_: &str| text.clone())
    }

    /// Sets the handler that makes the contents; it gets the URI read.
    pub fn handler<R, F>(mut self, f: F) -> Resource
    where
        R: IntoContents,
        F: Fn(&str) -> R + 'static,
    {
        self.read = Some(Box::new(
            move |uri: &str, _: &Variables, mime_type: Option<&str>| {
                f(uri).into_contents(uri, mime_type)
            },
        ));
        self
    }

    /// The first reason the host would refuse the definition.
    pub(crate) fn problem(&self) -> Option<String> {
        let app = self
            .uri
            .get(..3)
            .map_or(false, |s| s.eq_ignore_ascii_case("ui:"));
        if let Some(e) = &self.error {
            Some(e.clone())
        } else if app && self.common.mime_type.as_deref() != Some(APP_MIME_TYPE) {
            Some(format!(
                "a ui:// view must have the MIME type {}",
                APP_MIME_TYPE
            ))
        } else if self.read.is_none() {
            Some("neither a handler nor a text".into())
        } else {
            None
        }
    }

    pub(crate) fn definition(&self) -> ResourceDefinition<'_> {
        ResourceDefinition {
            uri: &self.uri,
            common: &self.common,
            size: self.size,
            extras: &self.extras,
        }
    }
}

const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// A resource template: the URIs an RFC 6570 template matches, built with
/// chained calls: `ResourceTemplate::new(template, name).handler(..)`.
///
/// The template's text before its first expression holds the scheme
/// (`file:///{+path}`, `notes://{id}`). Levels 1 to 3 and the prefix
/// modifier are read (`{var}`, `{+path}`, `{#frag}`, `{.ext}`, `{/seg}`,
/// `{;p}`, `{?q,lang}`, `{&more}`, `{var:3}`); the explode modifier (`*`) is
/// refused: use `{+path}` for a path. A URI matches when some values expand
/// to it exactly, so `{id}` takes no `/` (only `%2F`) and `{+path}` takes
/// any; where a URI could split several ways, earlier variables take as much
/// as they can.
pub struct ResourceTemplate {
    pub(crate) template: String,
    pub(crate) parsed: Option<UriTemplate>,
    pub(crate) common: Common,
    extras: Extras,
    pub(crate) read: Option<ReadHandler>,
    pub(crate) complete: Option<CompleteHandler>,
    pub(crate) error: Option<String>,
}

/// A template in the Describe document.
#[derive(Serialize)]
pub(crate) struct TemplateDefinition<'a> {
    #[serde(rename = "uriTemplate")]
    uri_template: &'a str,
    #[serde(flatten)]
    common: &'a Common,
    #[serde(flatten)]
    extras: &'a Extras,
}

impl ResourceTemplate {
    /// Starts a template: `template` an RFC 6570 URI template unique in the
    /// module, `name` 1 to 256 bytes.
    pub fn new(template: impl Into<String>, name: impl Into<String>) -> ResourceTemplate {
        let (template, name) = (template.into(), name.into());
        let mut error = uri_problem(&template, true).or_else(|| name_problem(&name));
        let parsed = match UriTemplate::parse(&template) {
            Ok(t) => Some(t),
            Err(e) => {
                error = error.or_else(|| Some(e.to_string()));
                None
            }
        };
        ResourceTemplate {
            template,
            parsed,
            common: Common {
                name,
                ..Common::default()
            },
            extras: Extras::default(),
            read: None,
            complete: None,
            error,
        }
    }

    common_methods!(ResourceTemplate);

    /// Sets the handler that reads a URI the template matches; it gets the
    /// URI and its variables.
    pub fn handler<R, F>(mut self, f: F) -> ResourceTemplate
    where
        R: IntoContents,
        F: Fn(&str, &Variables) -> R + 'static,
    {
        self.read = Some(Box::new(
            move |uri: &str, vars: &Variables, mime_type: Option<&str>| {
                f(uri, vars).into_contents(uri, mime_type)
            },
        ));
        self
    }

    /// Sets the handler that suggests values of a variable from what the
    /// user typed.
    pub fn complete<R, F>(mut self, f: F) -> ResourceTemplate
    where
        R: IntoCompletion,
        F: Fn(&CompletionRequest) -> R + 'static,
    {
        self.complete = Some(Box::new(move |req: &CompletionRequest| {
            f(req).into_completion()
        }));
        self
    }

    pub(crate) fn problem(&self) -> Option<String> {
        match (&self.error, &self.read) {
            (Some(e), _) => Some(e.clone()),
            (None, None) => Some("no handler".into()),
            _ => None,
        }
    }

    pub(crate) fn definition(&self) -> TemplateDefinition<'_> {
        TemplateDefinition {
            uri_template: &self.template,
            common: &self.common,
            extras: &self.extras,
        }
    }

    /// The length of the text before the first expression.
    pub(crate) fn prefix(&self) -> usize {
        self.template.find('{').unwrap_or(self.template.len())
    }
}

fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > 256 {
        Some("a name must be 1 to 256 bytes".into())
    } else {
        None
    }
}

/// Checks an absolute URI or, with `template`, a URI template whose text
/// before its first expression holds the scheme.
fn uri_problem(uri: &str, template: bool) -> Option<String> {
    let literal = if template {
        &uri[..uri.find('{').unwrap_or(uri.len())]
    } else {
        uri
    };
    let scheme = literal.split(':').next().unwrap_or("");
    let why = if uri.is_empty() {
        "the URI is empty"
    } else if uri.len() > crate::MAX_URI_LEN {
        "the URI is longer than 2048 bytes"
    } else if uri.bytes().any(|c| c <= b' ' || c > b'~') {
        "the URI holds a space, a control or a non-ASCII byte"
    } else if !literal.contains(':')
        || !scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        || !scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"+.-".contains(&c))
    {
        if template {
            "the text before the first expression must hold a scheme and ':'"
        } else {
            "not an absolute URI (scheme:...)"
        }
    } else if !template && uri.contains('#') {
        "the URI has a fragment (#)"
    } else {
        return None;
    };
    Some(why.to_string())
}

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c > b' ' && c <= b'~' && !b"()<>@,;:\\\"/[]?={}".contains(&c))
}

/// Reports whether `s` is type/subtype, with optional parameters after ';'.
fn media_type(s: &str) -> bool {
    let mt = s.split(';').next().unwrap_or("").trim_matches(' ');
    matches!(mt.split_once('/'), Some((t, sub)) if is_token(t) && is_token(sub))
}
