// A module for http_test.go, run by the real host through
// sdk-guest/internal/httpcheck, whose contract it keeps: tool "request"
// makes the HTTP request its arguments describe, {url, method?, headers?:
// [[name, value]], body?: a string} (no body member sends none), and
// returns {status, url, headers, body: base64} as structured content, or a
// tool error "status N: message". It asks for every origin the policy
// allows.

import {
  CallResult,
  HttpRequest,
  JSONArray,
  JSONObject,
  JSONValue,
  Permissions,
  Tool,
  addTool,
  base64Encode,
  http,
  requestPermissions,
} from "../assembly";
export * from "../assembly/abi";

requestPermissions(new Permissions().withNet(["*"]));

function request(args: JSONObject): CallResult {
  const req = new HttpRequest(args.getString("url"), args.getString("method", "GET"));
  const headers = args.getArray("headers");
  if (headers !== null) {
    for (let i = 0; i < headers.length; i++) {
      const pair = headers.at(i)!.asArray()!;
      req.withHeader(pair.at(0)!.asString(), pair.at(1)!.asString());
    }
  }
  // The body is a string of code points below 0x80, sent as their bytes.
  if (args.has("body")) req.withText(args.getString("body"));
  const res = http(req);
  const err = res.error;
  if (err !== null) return CallResult.error("status " + (<i32>err.status).toString() + ": " + err.message);
  const list = new JSONArray();
  for (let i = 0; i < res.headers.length; i++) {
    list.push(new JSONArray().push(JSONValue.string(res.headers[i].name)).push(JSONValue.string(res.headers[i].value)));
  }
  return CallResult.structured(
    new JSONObject()
      .setNumber("status", <f64>res.status)
      .setString("url", res.url)
      .set("headers", list)
      .setString("body", base64Encode(res.body)),
  );
}

addTool(new Tool("request", "Makes the HTTP request its arguments describe.", '{"type":"object"}', request));
