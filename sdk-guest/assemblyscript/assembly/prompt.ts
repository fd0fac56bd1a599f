// Prompts, and the completion of prompt arguments and template variables.

import { JSONArray, JSONObject, JSONValue, parseJSONBytes } from "./json";
import { ErrorCode, defined, errorDoc } from "./offers";
import { raw, templateCompleter } from "./resource";
import { Content } from "./result";
import { MAX_TOOL_NAME_LEN, refuseDefinition, validName } from "./tool";

/** The most prompts one module may define. */
export const MAX_PROMPTS: i32 = 1024;
/** The most arguments one prompt may have. */
export const MAX_PROMPT_ARGUMENTS: i32 = 64;
/** The most values a completion sends. */
export const MAX_COMPLETION_VALUES: i32 = 100;

/** Who says a prompt message. */
export enum Role {
  User,
  Assistant,
}

/** One message of a prompt: a role and one content block. */
export class PromptMessage {
  constructor(public role: Role, public content: Content) {}

  static user(content: Content): PromptMessage {
    return new PromptMessage(Role.User, content);
  }
  static assistant(content: Content): PromptMessage {
    return new PromptMessage(Role.Assistant, content);
  }
}

/** What a prompt handler returns: messages with an optional description,
 * or an error the client gets as a JSON-RPC error. */
export class PromptResult {
  description: string | null = null;
  messages: PromptMessage[] = [];
  errorCode: i32 = 0;
  errorMessage: string | null = null;

  /** A result of one text message of the user. */
  static text(text: string): PromptResult {
    return new PromptResult().add(PromptMessage.user(Content.text(text)));
  }
  /** A refusal: ErrorCode.InvalidParams for an argument the handler cannot
   * use, or another code, which the host sends as ErrorCode.Internal. */
  static error(code: i32, message: string): PromptResult {
    const r = new PromptResult();
    r.errorCode = code;
    r.errorMessage = message;
    return r;
  }

  /** Adds a message. */
  add(message: PromptMessage): PromptResult {
    this.messages.push(message);
    return this;
  }
  withDescription(description: string): PromptResult {
    this.description = description;
    return this;
  }
}

/** A prompt handler gets its arguments, an object of strings holding every
 * required argument. */
export type PromptHandler = (args: JSONObject) => PromptResult;

/** What a completion handler is asked: the argument (of a prompt) or
 * variable (of a template), what the user typed of it, and the arguments
 * already chosen, an object of strings. */
export class CompletionRequest {
  constructor(public argument: string, public value: string, public context: JSONObject) {}
}

/** Suggested values: at most 100 are sent; past them, and when total says
 * there are more than were given, hasMore is set. */
export class Completion {
  values: string[] = [];
  /** How many values there are in all; -1: not said. */
  total: i64 = -1;
  hasMore: bool = false;
  errorCode: i32 = 0;
  errorMessage: string | null = null;

  static of(values: string[]): Completion {
    const c = new Completion();
    c.values = values;
    return c;
  }
  static error(code: i32, message: string): Completion {
    const c = new Completion();
    c.errorCode = code;
    c.errorMessage = message;
    return c;
  }
  withTotal(total: i64): Completion {
    this.total = total;
    return this;
  }
}

export type CompleteHandler = (req: CompletionRequest) => Completion;

/** One argument of a prompt; its value is a string. */
export class PromptArgument {
  title: string | null = null;
  constructor(public name: string, public description: string, public required: bool) {}
}

/** A prompt. description "" means none. */
export class Prompt {
  title: string | null = null;
  arguments: PromptArgument[] = [];
  /** MCP icons as a JSON array. */
  icons: string | null = null;
  /** _meta as a JSON object. */
  meta: string | null = null;
  complete: CompleteHandler | null = null;

  constructor(public name: string, public description: string, public handler: PromptHandler) {}

  withTitle(title: string): Prompt { this.title = title; return this; }
  /** Adds an argument (at most 64, names unique); description may be "". A
   * get without a required one is refused before the handler runs. */
  withArgument(name: string, description: string, required: bool): Prompt {
    this.arguments.push(new PromptArgument(name, description, required));
    return this;
  }
  withIcons(json: string): Prompt { this.icons = json; return this; }
  withMeta(json: string): Prompt { this.meta = json; return this; }
  /** Suggests values of an argument from what the user typed. */
  withCompletion(complete: CompleteHandler): Prompt { this.complete = complete; return this; }

  argument(name: string): PromptArgument | null {
    for (let i = 0; i < this.arguments.length; i++) if (this.arguments[i].name == name) return this.arguments[i];
    return null;
  }
}

function refuse(name: string, why: string): bool {
  return refuseDefinition('addPrompt: prompt "' + name + '": ' + why);
}

/** addPrompt registers a prompt; call it at the top level of the module.
 * Like addTool, it returns false for a definition the host would refuse,
 * and the module then fails to load with that reason. */
export function addPrompt(p: Prompt): bool {
  const prompts = defined().prompts;
  if (!validName(p.name)) return refuse(p.name, "a name must be 1 to 128 characters of [A-Za-z0-9_.-]");
  for (let i = 0; i < prompts.length; i++) if (prompts[i].name == p.name) return refuse(p.name, "registered twice");
  if (prompts.length == MAX_PROMPTS) return refuse(p.name, "a module defines at most 1024 prompts");
  if (p.arguments.length > MAX_PROMPT_ARGUMENTS) return refuse(p.name, "a prompt takes at most 64 arguments");
  const def = new JSONObject().setString("name", p.name);
  const title = p.title;
  if (title !== null) def.setString("title", title);
  if (p.description.length > 0) def.setString("description", p.description);
  if (p.arguments.length > 0) {
    const args = new JSONArray();
    for (let i = 0; i < p.arguments.length; i++) {
      const a = p.arguments[i];
      const n = String.UTF8.byteLength(a.name);
      if (n < 1 || n > MAX_TOOL_NAME_LEN) return refuse(p.name, "an argument's name must be 1 to 128 bytes");
      if (p.argument(a.name) !== a) return refuse(p.name, 'argument "' + a.name + '" is defined twice');
      const o = new JSONObject().setString("name", a.name);
      const t = a.title;
      if (t !== null) o.setString("title", t);
      if (a.description.length > 0) o.setString("description", a.description);
      if (a.required) o.setBool("required", true);
      args.push(o);
    }
    def.set("arguments", args);
  }
  const why = raw(def, "icons", p.icons, true) || raw(def, "_meta", p.meta, false);
  if (why !== null) return refuse(p.name, why);
  prompts.push(p);
  defined().promptDefs.push(def);
  return true;
}

/** describePrompts adds the prompts to the Describe document. */
export function describePrompts(doc: JSONObject): void {
  const defs = defined().promptDefs;
  if (defs.length == 0) return;
  const list = new JSONArray();
  list.items = defs;
  doc.set("prompts", list);
}

function find(name: string): Prompt | null {
  const prompts = defined().prompts;
  for (let i = 0; i < prompts.length; i++) if (prompts[i].name == name) return prompts[i];
  return null;
}

function invalidParams(message: string): string {
  return errorDoc(ErrorCode.InvalidParams, message);
}

/** getPromptAt gets prompt name with the arguments JSON at args[0:argsLen]
 * and returns the Prompt document: the messages, or an error. */
export function getPromptAt(name: string, args: usize, argsLen: usize): string {
  const p = find(name);
  if (p === null) return invalidParams('unknown prompt "' + name + '"');
  // The host checked the arguments already; a module run without one (its
  // unit tests) gets the same answers.
  const parsed = argsLen == 0 ? new JSONObject() : parseJSONBytes(args, argsLen);
  if (parsed === null || !parsed.isObject()) return invalidParams("prompt " + name + ": the arguments are not a JSON object");
  const a = parsed.asObject()!;
  for (let i = 0; i < a.keys.length; i++) {
    if (p.argument(a.keys[i]) === null) return invalidParams("prompt " + name + ' has no argument "' + a.keys[i] + '"');
    if (!a.values[i].isString()) return invalidParams("prompt " + name + ': argument "' + a.keys[i] + '" is not a string');
  }
  for (let i = 0; i < p.arguments.length; i++) {
    const arg = p.arguments[i];
    if (arg.required && !a.has(arg.name)) {
      return invalidParams("prompt " + name + ': missing required argument "' + arg.name + '"');
    }
  }
  const r = p.handler(a);
  const msg = r.errorMessage;
  if (msg !== null) return errorDoc(r.errorCode, msg);
  if (r.messages.length == 0) return errorDoc(ErrorCode.Internal, "prompt " + name + " returned invalid messages: no messages");
  const list = new JSONArray();
  for (let i = 0; i < r.messages.length; i++) {
    const m = r.messages[i];
    const why = m.content.check();
    if (why !== null) return errorDoc(ErrorCode.Internal, "prompt " + name + " returned invalid messages: " + why);
    list.push(new JSONObject().setString("role", m.role == Role.Assistant ? "assistant" : "user").set("content", m.content.json));
  }
  const doc = new JSONObject();
  const description = r.description;
  if (description !== null) doc.setString("description", description);
  return doc.set("messages", list).toString();
}

/** completeAt completes an argument of the CompleteRequest params (JSON)
 * at req[0:len] and returns the Completion document. */
export function completeAt(req: usize, len: usize): string {
  const v = parseJSONBytes(req, len);
  const r = v !== null ? v.asObject() : null;
  const ref = r !== null ? r.getObject("ref") : null;
  const arg = r !== null ? r.getObject("argument") : null;
  if (ref === null || arg === null || !arg.has("name")) return invalidParams("completion: the request has no ref and argument");
  const name = arg.getString("name");
  const context = r!.getObject("context");
  let chosen = context !== null ? context.getObject("arguments") : null;
  if (chosen === null) chosen = new JSONObject();
  let handler: CompleteHandler | null = null;
  const type = ref.getString("type");
  if (type == "ref/prompt") {
    const p = find(ref.getString("name"));
    if (p !== null && p.argument(name) !== null) handler = p.complete;
  } else if (type == "ref/resource") {
    handler = templateCompleter(ref.getString("uri"), name);
  }
  const c = handler !== null ? handler(new CompletionRequest(name, arg.getString("value"), chosen)) : new Completion();
  const msg = c.errorMessage;
  if (msg !== null) return errorDoc(c.errorCode, msg);
  const values = new JSONArray();
  for (let i = 0; i < c.values.length && i < MAX_COMPLETION_VALUES; i++) values.push(JSONValue.string(c.values[i]));
  const doc = new JSONObject().set("values", values);
  if (c.total >= 0) doc.setNumber("total", <f64>c.total);
  if (c.hasMore || c.values.length > MAX_COMPLETION_VALUES || c.total > <i64>values.length) doc.setBool("hasMore", true);
  return doc.toString();
}

/** getPrompt is getPromptAt for arguments given as a string, for tests. */
export function getPrompt(name: string, args: string): string {
  const buf = String.UTF8.encode(args);
  return getPromptAt(name, changetype<usize>(buf), <usize>buf.byteLength);
}

/** complete is completeAt for a request given as a string, for tests. */
export function complete(req: string): string {
  const buf = String.UTF8.encode(req);
  return completeAt(changetype<usize>(buf), <usize>buf.byteLength);
}
