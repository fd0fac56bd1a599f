//! What a module offers beside its tools (resources, templates, prompts)
//! and the answers to wasmcp_read, wasmcp_prompt and wasmcp_complete.
//!
//! A [`Toolbox`](crate::Toolbox) reaches this code only through a `dyn
//! Offered`, made when the first resource, template or prompt is added: a
//! module of tools alone links none of it, not even the code that drops
//! definitions.

use crate::error::Error;
use crate::prompt::{Completion, CompletionRequest, Prompt};
use crate::resource::{Resource, ResourceTemplate, Variables};
use crate::result::EmbeddedResource;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// What a toolbox's offers do.
pub(crate) trait Offered {
    /// Adds a definition, or says why the host would refuse it.
    fn add(&mut self, offer: Offer) -> Result<(), String>;
    /// The Describe members, without the braces around them.
    fn describe(&self) -> Result<String, String>;
    /// The Read document of `uri`.
    fn read(&self, uri: &[u8]) -> String;
    /// The Prompt document of prompt `name` with the arguments JSON.
    fn prompt(&self, name: &[u8], args: &[u8]) -> String;
    /// The Completion document of a CompleteRequest's params.
    fn complete(&self, request: &[u8]) -> String;
    /// The error document of an export whose input is not where the host
    /// puts it.
    fn outside(&self, export: &str) -> String {
        Error::internal(format!(
            "{}: the input is not in the region returned by wasmcp_alloc",
            export
        ))
        .doc()
    }
}

/// One definition being added.
pub(crate) enum Offer {
    Resource(Resource),
    Template(ResourceTemplate),
    Prompt(Prompt),
}

/// The definitions, in the order added.
#[derive(Default)]
pub(crate) struct Offers {
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
}

impl Offered for Offers {
    fn add(&mut self, offer: Offer) -> Result<(), String> {
        add(self, offer)
    }

    fn describe(&self) -> Result<String, String> {
        describe(self)
    }

    fn read(&self, uri: &[u8]) -> String {
        read(self, &String::from_utf8_lossy(uri))
    }

    fn prompt(&self, name: &[u8], args: &[u8]) -> String {
        prompt(self, &String::from_utf8_lossy(name), args)
    }

    fn complete(&self, request: &[u8]) -> String {
        complete(self, request)
    }
}

fn add(o: &mut Offers, offer: Offer) -> Result<(), String> {
    match offer {
        Offer::Resource(r) => {
            let problem = r.problem().or_else(|| {
                if o.resources.iter().any(|x| x.uri == r.uri) {
                    Some("registered twice".into())
                } else if o.resources.len() == crate::MAX_RESOURCES {
                    Some("a module defines at most 1024 resources".into())
                } else {
                    None
                }
            });
            match problem {
                Some(e) => return Err(format!("resource {:?}: {}", r.uri, e)),
                None => o.resources.push(r),
            }
        }
        Offer::Template(t) => {
            let problem = t.problem().or_else(|| {
                if o.templates.iter().any(|x| x.template == t.template) {
                    Some("registered twice".into())
                } else if o.templates.len() == crate::MAX_RESOURCE_TEMPLATES {
                    Some("a module defines at most 256 templates".into())
                } else {
                    None
                }
            });
            match problem {
                Some(e) => return Err(format!("template {:?}: {}", t.template, e)),
                None => o.templates.push(t),
            }
        }
        Offer::Prompt(p) => {
            let problem = p.problem().or_else(|| {
                if o.prompts.iter().any(|x| x.def.name == p.def.name) {
                    Some("registered twice".into())
                } else if o.prompts.len() == crate::MAX_PROMPTS {
                    Some("a module defines at most 1024 prompts".into())
                } else {
                    None
                }
            });
            match problem {
                Some(e) => return Err(format!("prompt {:?}: {}", p.def.name, e)),
                None => o.prompts.push(p),
            }
        }
    }
    Ok(())
}

fn describe(o: &Offers) -> Result<String, String> {
    #[derive(Serialize)]
    struct Members<'a> {
        #[serde(skip_serializing_if = "Vec::is_empty")]
        resources: Vec<crate::resource::ResourceDefinition<'a>>,
        #[serde(rename = "resourceTemplates", skip_serializing_if = "Vec::is_empty")]
        templates: Vec<crate::resource::TemplateDefinition<'a>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        prompts: Vec<&'a crate::prompt::PromptDefinition>,
    }
    let members = serde_json::to_string(&Members {
        resources: o.resources.iter().map(Resource::definition).collect(),
        templates: o
            .templates
            .iter()
            .map(ResourceTemplate::definition)
            .collect(),
        prompts: o.prompts.iter().map(|p| &p.def).collect(),
    })
    .map_err(|e| format!("encode definitions: {}", e))?;
    Ok(members[1..members.len() - 1].to_string())
}

fn read(o: &Offers, uri: &str) -> String {
    let no_vars = Variables::new();
    let found = match o.resources.iter().find(|r| r.uri == uri) {
        Some(r) => Some((r.read.as_ref(), r.common.mime_type.as_deref(), None)),
        // A URI no resource names goes to the template that matches it
        // with the longest text before its first expression, as the host
        // routes it between plugins; between two as long, to the first
        // added.
        None => {
            let mut best: Option<(&ResourceTemplate, Variables)> = None;
            for t in &o.templates {
                if best
                    .as_ref()
                    .map_or(false, |(b, _)| t.prefix() <= b.prefix())
                {
                    continue;
                }
                if let Some(vars) = t.parsed.as_ref().and_then(|p| p.matches(uri)) {
                    best = Some((t, vars));
                }
            }
            best.map(|(t, vars)| (t.read.as_ref(), t.common.mime_type.as_deref(), Some(vars)))
        }
    };
    let (handler, mime_type, vars) = match found {
        Some((Some(h), m, v)) => (h, m, v),
        _ => return Error::not_found(format!("resource {} not found", uri)).doc(),
    };
    match handler(uri, vars.as_ref().unwrap_or(&no_vars), mime_type) {
        Err(e) => e.doc(),
        Ok(contents) => {
            let problem = if contents.is_empty() {
                Some("no contents")
            } else {
                contents.iter().find_map(|c| c.check().err())
            };
            #[derive(Serialize)]
            struct Doc {
                contents: Vec<EmbeddedResource>,
            }
            match problem {
                Some(why) => {
                    Error::internal(format!("resource {}: invalid contents: {}", uri, why)).doc()
                }
                None => serde_json::to_string(&Doc { contents })
                    .unwrap_or_else(|e| Error::internal(e.to_string()).doc()),
            }
        }
    }
}

fn prompt(o: &Offers, name: &str, args: &[u8]) -> String {
    let p = match o.prompts.iter().find(|p| p.def.name == name) {
        Some(p) => p,
        None => return Error::invalid_params(format!("unknown prompt {:?}", name)).doc(),
    };
    // The host checked the arguments already; a module run without one (its
    // unit tests) gets the same answers.
    let args = if args.is_empty() { &b"{}"[..] } else { args };
    let invalid = |why: String| Error::invalid_params(format!("prompt {}{}", name, why)).doc();
    let map = match serde_json::from_slice::<Value>(args) {
        Ok(Value::Object(map)) => map,
        _ => return invalid(": the arguments are not a JSON object".into()),
    };
    for (key, value) in &map {
        if !p.def.arguments.iter().any(|a| &a.name == key) {
            return invalid(format!(" has no argument {:?}", key));
        }
        if !value.is_string() {
            return invalid(format!(": argument {:?} is not a string", key));
        }
    }
    if let Some(a) = p
        .def
        .arguments
        .iter()
        .find(|a| a.required && !map.contains_key(&a.name))
    {
        return invalid(format!(": missing required argument {:?}", a.name));
    }
    let handler = p
        .handler
        .as_ref()
        .expect("prompts without a handler are refused");
    match handler(args) {
        Err(e) => e.doc(),
        Ok(r) => {
            let problem = if r.messages.is_empty() {
                Some("no messages")
            } else {
                r.messages.iter().find_map(|m| m.content.check().err())
            };
            match problem {
                Some(why) => Error::internal(format!(
                    "prompt {} returned invalid messages: {}",
                    name, why
                ))
                .doc(),
                None => serde_json::to_string(&r)
                    .unwrap_or_else(|e| Error::internal(e.to_string()).doc()),
            }
        }
    }
}

fn complete(o: &Offers, req: &[u8]) -> String {
    // Read as a Value, which prompts read anyway: a derived Deserialize of
    // the request would add code of its own.
    let r = serde_json::from_slice::<Value>(req).unwrap_or(Value::Null);
    let (reference, argument) = (&r["ref"], &r["argument"]);
    let name = match argument["name"].as_str() {
        Some(name) if reference.is_object() => name,
        _ => return Error::invalid_params("completion: the request has no ref and argument").doc(),
    };
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let handler = match reference["type"].as_str() {
        Some("ref/prompt") => o
            .prompts
            .iter()
            .find(|p| {
                p.def.name == text(&reference["name"])
                    && p.def.arguments.iter().any(|a| a.name == name)
            })
            .and_then(|p| p.complete.as_ref()),
        Some("ref/resource") => o
            .templates
            .iter()
            .find(|t| {
                t.template == text(&reference["uri"])
                    && t.parsed.as_ref().map_or(false, |p| p.has_var(name))
            })
            .and_then(|t| t.complete.as_ref()),
        _ => None,
    };
    let context = match &r["context"]["arguments"] {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
        _ => BTreeMap::new(),
    };
    let mut c = match handler {
        None => Completion::default(),
        Some(h) => match h(&CompletionRequest {
            argument: name.to_string(),
            value: text(&argument["value"]),
            context,
        }) {
            Ok(c) => c,
            Err(e) => return e.doc(),
        },
    };
    if c.values.len() > crate::MAX_COMPLETION_VALUES {
        c.values.truncate(crate::MAX_COMPLETION_VALUES);
        c.has_more = true;
    }
    if c.total.map_or(false, |t| t > c.values.len() as u64) {
        c.has_more = true;
    }
    serde_json::to_string(&c).unwrap_or_else(|e| Error::internal(e.to_string()).doc())
}
