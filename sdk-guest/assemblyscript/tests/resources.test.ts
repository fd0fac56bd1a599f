// Unit tests of resources, resource templates, prompts and completion,
// compiled to a module and run by tests/run.mjs under Node's WebAssembly.
// A module of its own: a refused definition makes the whole module describe
// nothing, which would hide sdk.test.ts's tools.

import {
  Completion,
  CompletionRequest,
  Content,
  ErrorCode,
  JSONObject,
  LogLevel,
  Prompt,
  PromptMessage,
  PromptResult,
  ReadResult,
  Resource,
  ResourceTemplate,
  addPrompt,
  addResource,
  addResourceTemplate,
  complete,
  getPrompt,
  log,
  parseJSON,
  read,
} from "../assembly";
import { describe, refused } from "../assembly/tool";
import { UriTemplate } from "../assembly/uritemplate";

let failures = 0;

function check(ok: bool, what: string): void {
  if (!ok) {
    failures++;
    log(LogLevel.Error, "FAIL " + what);
  }
}

function checkEq(got: string, want: string, what: string): void {
  if (got != want) {
    failures++;
    log(LogLevel.Error, "FAIL " + what + "\n  got  " + got + "\n  want " + want);
  }
}

function bytes(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

function readBytes(uri: string, vars: JSONObject): ReadResult {
  const b = new Uint8Array(4);
  b[0] = 0x00;
  b[1] = 0xff;
  b[2] = 0x10;
  b[3] = 0x80;
  return ReadResult.blob(b);
}
function readParts(uri: string, vars: JSONObject): ReadResult {
  return ReadResult.text(uri + " has 2 parts").addText("test://parts/1", "", "one").addBlob("test://parts/2", "image/png", bytes("PNG"));
}
function readFails(uri: string, vars: JSONObject): ReadResult {
  return ReadResult.error(ErrorCode.Internal, uri + " is on fire");
}
function readNothing(uri: string, vars: JSONObject): ReadResult {
  return new ReadResult();
}
/** readVars answers with the variables it got, as JSON. */
function readVars(uri: string, vars: JSONObject): ReadResult {
  if (vars.getString("path") == "missing") return ReadResult.notFound("no file missing");
  return ReadResult.text(vars.toString());
}
function completePath(req: CompletionRequest): Completion {
  const all = ["a.txt", "b.txt", "notes/c.md"];
  const values = new Array<string>();
  for (let i = 0; i < all.length; i++) if (all[i].startsWith(req.value)) values.push(all[i]);
  return Completion.of(values);
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
  for (let i = 0; i < all.length; i++) if (all[i].startsWith(req.value)) values.push(all[i]);
  check(req.argument == "focus" && req.context.isObject(), "completion request");
  return Completion.of(values).withTotal(3);
}
function blocks(args: JSONObject): PromptResult {
  return new PromptResult()
    .add(PromptMessage.user(Content.image(bytes("PNG"), "image/png")))
    .add(PromptMessage.assistant(Content.audio(bytes("RIFF"), "audio/wav")))
    .add(PromptMessage.user(Content.resourceLink("test://a", "a")));
}
function noMessages(args: JSONObject): PromptResult {
  return new PromptResult();
}
function badBlock(args: JSONObject): PromptResult {
  return new PromptResult().add(PromptMessage.user(Content.imageBase64("", "image/png")));
}
function refuses(args: JSONObject): PromptResult {
  return PromptResult.error(ErrorCode.InvalidParams, "cannot use " + args.getString("x"));
}
function many(req: CompletionRequest): Completion {
  const values = new Array<string>();
  for (let i = 0; i < 150; i++) values.push("v");
  return Completion.of(values);
}

addResource(new Resource("text://greeting", "greeting").withTitle("Greeting").withDescription("A fixed text.").withMimeType("text/plain").withText("Hello, resources!"));
addResource(
  new Resource("blob://bytes", "bytes")
    .withMimeType("application/octet-stream")
    .withSize(4)
    .withAnnotations('{"audience":["user"]}')
    .withHandler(readBytes),
);
addResource(new Resource("test://parts", "parts").withHandler(readParts));
addResource(new Resource("test://fails", "fails").withHandler(readFails));
addResource(new Resource("test://nothing", "nothing").withHandler(readNothing));
addResource(
  new Resource("ui://app/view", "view")
    .withMimeType("text/html;profile=mcp-app")
    .withMeta('{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}')
    .withText("<p>hi</p>"),
);
// A resource is served before any template that matches its URI.
addResource(new Resource("file:///fixed", "fixed").withText("fixed"));
addResourceTemplate(new ResourceTemplate("file:///{+path}", "files", readVars).withMimeType("text/plain").withCompletion(completePath));
// Longer text before the first expression: preferred where both match.
addResourceTemplate(new ResourceTemplate("file:///docs/{name}", "docs", readVars));
addResourceTemplate(new ResourceTemplate("notes://{id}{?lang,fmt}", "notes", readVars).withIcons('[{"src":"https://example.com/n.png"}]'));
addPrompt(
  new Prompt("review", "Reviews a diff.", review)
    .withTitle("Review")
    .withArgument("diff", "The diff to review.", true)
    .withArgument("focus", "", false)
    .withCompletion(completeFocus),
);
addPrompt(new Prompt("blocks", "", blocks));
addPrompt(new Prompt("none", "", noMessages));
addPrompt(new Prompt("bad", "", badBlock));
addPrompt(new Prompt("refuses", "", refuses).withArgument("x", "", false).withCompletion(many));

function testDescribe(): void {
  checkEq(
    describe()!,
    '{"tools":[],"resources":[' +
      '{"uri":"text://greeting","name":"greeting","title":"Greeting","description":"A fixed text.","mimeType":"text/plain"},' +
      '{"uri":"blob://bytes","name":"bytes","mimeType":"application/octet-stream","size":4,"annotations":{"audience":["user"]}},' +
      '{"uri":"test://parts","name":"parts"},{"uri":"test://fails","name":"fails"},{"uri":"test://nothing","name":"nothing"},' +
      '{"uri":"ui://app/view","name":"view","mimeType":"text/html;profile=mcp-app",' +
      '"_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}},' +
      '{"uri":"file:///fixed","name":"fixed"}],' +
      '"resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files","mimeType":"text/plain"},' +
      '{"uriTemplate":"file:///docs/{name}","name":"docs"},' +
      '{"uriTemplate":"notes://{id}{?lang,fmt}","name":"notes","icons":[{"src":"https://example.com/n.png"}]}],' +
      '"prompts":[{"name":"review","title":"Review","description":"Reviews a diff.","arguments":[' +
      '{"name":"diff","description":"The diff to review.","required":true},{"name":"focus"}]},' +
      '{"name":"blocks"},{"name":"none"},{"name":"bad"},{"name":"refuses","arguments":[{"name":"x"}]}]}',
    "describe",
  );
}

function testRead(): void {
  checkEq(read("text://greeting"), '{"contents":[{"uri":"text://greeting","mimeType":"text/plain","text":"Hello, resources!"}]}', "text");
  checkEq(read("blob://bytes"), '{"contents":[{"uri":"blob://bytes","mimeType":"application/octet-stream","blob":"AP8QgA=="}]}', "blob");
  checkEq(
    read("test://parts"),
    '{"contents":[{"uri":"test://parts","text":"test://parts has 2 parts"},{"uri":"test://parts/1","text":"one"},' +
      '{"uri":"test://parts/2","mimeType":"image/png","blob":"UE5H"}]}',
    "parts",
  );
  checkEq(read("test://fails"), '{"error":{"code":-32603,"message":"test://fails is on fire"}}', "error");
  checkEq(read("test://nothing"), '{"error":{"code":-32603,"message":"resource test://nothing: invalid contents: no contents"}}', "nothing");
  checkEq(read("unknown://x"), '{"error":{"code":-32002,"message":"resource unknown://x not found"}}', "unknown");
  checkEq(read("file:///fixed"), '{"contents":[{"uri":"file:///fixed","text":"fixed"}]}', "resource before template");
  checkEq(read("file:///missing"), '{"error":{"code":-32002,"message":"no file missing"}}', "not found");
  check(read("ui://app/view").includes('"text":"<p>hi</p>"'), "view");
}

function testTemplates(): void {
  const uris = [
    "file:///a/b/c.txt", "file:///a%20b.txt", "file:///docs/readme", "file:///docs/a/b", "notes://42?lang=fr", "notes://a/b",
  ];
  const want = ['{"path":"a/b/c.txt"}', '{"path":"a b.txt"}', '{"name":"readme"}', '{"path":"docs/a/b"}', '{"id":"42","lang":"fr"}', ""];
  for (let i = 0; i < uris.length; i++) {
    const doc = parseJSON(read(uris[i]))!.asObject()!;
    const contents = doc.getArray("contents");
    if (want[i] == "") {
      check(contents === null && doc.getObject("error")!.getNumber("code") == -32002, "no template matches " + uris[i]);
    } else {
      checkEq(contents !== null ? contents.at(0)!.asObject()!.getString("text") : doc.toString(), want[i], "read " + uris[i]);
    }
  }
  check(read("file:///a.txt").includes('"mimeType":"text/plain"'), "template MIME type");

  // The matcher, on the cases the C and Rust SDKs check too.
  const templates = [
    "file:///{+path}", "file:///{+path}", "file:///{+path}", "file:///{+path}", "file:///{+path}", "file:///docs/{name}",
    "file:///docs/{name}", "notes://{id}{?lang,fmt}", "notes://{id}{?lang,fmt}", "notes://{id}{?lang,fmt}",
    "notes://{id}{?lang,fmt}", "x://{a}.{b}/{c}{#f}", "y:{/seg,more}{.ext}{;p,q}{&r}", "y:{/seg,more}{.ext}{;p,q}{&r}",
    "y:{/seg,more}{.ext}{;p,q}{&r}", "z:{short:3}-{rest}", "z:{short:3}-{rest}", "z:{short:3}-{rest}",
  ];
  const cases = [
    "file:///caf%C3%A9?x=1&y=:@!", "file:///", "file:///a b", "file:///a%2", "file:///a%2Fb", "file:///docs/a%2Fb",
    "file:///docs/a/b", "notes://42", "notes://42?fmt=md", "notes://42?lang=", "notes://42?fmt=md&lang=fr",
    "x://host.example.com/p#f/r?ag", "y:/a/b.md;p=1;q&r=2", "y:.md", "y:", "z:abc-d", "z:abcd-e", "z:%C3%A9t%C3%A9-x",
  ];
  const vars = [
    '{"path":"caf\u00e9?x=1&y=:@!"}', '{"path":""}', "", "", '{"path":"a/b"}', '{"name":"a/b"}', "", '{"id":"42"}',
    '{"id":"42","fmt":"md"}', '{"id":"42","lang":""}', "", '{"a":"host.example","b":"com","c":"p","f":"f/r?ag"}',
    '{"seg":"a","more":"b.md","p":"1","q":"","r":"2"}', '{"ext":"md"}', "{}", '{"short":"abc","rest":"d"}', "",
    '{"short":"\u00e9t\u00e9","rest":"x"}',
  ];
  for (let i = 0; i < cases.length; i++) {
    const m = UriTemplate.parse(templates[i]).match(cases[i]);
    checkEq(m !== null ? m.toString() : "", vars[i], cases[i] + " against " + templates[i]);
  }
  // Bytes of no valid UTF-8 sequence become U+FFFD, each alone.
  const m = UriTemplate.parse("file:///{+path}").match("file:///%FF%FEa%00b%E2%82");
  checkEq(m !== null ? m.toString() : "", '{"path":"\ufffd\ufffda\\u0000b\ufffd\ufffd"}', "invalid UTF-8");
  // A long URI does not make matching slow: failures are remembered.
  check(UriTemplate.parse("y:{/seg,more}{.ext}{;p,q}{&r}").match("y:" + "/".repeat(4096)) === null, "long URI");
  const bad = ["x:{", "x:}", "x:{}", "x:{a*}", "x:{a:0}", "x:{a:10000}", "x:{=a}", "x:{a,a}", "x:{a b}", "x:{a.}"];
  for (let i = 0; i < bad.length; i++) check(UriTemplate.parse(bad[i]).error !== null, "refused template " + bad[i]);
}

function testPrompts(): void {
  checkEq(
    getPrompt("review", '{"diff":"-a\\n+b"}'),
    '{"description":"Review a diff","messages":[{"role":"user","content":{"type":"text","text":"Review this change:"}},' +
      '{"role":"user","content":{"type":"resource","resource":{"uri":"diff://current","mimeType":"text/x-diff","text":"-a\\n+b"}}}]}',
    "review",
  );
  check(
    getPrompt("review", '{"diff":"x","focus":"style"}').endsWith(
      '{"role":"assistant","content":{"type":"text","text":"I will focus on style."}}]}',
    ),
    "review with a focus",
  );
  checkEq(
    getPrompt("blocks", ""),
    '{"messages":[{"role":"user","content":{"type":"image","data":"UE5H","mimeType":"image/png"}},' +
      '{"role":"assistant","content":{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},' +
      '{"role":"user","content":{"type":"resource_link","uri":"test://a","name":"a"}}]}',
    "blocks",
  );
  const errors = [
    getPrompt("review", "{}"), getPrompt("review", '{"diff":1}'), getPrompt("review", '{"diff":"x","tone":"kind"}'),
    getPrompt("review", "[]"), getPrompt("missing", "{}"), getPrompt("refuses", '{"x":"it"}'), getPrompt("none", "{}"),
  ];
  const want = [
    '{"error":{"code":-32602,"message":"prompt review: missing required argument \\"diff\\""}}',
    '{"error":{"code":-32602,"message":"prompt review: argument \\"diff\\" is not a string"}}',
    '{"error":{"code":-32602,"message":"prompt review has no argument \\"tone\\""}}',
    '{"error":{"code":-32602,"message":"prompt review: the arguments are not a JSON object"}}',
    '{"error":{"code":-32602,"message":"unknown prompt \\"missing\\""}}',
    '{"error":{"code":-32602,"message":"cannot use it"}}',
    '{"error":{"code":-32603,"message":"prompt none returned invalid messages: no messages"}}',
  ];
  for (let i = 0; i < want.length; i++) checkEq(errors[i], want[i], "prompt error " + i.toString());
  check(getPrompt("bad", "{}").includes("needs data and a MIME type"), "invalid block");
}

function testComplete(): void {
  checkEq(
    complete('{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"s"},"context":{"arguments":{"diff":"x"}}}'),
    '{"values":["security","style","speed"],"total":3}',
    "focus s",
  );
  checkEq(
    complete('{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"sp"}}'),
    '{"values":["speed"],"total":3,"hasMore":true}',
    "focus sp",
  );
  checkEq(
    complete('{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"path","value":"n"}}'),
    '{"values":["notes/c.md"]}',
    "path n",
  );
  const empty = [
    '{"ref":{"type":"ref/prompt","name":"missing"},"argument":{"name":"focus","value":""}}',
    '{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"tone","value":""}}',
    '{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"p","value":""}}',
    '{"ref":{"type":"ref/resource","uri":"notes://{id}{?lang,fmt}"},"argument":{"name":"id","value":""}}',
    '{"ref":{"type":"ref/other"},"argument":{"name":"x","value":""}}',
  ];
  for (let i = 0; i < empty.length; i++) checkEq(complete(empty[i]), '{"values":[]}', empty[i]);
  const m = parseJSON(complete('{"ref":{"type":"ref/prompt","name":"refuses"},"argument":{"name":"x","value":""}}'))!.asObject()!;
  check(m.getArray("values")!.length == 100 && m.getBool("hasMore"), "at most 100 values");
  check(complete("[]").startsWith('{"error":{"code":-32602,'), "bad request");
}

function testRefused(): void {
  const resources = [
    new Resource("relative/path", "x").withText(""),
    new Resource("1x:y", "x").withText(""),
    new Resource("x:a b", "x").withText(""),
    new Resource("x:a#b", "x").withText(""),
    new Resource("x:a", "").withText(""),
    new Resource("x:a", "x").withMimeType("text").withText(""),
    new Resource("x:a", "x").withSize(-2).withText(""),
    new Resource("x:a", "x").withAnnotations("[]").withText(""),
    new Resource("x:a", "x").withIcons("{}").withText(""),
    new Resource("x:a", "x"),
    new Resource("UI://a/b", "x").withMimeType("text/html").withText(""),
    new Resource("text://greeting", "x").withText(""),
  ];
  for (let i = 0; i < resources.length; i++) check(!addResource(resources[i]), "resource refused " + i.toString());
  const templates = ["{+uri}", "{scheme}://x", "x:{", "x:{a*}", "x:{a,a}", "file:///{+path}"];
  for (let i = 0; i < templates.length; i++) {
    check(!addResourceTemplate(new ResourceTemplate(templates[i], "t", readVars)), "template refused " + templates[i]);
  }
  check(!addPrompt(new Prompt("a b", "", review)), "bad prompt name");
  check(!addPrompt(new Prompt("review", "", review)), "prompt twice");
  check(!addPrompt(new Prompt("twice", "", review).withArgument("a", "", false).withArgument("a", "", false)), "argument twice");
  check(!addPrompt(new Prompt("empty", "", review).withArgument("", "", false)), "empty argument name");
  const p = new Prompt("many", "", review);
  for (let i = 0; i <= 64; i++) p.withArgument("a" + i.toString(), "", false);
  check(!addPrompt(p), "too many arguments");
  check(describe() === null, "describe fails after a refusal");
  checkEq(refused()!, 'addResource: resource "relative/path": not an absolute URI (scheme:...)', "first refusal kept");
}

export function run(): i32 {
  testDescribe();
  testRead();
  testTemplates();
  testPrompts();
  testComplete();
  testRefused();
  return failures;
}
