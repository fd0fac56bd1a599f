// Resources and resource templates: their definitions, what a read handler
// returns, and reads. Definitions are checked as package abi checks them
// (abi/resources.go), so that a module the host would refuse fails at once,
// saying why.

import { base64Encode } from "./base64";
import { JSONArray, JSONObject, JSONValue, parseJSON } from "./json";
import { ErrorCode, defined, errorDoc } from "./offers";
import { CompleteHandler } from "./prompt";
import { refuseDefinition } from "./tool";
import { UriTemplate } from "./uritemplate";

/** The most resources one module may define. */
export const MAX_RESOURCES: i32 = 1024;
/** The most resource templates one module may define. */
export const MAX_RESOURCE_TEMPLATES: i32 = 256;
/** The longest resource URI or URI template, in bytes. */
export const MAX_URI_LEN: i32 = 2048;

/** One item of a read: the text or the bytes (base64) of a URI. An item
 * whose uri is "" is the URI read, with its definition's MIME type. */
export class ResourceContents {
  text: string | null = null;
  blob: string | null = null;
  constructor(public uri: string, public mimeType: string) {}

  toJSON(): JSONObject {
    const o = new JSONObject().setString("uri", this.uri);
    if (this.mimeType.length > 0) o.setString("mimeType", this.mimeType);
    const text = this.text;
    if (text !== null) o.setString("text", text);
    const blob = this.blob;
    if (blob !== null) o.setString("blob", blob);
    return o;
  }
}

/** What a read handler returns: contents (one item or more), or an error
 * the client gets as a JSON-RPC error. */
export class ReadResult {
  contents: ResourceContents[] = [];
  errorCode: i32 = 0;
  errorMessage: string | null = null;

  /** The text of the URI read. */
  static text(text: string): ReadResult {
    return new ReadResult().addText("", "", text);
  }
  /** The bytes of the URI read, sent base64-encoded. */
  static blob(data: Uint8Array): ReadResult {
    return new ReadResult().addBlob("", "", data);
  }
  /** A refusal: code ErrorCode.NotFound, ErrorCode.InvalidParams, or
   * another, which the host sends as ErrorCode.Internal. */
  static error(code: i32, message: string): ReadResult {
    const r = new ReadResult();
    r.errorCode = code;
    r.errorMessage = message;
    return r;
  }
  /** A resource that does not exist. */
  static notFound(message: string): ReadResult {
    return ReadResult.error(ErrorCode.NotFound, message);
  }

  /** Adds text contents of uri ("" for the URI read); mimeType may be "". */
  addText(uri: string, mimeType: string, text: string): ReadResult {
    const c = new ResourceContents(uri, mimeType);
    c.text = text;
    this.contents.push(c);
    return this;
  }
  /** Adds binary contents of uri, base64-encoded here. */
  addBlob(uri: string, mimeType: string, data: Uint8Array): ReadResult {
    const c = new ResourceContents(uri, mimeType);
    c.blob = base64Encode(data);
    this.contents.push(c);
    return this;
  }
}

/** A read handler gets the URI read and, for a template, its variables: an
 * object of strings, percent-decoded ({} for a resource). */
export type ReadHandler = (uri: string, vars: JSONObject) => ReadResult;

/** What resources and templates share. */
export class ResourceInfo {
  title: string | null = null;
  description: string | null = null;
  /** type/subtype; "text/html;profile=mcp-app" for a ui:// view. */
  mimeType: string | null = null;
  /** MCP annotations as a JSON object. */
  annotations: string | null = null;
  /** MCP icons as a JSON array. */
  icons: string | null = null;
  /** _meta as a JSON object. */
  meta: string | null = null;

  constructor(public name: string) {}

  /** write adds the fields to def, with size when it is not negative, or
   * says why the host would refuse them. */
  write(def: JSONObject, size: i64): string | null {
    if (this.name.length < 1 || String.UTF8.byteLength(this.name) > 256) return "a name must be 1 to 256 bytes";
    def.setString("name", this.name);
    optional(def, "title", this.title);
    optional(def, "description", this.description);
    const mime = this.mimeType;
    if (mime !== null) {
      if (!mediaType(mime)) return "the MIME type is not type/subtype";
      def.setString("mimeType", mime);
    }
    if (size >= 0) def.setNumber("size", <f64>size);
    return raw(def, "annotations", this.annotations, false) || raw(def, "icons", this.icons, true) ||
      raw(def, "_meta", this.meta, false);
  }
}

function optional(def: JSONObject, key: string, value: string | null): void {
  if (value !== null) def.setString(key, value);
}

/** raw adds the JSON text json as member key when it is an object (with
 * array, an array), or says why not. */
export function raw(def: JSONObject, key: string, json: string | null, array: bool): string | null {
  if (json === null) return null;
  const v = parseJSON(json);
  if (v === null || (array ? !v.isArray() : !v.isObject())) {
    const what: string = key == "_meta" ? "meta" : key;
    return what + (array ? ": not a JSON array" : ": not a JSON object");
  }
  def.set(key, v);
  return null;
}

/** A resource: one URI, with fixed text (withText) or a handler. */
export class Resource extends ResourceInfo {
  /** The size of the contents in bytes; -1: not said. */
  size: i64 = -1;
  text: string | null = null;
  handler: ReadHandler | null = null;

  /** uri: an absolute URI (scheme:..., printable ASCII, no fragment),
   * unique in the module; name: 1 to 256 bytes. */
  constructor(public uri: string, name: string) {
    super(name);
  }

  withTitle(title: string): Resource { this.title = title; return this; }
  withDescription(description: string): Resource { this.description = description; return this; }
  withMimeType(mimeType: string): Resource { this.mimeType = mimeType; return this; }
  withAnnotations(json: string): Resource { this.annotations = json; return this; }
  withIcons(json: string): Resource { this.icons = json; return this; }
  withMeta(json: string): Resource { this.meta = json; return this; }
  withSize(size: i64): Resource { this.size = size; return this; }
  /** The contents: this text, with the resource's MIME type. */
  withText(text: string): Resource { this.text = text; return this; }
  withHandler(handler: ReadHandler): Resource { this.handler = handler; return this; }
}

/** A resource template: the URIs an RFC 6570 template matches (levels 1
 * to 3 and the prefix modifier: {var}, {+path}, {#frag}, {.ext}, {/seg},
 * {;p}, {?q,lang}, {&more}, {var:3}; not the explode modifier *). The text
 * before its first expression holds the scheme. */
export class ResourceTemplate extends ResourceInfo {
  complete: CompleteHandler | null = null;
  parsed: UriTemplate | null = null;

  constructor(public uriTemplate: string, name: string, public handler: ReadHandler) {
    super(name);
  }

  withTitle(title: string): ResourceTemplate { this.title = title; return this; }
  withDescription(description: string): ResourceTemplate { this.description = description; return this; }
  withMimeType(mimeType: string): ResourceTemplate { this.mimeType = mimeType; return this; }
  withAnnotations(json: string): ResourceTemplate { this.annotations = json; return this; }
  withIcons(json: string): ResourceTemplate { this.icons = json; return this; }
  withMeta(json: string): ResourceTemplate { this.meta = json; return this; }
  /** Suggests values of a variable from what the user typed. */
  withCompletion(complete: CompleteHandler): ResourceTemplate { this.complete = complete; return this; }

  /** The length of the text before the first expression. */
  prefix(): i32 {
    const i = this.uriTemplate.indexOf("{");
    return i < 0 ? this.uriTemplate.length : i;
  }
}

function refuse(fn: string, kind: string, name: string, why: string): bool {
  return refuseDefinition(fn + ": " + kind + ' "' + name + '": ' + why);
}

/** addResource registers a resource; call it at the top level of the
 * module. Like addTool, it returns false for a definition the host would
 * refuse, and the module then fails to load with that reason. */
export function addResource(r: Resource): bool {
  const d = defined();
  const fn = "addResource";
  let why = uriProblem(r.uri, false);
  if (why !== null) return refuse(fn, "resource", r.uri, why);
  const def = new JSONObject().setString("uri", r.uri);
  why = r.size < 0 && r.size != -1 ? "the size is negative" : r.write(def, r.size);
  if (why !== null) return refuse(fn, "resource", r.uri, why);
  const mime = r.mimeType;
  if (r.uri.length >= 3 && r.uri.substring(0, 3).toLowerCase() == "ui:" && (mime === null || mime != APP_MIME_TYPE)) {
    return refuse(fn, "resource", r.uri, "a ui:// view must have the MIME type " + APP_MIME_TYPE);
  }
  if (r.handler === null && r.text === null) return refuse(fn, "resource", r.uri, "neither a handler nor a text");
  for (let i = 0; i < d.resources.length; i++) {
    if (d.resources[i].uri == r.uri) return refuse(fn, "resource", r.uri, "registered twice");
  }
  if (d.resources.length == MAX_RESOURCES) return refuse(fn, "resource", r.uri, "a module defines at most 1024 resources");
  d.resources.push(r);
  d.resourceDefs.push(def);
  return true;
}

/** addResourceTemplate registers a template, refused as addResource
 * refuses. */
export function addResourceTemplate(t: ResourceTemplate): bool {
  const d = defined();
  const fn = "addResourceTemplate";
  let why = uriProblem(t.uriTemplate, true);
  if (why !== null) return refuse(fn, "template", t.uriTemplate, why);
  const def = new JSONObject().setString("uriTemplate", t.uriTemplate);
  why = t.write(def, -1);
  if (why !== null) return refuse(fn, "template", t.uriTemplate, why);
  for (let i = 0; i < d.templates.length; i++) {
    if (d.templates[i].uriTemplate == t.uriTemplate) return refuse(fn, "template", t.uriTemplate, "registered twice");
  }
  if (d.templates.length == MAX_RESOURCE_TEMPLATES) {
    return refuse(fn, "template", t.uriTemplate, "a module defines at most 256 templates");
  }
  const parsed = UriTemplate.parse(t.uriTemplate);
  const err = parsed.error;
  if (err !== null) return refuse(fn, "template", t.uriTemplate, err);
  t.parsed = parsed;
  d.templates.push(t);
  d.templateDefs.push(def);
  return true;
}

const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** describeResources adds the resources and templates to the Describe
 * document. */
export function describeResources(doc: JSONObject): void {
  const d = defined();
  if (d.resourceDefs.length > 0) {
    const list = new JSONArray();
    list.items = d.resourceDefs;
    doc.set("resources", list);
  }
  if (d.templateDefs.length > 0) {
    const list = new JSONArray();
    list.items = d.templateDefs;
    doc.set("resourceTemplates", list);
  }
}

/** templateCompleter returns the completion handler of the template whose
 * text is uriTemplate and that has the variable argument, or null. */
export function templateCompleter(uriTemplate: string, argument: string): CompleteHandler | null {
  const templates = defined().templates;
  for (let i = 0; i < templates.length; i++) {
    const t = templates[i];
    if (t.uriTemplate == uriTemplate) return t.parsed!.hasVar(argument) ? t.complete : null;
  }
  return null;
}

/** read reads uri and returns the Read document: the contents, or an
 * error (ErrorCode.NotFound for a URI no resource or template serves). */
export function read(uri: string): string {
  const resources = defined().resources;
  const templates = defined().templates;
  let handler: ReadHandler | null = null;
  let text: string | null = null;
  let mime: string | null = null;
  let vars = new JSONObject();
  let found = false;
  for (let i = 0; i < resources.length && !found; i++) {
    if (resources[i].uri == uri) {
      found = true;
      handler = resources[i].handler;
      text = resources[i].text;
      mime = resources[i].mimeType;
    }
  }
  // A URI no resource names goes to the template that matches it with the
  // longest text before its first expression, as the host routes it
  // between plugins; between two as long, to the first registered.
  let best: ResourceTemplate | null = null;
  for (let i = 0; i < templates.length && !found; i++) {
    const t = templates[i];
    if (best !== null && t.prefix() <= best.prefix()) continue;
    const v = t.parsed!.match(uri);
    if (v !== null) {
      best = t;
      vars = v;
    }
  }
  if (best !== null) {
    found = true;
    handler = best.handler;
    mime = best.mimeType;
  }
  if (!found) return errorDoc(ErrorCode.NotFound, "resource " + uri + " not found");
  const r = handler !== null ? handler(uri, vars) : ReadResult.text(text!);
  const msg = r.errorMessage;
  if (msg !== null) return errorDoc(r.errorCode, msg);
  if (r.contents.length == 0) return invalid(uri, "no contents");
  const list = new JSONArray();
  for (let i = 0; i < r.contents.length; i++) {
    const c = r.contents[i];
    if (c.uri.length == 0) {
      c.uri = uri;
      if (c.mimeType.length == 0 && mime !== null) c.mimeType = mime;
    }
    if ((c.text === null) == (c.blob === null)) return invalid(uri, "an item needs exactly one of text and blob");
    list.push(c.toJSON());
  }
  return new JSONObject().set("contents", list).toString();
}

function invalid(uri: string, why: string): string {
  return errorDoc(ErrorCode.Internal, "resource " + uri + ": invalid contents: " + why);
}

/** uriProblem checks an absolute URI or, with template, a URI template
 * whose text before its first expression holds the scheme. */
function uriProblem(uri: string, template: bool): string | null {
  if (uri.length == 0) return "the URI is empty";
  if (uri.length > MAX_URI_LEN) return "the URI is longer than 2048 bytes";
  for (let i = 0; i < uri.length; i++) {
    const c = uri.charCodeAt(i);
    if (c <= 0x20 || c > 0x7e) return "the URI holds a space, a control or a non-ASCII byte";
  }
  let literal = uri;
  if (template && uri.indexOf("{") >= 0) literal = uri.substring(0, uri.indexOf("{"));
  const colon = literal.indexOf(":");
  let ok = colon > 0 && isLetter(literal.charCodeAt(0));
  for (let i = 1; i < colon && ok; i++) {
    const c = literal.charCodeAt(i);
    ok = isLetter(c) || (c >= 0x30 && c <= 0x39) || c == 0x2b || c == 0x2e || c == 0x2d;
  }
  if (!ok) return template ? "the text before the first expression must hold a scheme and ':'" : "not an absolute URI (scheme:...)";
  if (!template && uri.indexOf("#") >= 0) return "the URI has a fragment (#)";
  return null;
}

function isLetter(c: i32): bool {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isToken(s: string): bool {
  if (s.length == 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c > 0x7e || '()<>@,;:\\"/[]?={}'.includes(s.charAt(i))) return false;
  }
  return true;
}

/** mediaType reports whether s is type/subtype, with optional parameters
 * after ';'. */
function mediaType(s: string): bool {
  const semi = s.indexOf(";");
  const mt = (semi < 0 ? s : s.substring(0, semi)).trim();
  const slash = mt.indexOf("/");
  return slash > 0 && isToken(mt.substring(0, slash)) && isToken(mt.substring(slash + 1));
}
