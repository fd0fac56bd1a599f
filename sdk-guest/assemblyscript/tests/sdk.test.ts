// Unit tests of the SDK, compiled to a module and run by tests/run.mjs under
// Node's WebAssembly. run() returns the number of failed checks; each
// failure is logged through the wasmcp log import.

import {
  CallResult,
  Content,
  HttpRequest,
  JSONArray,
  JSONObject,
  JSONValue,
  LogLevel,
  Permissions,
  ReplyStatus,
  Tool,
  addTool,
  base64Encode,
  call,
  formatNumber,
  http,
  log,
  parseJSON,
  quote,
  requestPermissions,
} from "../assembly";
import { describe, refused } from "../assembly/tool";

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

function testParse(): void {
  const valid = [
    "{}", " [ ] ", "0", "-0.5e+10", "1E3", '"a\\u00e9\\n"', "true", "false", "null",
    '{"a":[1,{"b":null}],"c":"\\""}', "[[[[[]]]]]",
  ];
  const invalid = [
    "", " ", "{", "}", "[1,]", '{"a"}', '{"a":}', "{a:1}", "01", "1.", ".5", "+1", "1e", "-",
    '"\\x"', '"\\u12"', '"a', "tru", "nul", "[1 2]", '{"a":1,}', "1 2", '"\u0001"', '["a"',
  ];
  for (let i = 0; i < valid.length; i++) check(parseJSON(valid[i]) !== null, "valid JSON refused: " + valid[i]);
  for (let i = 0; i < invalid.length; i++) check(parseJSON(invalid[i]) === null, "invalid JSON accepted: " + invalid[i]);
  check(parseJSON("[".repeat(5000) + "]".repeat(5000)) === null, "deep nesting refused");
  check(parseJSON("[".repeat(100) + "]".repeat(100)) !== null, "moderate nesting accepted");
}

function testGet(): void {
  const v = parseJSON(
    '{"message":"hi \\"you\\"\\u00e9\\ud83d\\ude00","a":7,"b":-2.5e1,"ok":true,"no":false,"nil":null,' +
      '"nested":{"message":"inner"},"list":[1,"two",[3]],"d":1,"d":2,"k\\u0065y":"escaped key","u":"h\u00e9llo"}',
  );
  check(v !== null && v.isObject(), "object parsed");
  const o = v!.asObject()!;
  checkEq(o.getString("message"), 'hi "you"\u00e9\ud83d\ude00', "string with escapes");
  check(o.getNumber("a") == 7, "integer");
  check(o.getNumber("b") == -25, "exponent");
  check(o.getBool("ok") == true && o.getBool("no", true) == false, "booleans");
  check(o.get("nil")!.isNull(), "null");
  check(o.get("missing") === null, "missing member");
  checkEq(o.getString("a", "fallback"), "fallback", "fallback for another type");
  check(o.getNumber("message", 42) == 42, "number fallback");
  checkEq(o.getObject("nested")!.getString("message"), "inner", "nested object");
  const list = o.getArray("list")!;
  check(list.length == 3 && list.at(0)!.asNumber() == 1 && list.at(1)!.asString() == "two", "array");
  check(list.at(2)!.asArray()!.length == 1 && list.at(3) === null, "nested array");
  check(o.getNumber("d") == 2, "last duplicate wins");
  checkEq(o.getString("key"), "escaped key", "escaped key");
  checkEq(o.getString("u"), "h\u00e9llo", "raw UTF-8");
  checkEq(o.keys.join(","), "message,a,b,ok,no,nil,nested,list,d,key,u", "key order");
}

function testNumbers(): void {
  const values: f64[] = [0, 12, -7, 0.5, 1e21, 1.5e-7, 9007199254740992, 22.5, NaN, -Infinity];
  const want = ["0", "12", "-7", "0.5", "1e+21", "1.5e-7", "9007199254740992.0", "22.5", "null", "null"];
  for (let i = 0; i < values.length; i++) checkEq(formatNumber(values[i]), want[i], "formatNumber " + want[i]);
  // Not the shortest digits, but the same double.
  check(parseFloat(formatNumber(0.1 + 0.2)) == 0.1 + 0.2, "formatNumber 0.1 + 0.2");
}

function testWrite(): void {
  checkEq(quote('q"b\\n\n\t\u0001<>&\u00e9\ud83d\ude00'), '"q\\"b\\\\n\\n\\t\\u0001<>&\u00e9\ud83d\ude00"', "quote");
  checkEq(quote("a\ud800b\udc00"), '"a\\ufffdb\\ufffd"', "lone surrogates");
  const o = new JSONObject()
    .setString("s", "x")
    .setNumber("n", 2.5)
    .setBool("b", false)
    .setNull("z")
    .set("a", new JSONArray().push(JSONValue.number(1)).push(new JSONObject()));
  o.setNumber("n", 3); // replaced in place
  checkEq(o.toString(), '{"s":"x","n":3,"b":false,"z":null,"a":[1,{}]}', "stringify");
  const round = '{"a":[true,null,{"x":[1,"\\n"]}],"b":{},"c":-0.25}';
  checkEq(parseJSON(round)!.toString(), round, "round trip");
}

function testBase64(): void {
  const cases = ["", "f", "fo", "foo", "foob", "fooba", "foobar"];
  const want = ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"];
  for (let i = 0; i < cases.length; i++) {
    checkEq(base64Encode(Uint8Array.wrap(String.UTF8.encode(cases[i]))), want[i], "base64 " + cases[i]);
  }
}

function greet(args: JSONObject): CallResult {
  return CallResult.text("Hello, " + args.getString("name", "world") + "!").add(
    Content.image(Uint8Array.wrap(String.UTF8.encode("\u0089PNG")), "image/png"),
  );
}
function weather(args: JSONObject): CallResult {
  return CallResult.structured(new JSONObject().setNumber("temperature", 22.5));
}
function fail(args: JSONObject): CallResult {
  return CallResult.error("failed with " + formatNumber(args.getNumber("code")));
}
function badImage(args: JSONObject): CallResult {
  return new CallResult().add(Content.imageBase64("", "image/png"));
}

addTool(
  new Tool("greet", "Says hello.", '{"type":"object","properties":{"name":{"type":"string"}}}', greet)
    .withTitle("Greeter")
    .withAnnotations('{"readOnlyHint":true}'),
);
addTool(new Tool("weather", "", "", weather).withOutputSchema('{"type":"object"}'));
addTool(new Tool("fail", "", '{"type":"object"}', fail));
addTool(new Tool("bad_image", "", "", badImage));
// Two requests: lists are appended, flags set.
requestPermissions(new Permissions().withNet(["https://api.example.com"]).withFS("/data", true).withEnv(["TZ"]));
requestPermissions(new Permissions().withNet(["*"]).withFS("/templates").withClock());

function testTools(): void {
  checkEq(
    describe()!,
    '{"tools":[{"name":"greet","title":"Greeter","description":"Says hello.",' +
      '"inputSchema":{"type":"object","properties":{"name":{"type":"string"}}},"annotations":{"readOnlyHint":true}},' +
      '{"name":"weather","inputSchema":{"type":"object","additionalProperties":false},"outputSchema":{"type":"object"}},' +
      '{"name":"fail","inputSchema":{"type":"object"}},' +
      '{"name":"bad_image","inputSchema":{"type":"object","additionalProperties":false}}],' +
      '"permissions":{"fs":[{"path":"/data","write":true},{"path":"/templates"}],"env":["TZ"],"clock":true,' +
      '"net":["https://api.example.com","*"]}}',
    "describe",
  );
  checkEq(
    call("greet", '{"name":"AS \\"SDK\\""}'),
    '{"content":[{"type":"text","text":"Hello, AS \\"SDK\\"!"},{"type":"image","data":"wolQTkc=","mimeType":"image/png"}]}',
    "greet",
  );
  checkEq(call("weather", ""), '{"content":[],"structuredContent":{"temperature":22.5}}', "weather");
  checkEq(call("fail", '{"code":3}'), '{"content":[{"type":"text","text":"failed with 3"}],"isError":true}', "fail");
  checkEq(call("missing", "{}"), '{"content":[{"type":"text","text":"unknown tool \\"missing\\""}],"isError":true}', "unknown");
  checkEq(
    call("greet", "[1]"),
    '{"content":[{"type":"text","text":"invalid arguments for tool greet: not a JSON object"}],"isError":true}',
    "arguments not an object",
  );
  checkEq(
    call("bad_image", "{}"),
    '{"content":[{"type":"text","text":"tool bad_image returned an invalid result: an image or audio block needs data and a MIME type"}],"isError":true}',
    "invalid block",
  );
  // Refused definitions: each returns false; the first reason is kept and
  // describe then fails.
  check(!addTool(new Tool("greet", "", "", greet)), "duplicate refused");
  check(!addTool(new Tool("bad name", "", "", greet)), "bad name refused");
  check(!addTool(new Tool("", "", "", greet)), "empty name refused");
  check(!addTool(new Tool("x".repeat(129), "", "", greet)), "long name refused");
  check(!addTool(new Tool("s1", "", '{"type":"string"}', greet)), "non-object input schema refused");
  check(!addTool(new Tool("s2", "", "{", greet)), "invalid input schema refused");
  check(!addTool(new Tool("s3", "", "", greet).withOutputSchema("[]")), "non-object output schema refused");
  check(addTool(new Tool("x".repeat(128), "", "", greet)), "longest name accepted");
  check(describe() === null, "describe fails after a refusal");
  checkEq(refused()!, 'addTool: tool "greet": registered twice', "first refusal kept");
}

function bytesEq(got: Uint8Array, want: u8[]): bool {
  if (got.length != want.length) return false;
  for (let i = 0; i < want.length; i++) if (got[i] != want[i]) return false;
  return true;
}

// tests/run.mjs answers http_request with what it was sent (see there).
function testHTTP(): void {
  let res = http(new HttpRequest("http://stub.test/echo"));
  check(res.error === null, "GET: no error");
  check(res.status == 201, "GET: status");
  checkEq(res.url, "http://stub.test/echo#answered", "GET: url");
  checkEq(res.header("X-Head")!, '{"method":"GET","url":"http://stub.test/echo"}', "GET: head");
  checkEq(res.header("x-body")!, "no", "GET: no body sent, any case of the name");
  check(res.header("X-Missing") === null, "GET: missing header");
  check(res.body.length == 0 && res.text() == "", "GET: empty body");

  // The body crosses byte for byte, LF and NUL included; a header value
  // with a LF is escaped in the head, which stays one line.
  const binary: u8[] = [0, 10, 255, 0x0d, 10, 0, 0x7b];
  const body = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) body[i] = binary[i];
  res = http(
    new HttpRequest("http://stub.test/echo?q=1", "POST")
      .withHeader("Content-Type", "application/octet-stream")
      .withHeader("X-Trace", "a\nb")
      .withHeader("X-Trace", "c")
      .withBody(body),
  );
  checkEq(
    res.header("X-Head")!,
    '{"method":"POST","url":"http://stub.test/echo?q=1","headers":[["Content-Type","application/octet-stream"],' +
      '["X-Trace","a\\nb"],["X-Trace","c"]]}',
    "POST: head",
  );
  check(bytesEq(res.body, binary), "POST: binary body echoed");
  checkEq(res.header("X-Body")!, "yes", "POST: body sent");

  res = http(new HttpRequest("http://stub.test/echo", "PUT").withBody(new Uint8Array(0)));
  check(res.error === null && res.header("X-Body")! == "yes" && res.body.length == 0, "empty body sent");
  res = http(new HttpRequest("http://stub.test/echo", "POST").withText("h\u00e9llo\n\ud83d\ude00"));
  checkEq(res.text(), "h\u00e9llo\n\ud83d\ude00", "text body");

  const statuses: i32[] = [2, 3, 4, 5, 1, 9];
  const want: ReplyStatus[] = [
    ReplyStatus.Failed, ReplyStatus.Invalid, ReplyStatus.Timeout, ReplyStatus.Denied, ReplyStatus.Failed, ReplyStatus.Failed,
  ];
  for (let i = 0; i < statuses.length; i++) {
    const n = statuses[i].toString();
    res = http(new HttpRequest("http://stub.test/status/" + n));
    const err = res.error;
    check(err !== null && err.status == want[i], "status " + n + ": error status");
    if (err !== null) checkEq(err.toString(), "stub: status " + n, "status " + n + ": message");
    check(res.status == 0 && res.headers.length == 0 && res.body.length == 0, "status " + n + ": no response");
  }
  res = http(new HttpRequest("http://stub.test/nohead"));
  check(res.error !== null && res.error!.status == ReplyStatus.Failed, "a reply without a head line fails");
}

export function run(): i32 {
  testParse();
  testGet();
  testNumbers();
  testWrite();
  testBase64();
  testHTTP();
  testTools();
  return failures;
}
