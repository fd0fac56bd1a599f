//! Prompts, and the completion of prompt arguments and template variables.

use crate::error::Error;
use crate::resource::Extras;
use crate::result::Content;
use crate::tool::IntoSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) type PromptHandler = Box<dyn Fn(&[u8]) -> Result<PromptResult, Error>>;
pub(crate) type CompleteHandler = Box<dyn Fn(&CompletionRequest) -> Result<Completion, Error>>;

/// One argument of a prompt; its value is a string.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl PromptArgument {
    /// An optional argument named `name`, 1 to 128 bytes.
    pub fn new(name: impl Into<String>) -> PromptArgument {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: false,
        }
    }

    /// Sets the title clients show instead of the name.
    pub fn title(mut self, title: impl Into<String>) -> PromptArgument {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> PromptArgument {
        self.description = Some(description.into());
        self
    }

    /// Makes the argument required: a get without it is refused before the
    /// handler runs.
    pub fn required(mut self) -> PromptArgument {
        self.required = true;
        self
    }
}

/// Who says a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One message of a prompt: a role and one content block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PromptMessage {
    pub role: Role,
    pub content: Content,
}

impl PromptMessage {
    /// A message of the user.
    pub fn user(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// A message of the assistant.
    pub fn assistant(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}

/// A prompt's messages, with an optional description.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PromptResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// A result of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> PromptResult {
        PromptResult {
            description: None,
            messages,
        }
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> PromptResult {
        self.description = Some(description.into());
        self
    }

    /// Adds a message.
    pub fn with(mut self, message: PromptMessage) -> PromptResult {
        self.messages.push(message);
        self
    }
}

/// What a prompt handler may return: a [`PromptResult`], its messages, a
/// `String` (one text message of the user), or a `Result` of one of those
/// whose error is an [`Error`] (or converts into one).
pub trait IntoPromptResult {
    fn into_prompt_result(self) -> Result<PromptResult, Error>;
}

impl IntoPromptResult for PromptResult {
    fn into_prompt_result(self) -> Result<PromptResult, Error> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<PromptResult, Error> {
        Ok(PromptResult::new(self))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<PromptResult, Error> {
        Ok(PromptResult::new(vec![PromptMessage::user(Content::text(
            self,
        ))]))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<PromptResult, Error> {
        self.to_string().into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<Error>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<PromptResult, Error> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// A prompt, built with chained calls:
/// `Prompt::new(name).description(..).argument(..).handler(..)`.
pub struct Prompt {
    pub(crate) def: PromptDefinition,
    pub(crate) handler: Option<PromptHandler>,
    pub(crate) complete: Option<CompleteHandler>,
    pub(crate) error: Option<String>,
}

/// A prompt in the Describe document.
#[derive(Serialize)]
pub(crate) struct PromptDefinition {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) arguments: Vec<PromptArgument>,
    #[serde(flatten)]
    extras: Extras,
}

impl Prompt {
    /// Starts a prompt named `name`, which follows the rules of a tool's
    /// name and is unique among the module's prompts.
    pub fn new(name: impl Into<String>) -> Prompt {
        let name = name.into();
        let error = if crate::tool::valid_name(&name) {
            None
        } else {
            Some("a name must be 1 to 128 characters of [A-Za-z0-9_.-]".to_string())
        };
        Prompt {
            def: PromptDefinition {
                name,
                title: None,
                description: None,
                arguments: Vec::new(),
                extras: Extras::default(),
            },
            handler: None,
            complete: None,
            error,
        }
    }

    /// Sets the title clients show instead of the name.
    pub fn title(mut self, title: impl Into<String>) -> Prompt {
        self.def.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Prompt {
        self.def.description = Some(description.into());
        self
    }

    /// Adds an argument (at most 64, names unique).
    pub fn argument(mut self, argument: PromptArgument) -> Prompt {
        if argument.name.is_empty() || argument.name.len() > crate::MAX_TOOL_NAME_LEN {
            self.fail("an argument's name must be 1 to 128 bytes".into());
        } else if self.def.arguments.iter().any(|a| a.name == argument.name) {
            self.fail(format!("argument {:?} is defined twice", argument.name));
        } else if self.def.arguments.len() == crate::MAX_PROMPT_ARGUMENTS {
            self.fail("a prompt takes at most 64 arguments".into());
        }
        self.def.arguments.push(argument);
        self
    }

    /// Sets MCP icons, a JSON array.
    pub fn icons(mut self, icons: &str) -> Prompt {
        match crate::resource::json_array(icons) {
            Ok(raw) => self.def.extras.icons = Some(raw),
            Err(e) => self.fail(format!("icons: {}", e)),
        }
        self
    }

    /// Sets `_meta`, a JSON object passed to clients.
    pub fn meta(mut self, meta: impl IntoSchema) -> Prompt {
        match meta.into_schema() {
            Ok(raw) => self.def.extras.meta = Some(raw),
            Err(e) => self.fail(format!("meta: {}", e)),
        }
        self
    }

    /// Sets the handler. `A` is the arguments' type: a struct deriving
    /// `Deserialize` (of `String` and `Option<String>` fields), or a map of
    /// strings. The arguments it gets hold every required one.
    pub fn handler<A, R, F>(mut self, f: F) -> Prompt
    where
        A: DeserializeOwned,
        R: IntoPromptResult,
        F: Fn(A) -> R + 'static,
    {
        let name = self.def.name.clone();
        self.handler = Some(Box::new(move |args: &[u8]| {
            match serde_json::from_slice::<A>(args) {
                Ok(a) => f(a).into_prompt_result(),
                Err(e) => Err(Error::invalid_params(format!(
                    "prompt {}: invalid arguments: {}",
                    name, e
                ))),
            }
        }));
        self
    }

    /// Sets the handler that suggests values of an argument from what the
    /// user typed.
    pub fn complete<R, F>(mut self, f: F) -> Prompt
    where
        R: IntoCompletion,
        F: Fn(&CompletionRequest) -> R + 'static,
    {
        self.complete = Some(Box::new(move |req: &CompletionRequest| {
            f(req).into_completion()
        }));
        self
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
    }

    pub(crate) fn problem(&self) -> Option<String> {
        match (&self.error, &self.handler) {
            (Some(e), _) => Some(e.clone()),
            (None, None) => Some("no handler".into()),
            _ => None,
        }
    }
}

/// What a completion handler is asked: the argument (of a prompt) or
/// variable (of a template), what the user typed of it, and the arguments
/// already chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    pub argument: String,
    pub value: String,
    pub context: BTreeMap<String, String>,
}

/// Suggested values. The host sends at most 100; past them, and when
/// `total` says there are more than were given, `hasMore` is set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Completion {
    pub values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    #[serde(rename = "hasMore", skip_serializing_if = "std::ops::Not::not")]
    pub has_more: bool,
}

impl Completion {
    /// The values suggested.
    pub fn new(values: Vec<String>) -> Completion {
        Completion {
            values,
            ..Completion::default()
        }
    }

    /// Says how many values there are in all.
    pub fn total(mut self, total: u64) -> Completion {
        self.total = Some(total);
        self
    }
}

/// What a completion handler may return: a [`Completion`], a `Vec` of
/// `String` or `&str`, or a `Result` of one of those.
pub trait IntoCompletion {
    fn into_completion(self) -> Result<Completion, Error>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion::new(self))
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion::new(
            self.into_iter().map(String::from).collect(),
        ))
    }
}

impl<T: IntoCompletion, E: Into<Error>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, Error> {
        self.map_err(Into::into)?.into_completion()
    }
}
