// HTTP requests through the host's http_request (ABI.md section 5), within
// the operator's net policy for the plugin. Only http() reaches the
// imports, so a module that never calls it does not import them and loads
// on hosts older than them.

import { JSONArray, JSONObject, JSONValue, parseJSONBytes } from "./json";

// @ts-ignore: decorator
@external("wasmcp", "http_request")
declare function hostHTTPRequest(ptr: usize, len: usize): u64;

// @ts-ignore: decorator
@external("wasmcp", "read_reply")
declare function hostReadReply(ptr: usize, len: usize): u32;

/** Why the host gave no response, the high half of what http_request
 * returns. Ok (0) is never an error's. */
export enum ReplyStatus {
  Ok = 0,
  /** Sampling and elicitation only: http() never returns it. */
  Unsupported = 1,
  /** DNS, the connection or TLS failed, the body was over the policy's
   * maxResponse, or there were more than 5 redirects. */
  Failed = 2,
  /** The request is malformed (URL, method, a header the host writes,
   * such as Host); nothing was sent. */
  Invalid = 3,
  /** The call's deadline passed or the call was cancelled. */
  Timeout = 4,
  /** The net policy refused the origin, a redirect's or an address; the
   * message names the rule. Nothing was sent to that server. */
  Denied = 5,
}

/** One header line. A name may repeat. */
export class HttpHeader {
  constructor(public name: string, public value: string) {}
}

/** A request for http(). Build it with the with methods:
 *
 *   new HttpRequest("https://api.example.com/items", "POST")
 *     .withHeader("Content-Type", "application/json")
 *     .withText('{"name":"x"}')
 */
export class HttpRequest {
  headers: HttpHeader[] = [];
  /** The body, sent as it is; null sends none. */
  body: Uint8Array | null = null;

  /** url is an absolute http or https URL; method is any HTTP method but
   * CONNECT and TRACE. */
  constructor(public url: string, public method: string = "GET") {}

  /** Adds a header. Host, Content-Length, Transfer-Encoding, Connection,
   * Te, Trailer and Upgrade are the host's to write: the request is
   * refused as invalid with one of them. */
  withHeader(name: string, value: string): HttpRequest {
    this.headers.push(new HttpHeader(name, value));
    return this;
  }
  /** Sets the body to bytes, any bytes. */
  withBody(bytes: Uint8Array): HttpRequest {
    this.body = bytes;
    return this;
  }
  /** Sets the body to text, encoded as UTF-8. */
  withText(text: string): HttpRequest {
    return this.withBody(Uint8Array.wrap(String.UTF8.encode(text, false, String.UTF8.ErrorMode.REPLACE)));
  }
}

/** Why http() got no response: the status says which way it failed, the
 * message (the host's) says what happened, such as
 * "https://169.254.169.254 is not in plugin fetch's net policy". */
export class HttpError {
  constructor(public status: ReplyStatus, public message: string) {}

  toString(): string {
    return this.message;
  }
}

/** A server's answer, whatever its HTTP status, or the error of a request
 * that got none. */
export class HttpResponse {
  /** Non-null when there is no response; status is then 0, and headers
   * and body are empty. */
  error: HttpError | null = null;
  /** The HTTP status code, 200, 404, ... */
  status: i32 = 0;
  /** The URL that answered, after redirects. */
  url: string = "";
  /** Sorted by name, a name repeated for each of its values. */
  headers: HttpHeader[] = [];
  /** The whole body, decompressed if the host asked for compression. */
  body: Uint8Array = new Uint8Array(0);

  /** The first value of the header name (any case), or null. */
  header(name: string): string | null {
    const want = name.toLowerCase();
    for (let i = 0; i < this.headers.length; i++) {
      if (this.headers[i].name.toLowerCase() == want) return this.headers[i].value;
    }
    return null;
  }
  /** The body as UTF-8 text; invalid sequences become U+FFFD. */
  text(): string {
    return String.UTF8.decodeUnsafe(this.body.dataStart, <usize>this.body.length);
  }

  static failed(status: ReplyStatus, message: string): HttpResponse {
    const r = new HttpResponse();
    r.error = new HttpError(status, message);
    return r;
  }
}

const LF: u8 = 0x0a;

/** http makes one request through the host and returns the response. The
 * host follows redirects (at most 5), each within the operator's net policy
 * for this plugin; the module must ask for the origins it reaches
 * (requestPermissions, withNet). Check the response's error first:
 *
 *   const res = http(new HttpRequest(url));
 *   const err = res.error;
 *   if (err !== null) return CallResult.error("GET " + url + ": " + err.message);
 *   const page = res.text();
 */
export function http(req: HttpRequest): HttpResponse {
  const doc = encodeRequest(req);
  const r = hostHTTPRequest(changetype<usize>(doc), <usize>doc.byteLength);
  const status = <u32>(r >>> 32);
  const reply = new ArrayBuffer(<i32>(<u32>r));
  if (reply.byteLength > 0) hostReadReply(changetype<usize>(reply), <usize>reply.byteLength);
  if (status != ReplyStatus.Ok) {
    // Statuses this SDK does not know count as failed (ABI.md section 5).
    const known = status >= <u32>ReplyStatus.Failed && status <= <u32>ReplyStatus.Denied;
    return HttpResponse.failed(known ? <ReplyStatus>status : ReplyStatus.Failed, String.UTF8.decode(reply));
  }
  return decodeResponse(reply);
}

// The request document: the head, a JSON object on one line (quote escapes
// every control character), then, with a body, LF and the body's bytes.
function encodeRequest(req: HttpRequest): ArrayBuffer {
  const head = new JSONObject().setString("method", req.method).setString("url", req.url);
  if (req.headers.length > 0) {
    const list = new JSONArray();
    for (let i = 0; i < req.headers.length; i++) {
      const h = req.headers[i];
      list.push(new JSONArray().push(JSONValue.string(h.name)).push(JSONValue.string(h.value)));
    }
    head.set("headers", list);
  }
  const text = String.UTF8.encode(head.toString(), false, String.UTF8.ErrorMode.REPLACE);
  const body = req.body;
  if (body === null) return text;
  const n = text.byteLength;
  const doc = new ArrayBuffer(n + 1 + body.length);
  const p = changetype<usize>(doc);
  memory.copy(p, changetype<usize>(text), <usize>n);
  store<u8>(p + <usize>n, LF);
  memory.copy(p + <usize>n + 1, body.dataStart, <usize>body.length);
  return doc;
}

// The reply of status ok: the head, a JSON object, LF, the body.
function decodeResponse(reply: ArrayBuffer): HttpResponse {
  const bytes = Uint8Array.wrap(reply);
  const lf = bytes.indexOf(LF);
  let head: JSONObject | null = null;
  if (lf >= 0) {
    const v = parseJSONBytes(changetype<usize>(reply), <usize>lf);
    if (v !== null) head = v.asObject();
  }
  if (head === null) return HttpResponse.failed(ReplyStatus.Failed, "http response: the reply has no JSON head line");
  const res = new HttpResponse();
  res.status = <i32>head.getNumber("status");
  res.url = head.getString("url");
  const list = head.getArray("headers");
  if (list !== null) {
    for (let i = 0; i < list.length; i++) {
      const pair = list.at(i)!.asArray();
      if (pair === null || pair.length != 2) continue;
      res.headers.push(new HttpHeader(pair.at(0)!.asString(), pair.at(1)!.asString()));
    }
  }
  // A view, not a copy: the head before it is small.
  res.body = Uint8Array.wrap(reply, lf + 1, reply.byteLength - lf - 1);
  return res;
}
