//! Tool definitions, the module's set of tools, and the dispatcher.

use crate::error::Error;
use crate::offers::{Offer, Offered, Offers};
use crate::permissions::Permissions;
use crate::prompt::Prompt;
use crate::resource::{Resource, ResourceTemplate};
use crate::result::{CallResult, IntoCallResult};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

type Handler = Box<dyn Fn(&[u8]) -> CallResult>;

/// A JSON Schema or annotations object, given as JSON text or as a
/// [`serde_json::Value`] (for example from `serde_json::json!`). Text keeps
/// its key order.
pub trait IntoSchema {
    /// Returns the JSON text, or why it is not a JSON object.
    fn into_schema(self) -> Result<Box<RawValue>, String>;
}

impl IntoSchema for &str {
    fn into_schema(self) -> Result<Box<RawValue>, String> {
        self.to_string().into_schema()
    }
}

impl IntoSchema for String {
    fn into_schema(self) -> Result<Box<RawValue>, String> {
        let raw = RawValue::from_string(self).map_err(|e| format!("not valid JSON: {}", e))?;
        match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(_)) => Ok(raw),
            _ => Err("not a JSON object".into()),
        }
    }
}

impl IntoSchema for Value {
    fn into_schema(self) -> Result<Box<RawValue>, String> {
        serde_json::to_string(&self)
            .map_err(|e| e.to_string())?
            .into_schema()
    }
}

/// One tool's definition and handler, built with chained calls:
/// `Tool::new(name).description(..).input_schema(..).handler(..)`.
pub struct Tool {
    def: Definition,
    handler: Option<Handler>,
    error: Option<String>,
}

/// The MCP Tool object of the Describe document, fields in MCP's order.
#[derive(Serialize)]
struct Definition {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(rename = "inputSchema")]
    input_schema: Box<RawValue>,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    output_schema: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Box<RawValue>>,
}

/// The input schema of a tool without parameters.
const NO_PARAMETERS: &str = r#"{"type":"object","additionalProperties":false}"#;

impl Tool {
    /// Starts a tool named `name`: 1 to 128 characters of `[A-Za-z0-9_.-]`,
    /// unique in the module. Without an input schema it takes no parameters.
    pub fn new(name: impl Into<String>) -> Tool {
        let name = name.into();
        let error = if valid_name(&name) {
            None
        } else {
            Some(format!(
                "tool {:?}: a name must be 1 to 128 characters of [A-Za-z0-9_.-]",
                name
            ))
        };
        Tool {
            def: Definition {
                name,
                title: None,
                description: None,
                input_schema: RawValue::from_string(NO_PARAMETERS.into())
                    .expect("constant is valid JSON"),
                output_schema: None,
                annotations: None,
            },
            handler: None,
            error,
        }
    }

    /// Sets the human-readable title clients show instead of the name.
    pub fn title(mut self, title: impl Into<String>) -> Tool {
        self.def.title = Some(title.into());
        self
    }

    /// Sets the description the model reads to decide when to call the tool.
    pub fn description(mut self, description: impl Into<String>) -> Tool {
        self.def.description = Some(description.into());
        self
    }

    /// Sets the JSON Schema of the arguments, an object schema
    /// (`"type":"object"`). The host validates arguments against it before
    /// the handler runs.
    pub fn input_schema(mut self, schema: impl IntoSchema) -> Tool {
        match schema.into_schema() {
            Ok(raw) if is_object_type(&raw) => self.def.input_schema = raw,
            Ok(_) => self.fail("input schema: its \"type\" must be \"object\"".into()),
            Err(e) => self.fail(format!("input schema: {}", e)),
        }
        self
    }

    /// Sets the JSON Schema of the structured content. Successful results
    /// must then carry conforming structured content.
    pub fn output_schema(mut self, schema: impl IntoSchema) -> Tool {
        match schema.into_schema() {
            Ok(raw) => self.def.output_schema = Some(raw),
            Err(e) => self.fail(format!("output schema: {}", e)),
        }
        self
    }

    /// Sets MCP tool annotations (`readOnlyHint`, `idempotentHint`, ...), a
    /// JSON object of hints clients may use.
    pub fn annotations(mut self, annotations: impl IntoSchema) -> Tool {
        match annotations.into_schema() {
            Ok(raw) => self.def.annotations = Some(raw),
            Err(e) => self.fail(format!("annotations: {}", e)),
        }
        self
    }

    /// Sets the handler. `A` is the arguments' type: a struct deriving
    /// `Deserialize`, or [`serde_json::Value`]. Arguments that do not
    /// deserialize give a tool error naming the problem.
    pub fn handler<A, R, F>(mut self, f: F) -> Tool
    where
        A: DeserializeOwned,
        R: IntoCallResult,
        F: Fn(A) -> R + 'static,
    {
        let name = self.def.name.clone();
        self.handler = Some(Box::new(move |args: &[u8]| {
            match serde_json::from_slice::<A>(args) {
                Ok(a) => f(a).into_call_result(),
                Err(e) => CallResult::error(format!("invalid arguments for tool {}: {}", name, e)),
            }
        }));
        self
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(format!("tool {:?}: {}", self.def.name, msg));
        }
    }
}

pub(crate) fn valid_name(name: &str) -> bool {
    (1..=crate::MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-')
}

fn is_object_type(schema: &RawValue) -> bool {
    matches!(serde_json::from_str::<Value>(schema.get()), Ok(v) if v.get("type") == Some(&Value::from("object")))
}

/// The module's tools, in the order added, its resources, templates and
/// prompts, and its request for permissions.
#[derive(Default)]
pub struct Toolbox {
    tools: Vec<Tool>,
    permissions: Permissions,
    error: Option<String>,
    /// Made by the first resource, template or prompt added.
    pub(crate) offers: Option<Box<dyn Offered>>,
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Adds a tool. A definition the host would refuse (bad or duplicate
    /// name, bad schema, no handler) makes [`Toolbox::describe`] fail with
    /// the reason, so the module fails to load, saying why.
    pub fn tool(mut self, tool: Tool) -> Toolbox {
        let err = if let Some(e) = &tool.error {
            Some(e.clone())
        } else if tool.handler.is_none() {
            Some(format!("tool {:?}: no handler", tool.def.name))
        } else if self.tools.iter().any(|t| t.def.name == tool.def.name) {
            Some(format!("tool {:?}: registered twice", tool.def.name))
        } else if self.tools.len() == crate::MAX_TOOLS {
            Some(format!(
                "tool {:?}: a module defines at most {} tools",
                tool.def.name,
                crate::MAX_TOOLS
            ))
        } else {
            None
        };
        match err {
            Some(e) if self.error.is_none() => self.error = Some(e),
            Some(_) => {}
            None => self.tools.push(tool),
        }
        self
    }

    /// Adds to the module's request for permissions, which the Describe
    /// document carries: lists are appended, flags set. A request the host
    /// would refuse (a relative path, an empty name) makes
    /// [`Toolbox::describe`] fail with the reason, as a bad tool does.
    pub fn permissions(mut self, permissions: Permissions) -> Toolbox {
        self.permissions.merge(permissions);
        if let (Err(e), None) = (self.permissions.check(), &self.error) {
            self.error = Some(e);
        }
        self
    }

    /// Adds a resource. A definition the host would refuse (a URI that is
    /// not absolute or has a fragment, a bad name or MIME type, one added
    /// twice) makes [`Toolbox::describe`] fail with the reason, as a bad
    /// tool does.
    pub fn resource(self, resource: Resource) -> Toolbox {
        self.offer(Offer::Resource(resource))
    }

    /// Adds a resource template, refused as [`Toolbox::resource`] refuses.
    pub fn resource_template(self, template: ResourceTemplate) -> Toolbox {
        self.offer(Offer::Template(template))
    }

    /// Adds a prompt, refused as [`Toolbox::tool`] refuses.
    pub fn prompt(self, prompt: Prompt) -> Toolbox {
        self.offer(Offer::Prompt(prompt))
    }

    fn offer(mut self, offer: Offer) -> Toolbox {
        let offers = self
            .offers
            .get_or_insert_with(|| Box::new(Offers::default()));
        if let (Err(e), None) = (offers.add(offer), &self.error) {
            self.error = Some(e);
        }
        self
    }

    /// Returns the Describe document, or the first definition error.
    pub fn describe(&self) -> Result<String, String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        #[derive(Serialize)]
        struct Describe<'a> {
            tools: Vec<&'a Definition>,
            #[serde(skip_serializing_if = "Permissions::is_empty")]
            permissions: &'a Permissions,
        }
        let mut doc = serde_json::to_string(&Describe {
            tools: self.tools.iter().map(|t| &t.def).collect(),
            permissions: &self.permissions,
        })
        .map_err(|e| format!("encode tool definitions: {}", e))?;
        if let Some(o) = &self.offers {
            let members = o.describe()?;
            if !members.is_empty() {
                doc.pop(); // the closing brace
                doc.push(',');
                doc.push_str(&members);
                doc.push('}');
            }
        }
        Ok(doc)
    }

    /// Reads the resource `uri` and returns the Read document: the contents,
    /// or an error (-32002 for a URI no resource or template serves).
    pub fn read(&self, uri: &str) -> String {
        match &self.offers {
            Some(o) => o.read(uri.as_bytes()),
            None => Error::not_found(format!("resource {} not found", uri)).doc(),
        }
    }

    /// Gets prompt `name` with the arguments JSON (empty means `{}`) and
    /// returns the Prompt document: the messages, or an error (-32602 for
    /// an unknown prompt or bad arguments).
    pub fn get_prompt(&self, name: &str, args: &[u8]) -> String {
        match &self.offers {
            Some(o) => o.prompt(name.as_bytes(), args),
            None => Error::invalid_params(format!("unknown prompt {:?}", name)).doc(),
        }
    }

    /// Completes an argument of a CompleteRequest's params (JSON) and
    /// returns the Completion document.
    pub fn complete(&self, request: &[u8]) -> String {
        match &self.offers {
            Some(o) => o.complete(request),
            None => r#"{"values":[]}"#.to_string(),
        }
    }

    /// Runs tool `name` on the arguments JSON (empty means `{}`) and returns
    /// the Result document. It always returns a document: an unknown tool
    /// or an invalid result becomes a tool error.
    pub fn call(&self, name: &str, args: &[u8]) -> String {
        let tool = match self.tools.iter().find(|t| t.def.name == name) {
            Some(t) => t,
            None => return error_doc(&format!("unknown tool {:?}", name)),
        };
        let args = if args.is_empty() { &b"{}"[..] } else { args };
        let handler = tool
            .handler
            .as_ref()
            .expect("tools without a handler are refused");
        let res = handler(args);
        if let Some(err) = res.content.iter().find_map(|c| c.check().err()) {
            return error_doc(&format!(
                "tool {} returned an invalid result: {}",
                name, err
            ));
        }
        serde_json::to_string(&res).unwrap_or_else(|e| {
            error_doc(&format!("tool {} returned an invalid result: {}", name, e))
        })
    }
}

/// A Result document with isError and one text block.
pub(crate) fn error_doc(msg: &str) -> String {
    serde_json::to_string(&CallResult::error(msg)).expect("a text result always encodes")
}
