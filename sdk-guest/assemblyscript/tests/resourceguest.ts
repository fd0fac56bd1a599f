// The AssemblyScript SDK's module for the reads, prompts and completions of
// sdk-guest/internal/resourcecheck, built by sdk_test.go; that package's
// documentation says what each definition answers.

import {
  Completion,
  CompletionRequest,
  Content,
  ErrorCode,
  JSONObject,
  Prompt,
  PromptMessage,
  PromptResult,
  ReadResult,
  Resource,
  ResourceTemplate,
  addPrompt,
  addResource,
  addResourceTemplate,
} from "../assembly";
export * from "../assembly/abi";

function readBytes(uri: string, vars: JSONObject): ReadResult {
  const b = new Uint8Array(4);
  b[0] = 0x00;
  b[1] = 0xff;
  b[2] = 0x10;
  b[3] = 0x80;
  return ReadResult.blob(b);
}

function readFails(uri: string, vars: JSONObject): ReadResult {
  return ReadResult.error(ErrorCode.Internal, "fails on purpose");
}

function readFile(uri: string, vars: JSONObject): ReadResult {
  const path = vars.getString("path");
  if (path == "missing") return ReadResult.notFound("no file missing");
  return ReadResult.text("file " + path);
}

function completePath(req: CompletionRequest): Completion {
  const all = ["a.txt", "b.txt", "notes/c.md"];
  const values = new Array<string>();
  for (let i = 0; i < all.length; i++) if (all[i].startsWith(req.value)) values.push(all[i]);
  return Completion.of(values);
}

function readNote(uri: string, vars: JSONObject): ReadResult {
  return ReadResult.text("note " + vars.getString("id") + " in " + vars.getString("lang", "en"));
}

function review(args: JSONObject): PromptResult {
  const r = new PromptResult()
    .withDescription("Review a diff")
    .add(PromptMessage.user(Content.text("Review this change:")))
    .add(PromptMessage.user(Content.embeddedText("diff://current", "text/x-diff", args.getString("diff"))));
  if (args.has("focus")) r.add(PromptMessage.assistant(Content.text("I will focus on " + args.getString("focus") + ".")));
  return r;
}

function completeFocus(req: CompletionRequest): Completion {
  const all = ["security", "style", "speed"];
  const values = new Array<string>();
  let total = 0;
  for (let i = 0; i < all.length; i++) {
    if (all[i].startsWith(req.value) && total++ < 2) values.push(all[i]);
  }
  return Completion.of(values).withTotal(total);
}

function fails(args: JSONObject): PromptResult {
  return PromptResult.error(ErrorCode.InvalidParams, "fails on purpose");
}

addResource(new Resource("text://greeting", "greeting").withTitle("Greeting").withMimeType("text/plain").withText("Hello, resources!"));
addResource(new Resource("blob://bytes", "bytes").withMimeType("application/octet-stream").withSize(4).withHandler(readBytes));
addResource(new Resource("text://fails", "fails").withHandler(readFails));
addResourceTemplate(new ResourceTemplate("file:///{+path}", "files", readFile).withMimeType("text/plain").withCompletion(completePath));
addResourceTemplate(new ResourceTemplate("notes://{id}{?lang}", "notes", readNote));
addPrompt(
  new Prompt("review", "Reviews a diff.", review)
    .withArgument("diff", "The diff to review.", true)
    .withArgument("focus", "", false)
    .withCompletion(completeFocus),
);
addPrompt(new Prompt("fails", "", fails));
