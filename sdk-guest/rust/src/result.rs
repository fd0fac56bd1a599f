//! Tool results: MCP `CallToolResult` documents and their content blocks.

use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt::Display;

/// One MCP content block.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text for the model.
    Text { text: String },
    /// An image: base64 `data` of type `mime_type` (build with [`Content::image`]).
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio: base64 `data` of type `mime_type` (build with [`Content::audio`]).
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the client may fetch.
    ResourceLink {
        uri: String,
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
    },
    /// A resource embedded in the result.
    Resource { resource: EmbeddedResource },
}

/// The contents of a resource, embedded in a result or a prompt, or read:
/// `text`, or `blob` (base64).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbeddedResource {
    pub uri: String,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image block from raw bytes (base64 encoded here) of a MIME type
    /// such as "image/png".
    pub fn image(data: &[u8], mime_type: &str) -> Content {
        Content::Image {
            data: crate::base64::encode(data),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block from raw bytes (base64 encoded here).
    pub fn audio(data: &[u8], mime_type: &str) -> Content {
        Content::Audio {
            data: crate::base64::encode(data),
            mime_type: mime_type.into(),
        }
    }

    /// A resource_link block.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Content {
        Content::Resource {
            resource: EmbeddedResource::text(uri, mime_type, text),
        }
    }

    /// An embedded binary resource (base64 encoded here).
    pub fn embedded_blob(uri: impl Into<String>, mime_type: Option<&str>, data: &[u8]) -> Content {
        Content::Resource {
            resource: EmbeddedResource::blob(uri, mime_type, data),
        }
    }

    /// Reports the first way the block breaks the rules of its type, which
    /// would make the host discard the instance.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        match self {
            Content::Image { data, mime_type } | Content::Audio { data, mime_type }
                if data.is_empty() || mime_type.is_empty() =>
            {
                Err("an image or audio block needs data and a MIME type")
            }
            Content::ResourceLink { uri, name, .. } if uri.is_empty() || name.is_empty() => {
                Err("a resource_link block needs a uri and a name")
            }
            Content::Resource { resource } => resource.check(),
            _ => Ok(()),
        }
    }
}

impl EmbeddedResource {
    /// Text contents of `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.map(Into::into),
            text: Some(text.into()),
            blob: None,
        }
    }

    /// Binary contents of `uri` (base64 encoded here).
    pub fn blob(uri: impl Into<String>, mime_type: Option<&str>, data: &[u8]) -> EmbeddedResource {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.map(Into::into),
            text: None,
            blob: Some(crate::base64::encode(data)),
        }
    }

    /// Reports the first way the contents break MCP's rules.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        if self.uri.is_empty() {
            Err("an embedded resource needs a uri")
        } else if self.text.is_some() == self.blob.is_some() {
            Err("an embedded resource needs exactly one of text and blob")
        } else {
            Ok(())
        }
    }
}

/// A tool result: content blocks, optional structured content, and whether
/// it is a tool error. Without content the host mirrors the structured
/// content as a text block.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CallResult {
    pub content: Vec<Content>,
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Box<RawValue>>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl CallResult {
    /// A successful result made of `content`.
    pub fn new(content: Vec<Content>) -> CallResult {
        CallResult {
            content,
            ..CallResult::default()
        }
    }

    /// A result with one text block.
    pub fn text(text: impl Into<String>) -> CallResult {
        CallResult::new(vec![Content::text(text)])
    }

    /// A tool error the model should read: `isError` and one text block.
    pub fn error(msg: impl Display) -> CallResult {
        CallResult {
            is_error: true,
            ..CallResult::text(msg.to_string())
        }
    }

    /// A result whose structured content is `value`, which must serialize
    /// to a JSON object (fields in declaration order).
    pub fn structured<T: Serialize + ?Sized>(value: &T) -> CallResult {
        let mut res = CallResult::default();
        match res.set_structured(value) {
            Ok(()) => res,
            Err(err) => CallResult::error(err),
        }
    }

    /// Sets the structured content, keeping the content blocks.
    pub fn set_structured<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), String> {
        let json = serde_json::to_string(value)
            .map_err(|e| format!("encode structured content: {}", e))?;
        if !json.starts_with('{') {
            return Err(format!(
                "structured content must be a JSON object, not {}",
                json
            ));
        }
        self.structured_content = Some(RawValue::from_string(json).map_err(|e| e.to_string())?);
        Ok(())
    }

    /// Adds a content block.
    pub fn with(mut self, block: Content) -> CallResult {
        self.content.push(block);
        self
    }
}

/// What a handler may return.
pub trait IntoCallResult {
    /// Converts the value into the result sent to the host.
    fn into_call_result(self) -> CallResult;
}

impl IntoCallResult for CallResult {
    fn into_call_result(self) -> CallResult {
        self
    }
}

/// One text block.
impl IntoCallResult for String {
    fn into_call_result(self) -> CallResult {
        CallResult::text(self)
    }
}

/// One text block.
impl IntoCallResult for &str {
    fn into_call_result(self) -> CallResult {
        CallResult::text(self)
    }
}

impl IntoCallResult for Content {
    fn into_call_result(self) -> CallResult {
        CallResult::new(vec![self])
    }
}

impl IntoCallResult for Vec<Content> {
    fn into_call_result(self) -> CallResult {
        CallResult::new(self)
    }
}

/// `Err` becomes a tool error with the error's text.
impl<T: IntoCallResult, E: Display> IntoCallResult for Result<T, E> {
    fn into_call_result(self) -> CallResult {
        match self {
            Ok(v) => v.into_call_result(),
            Err(e) => CallResult::error(e),
        }
    }
}

/// Structured content: `Structured(value)` sends `value` (which must
/// serialize to a JSON object) as the result's structuredContent, which the
/// host mirrors as a text block.
pub struct Structured<T>(pub T);

impl<T: Serialize> IntoCallResult for Structured<T> {
    fn into_call_result(self) -> CallResult {
        CallResult::structured(&self.0)
    }
}
