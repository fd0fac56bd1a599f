//! The resources, templates and prompts of sdk-guest/internal/resourcecheck,
//! whose package documentation says what each answers.

use serde::Deserialize;
use wasmcp::{
    Completion, CompletionRequest, Content, Error, Prompt, PromptArgument, PromptMessage,
    PromptResult, Resource, ResourceTemplate, Toolbox, Variables,
};

fn file(_: &str, vars: &Variables) -> Result<String, Error> {
    match vars["path"].as_str() {
        "missing" => Err(Error::not_found("no file missing")),
        path => Ok(format!("file {}", path)),
    }
}

fn paths(req: &CompletionRequest) -> Vec<&'static str> {
    ["a.txt", "b.txt", "notes/c.md"]
        .into_iter()
        .filter(|p| p.starts_with(&req.value))
        .collect()
}

fn note(_: &str, vars: &Variables) -> String {
    format!(
        "note {} in {}",
        vars["id"],
        vars.get("lang").map_or("en", String::as_str)
    )
}

#[derive(Deserialize)]
struct ReviewArgs {
    diff: String,
    focus: Option<String>,
}

fn review(a: ReviewArgs) -> PromptResult {
    let mut messages = vec![
        PromptMessage::user(Content::text("Review this change:")),
        PromptMessage::user(Content::embedded_text(
            "diff://current",
            Some("text/x-diff"),
            a.diff,
        )),
    ];
    if let Some(focus) = a.focus {
        messages.push(PromptMessage::assistant(Content::text(format!(
            "I will focus on {}.",
            focus
        ))));
    }
    PromptResult::new(messages).description("Review a diff")
}

fn focus(req: &CompletionRequest) -> Completion {
    let matching: Vec<String> = ["security", "style", "speed"]
        .iter()
        .filter(|a| a.starts_with(&req.value))
        .map(|a| a.to_string())
        .collect();
    let total = matching.len() as u64;
    Completion::new(matching.into_iter().take(2).collect()).total(total)
}

fn offers() -> Toolbox {
    Toolbox::new()
        .resource(
            Resource::new("text://greeting", "greeting")
                .title("Greeting")
                .mime_type("text/plain")
                .text("Hello, resources!"),
        )
        .resource(
            Resource::new("blob://bytes", "bytes")
                .mime_type("application/octet-stream")
                .size(4)
                .handler(|_: &str| vec![0u8, 0xff, 0x10, 0x80]),
        )
        .resource(Resource::new("text://fails", "fails").handler(
            |_: &str| -> Result<String, Error> { Err(Error::internal("fails on purpose")) },
        ))
        .resource_template(
            ResourceTemplate::new("file:///{+path}", "files")
                .mime_type("text/plain")
                .handler(file)
                .complete(paths),
        )
        .resource_template(ResourceTemplate::new("notes://{id}{?lang}", "notes").handler(note))
        .prompt(
            Prompt::new("review")
                .description("Reviews a diff.")
                .argument(
                    PromptArgument::new("diff")
                        .description("The diff to review.")
                        .required(),
                )
                .argument(PromptArgument::new("focus"))
                .handler(review)
                .complete(focus),
        )
        .prompt(
            Prompt::new("fails").handler(|_: serde_json::Value| -> Result<String, Error> {
                Err(Error::invalid_params("fails on purpose"))
            }),
        )
}

wasmcp::export!(offers);
