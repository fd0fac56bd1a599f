// A hyper-mcp v2 plugin written with the Extism AssemblyScript PDK that
// calls every host function hyper-mcp gives its plugins in
// extism:host/user: progress, logging, sampling, elicitation, roots,
// keyring secrets, OAuth tokens and the list-changed notifications. Each is
// declared with the module, name and signature of hyper-mcp's plugin
// templates (an i64 offset of a block of Extism's memory holding JSON in,
// one out). It exports list_tools and call_tool
// ({"request":{"name","arguments"},"context":{"_meta":{...}}} -> a
// CallToolResult) and knows nothing of wasmcp.
//
// Its tool list depends on its Extism variables: each call of grow adds a
// tool and tells the host that its lists changed.
import { Host, Memory, Var } from "@extism/as-pdk";
import { length } from "@extism/as-pdk/lib/env";
import { JSON } from "assemblyscript-json/assembly";

import { fail, outputString, quote, stringArg, text } from "./common";

@external("extism:host/user", "create_elicitation")
declare function create_elicitation(input: u64): u64;
@external("extism:host/user", "create_message")
declare function create_message(input: u64): u64;
@external("extism:host/user", "get_access_token")
declare function get_access_token(input: u64): u64;
@external("extism:host/user", "get_keyring_secret")
declare function get_keyring_secret(input: u64): u64;
@external("extism:host/user", "list_roots")
declare function list_roots(): u64;
@external("extism:host/user", "notify_logging_message")
declare function notify_logging_message(input: u64): void;
@external("extism:host/user", "notify_progress")
declare function notify_progress(input: u64): void;
@external("extism:host/user", "notify_prompt_list_changed")
declare function notify_prompt_list_changed(): void;
@external("extism:host/user", "notify_resource_list_changed")
declare function notify_resource_list_changed(): void;
@external("extism:host/user", "notify_resource_updated")
declare function notify_resource_updated(input: u64): void;
@external("extism:host/user", "notify_tool_list_changed")
declare function notify_tool_list_changed(): void;
@external("extism:host/user", "notify_url_elicitation_completed")
declare function notify_url_elicitation_completed(input: u64): void;

const TOOLS = `
{"name":"progress","description":"Reports three steps of progress to the call's progress token, asking the client's model the prompt given, if any, after each.","inputSchema":{"type":"object","properties":{"prompt":{"type":"string"}}}},
{"name":"log","description":"Sends a logging message at the level given.","inputSchema":{"type":"object","properties":{"level":{"type":"string"},"message":{"type":"string"}}}},
{"name":"sample","description":"Asks the client's model the prompt given (sampling).","inputSchema":{"type":"object","properties":{"prompt":{"type":"string"}}}},
{"name":"elicit","description":"Asks the user for their name (form elicitation).","inputSchema":{"type":"object"}},
{"name":"roots","description":"Lists the client's roots.","inputSchema":{"type":"object"}},
{"name":"secret","description":"Reads the keyring secret of service and user.","inputSchema":{"type":"object","properties":{"service":{"type":"string"},"user":{"type":"string"}}}},
{"name":"token","description":"Asks the host for an OAuth access token.","inputSchema":{"type":"object"}},
{"name":"url_done","description":"Says that the URL elicitation of the id given is complete.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},
{"name":"resource_updated","description":"Says that the resource of the URI given was updated.","inputSchema":{"type":"object","properties":{"uri":{"type":"string"}}}},
{"name":"grow","description":"Adds a tool to the plugin's list and says that its list (tools, prompts or resources) changed.","inputSchema":{"type":"object","properties":{"list":{"type":"string"}}}}`;

export function list_tools(): i32 {
  let list = TOOLS;
  const n = grown();
  for (let i = 1; i <= n; i++) {
    list += `,{"name":"extra_${i.toString()}","description":"A tool grow added.","inputSchema":{"type":"object"}}`;
  }
  outputString(`{"tools":[${list}]}`);
  return 0;
}

export function call_tool(): i32 {
  const input = JSON.parse(Host.inputString());
  if (!input.isObj) return fail("call_tool: input is not a JSON object");
  const request = (<JSON.Obj>input).getObj("request");
  if (request === null) return fail("call_tool: input has no request");
  const name = request.getString("name");
  if (name === null) return fail("call_tool: request has no name");
  let args = request.getObj("arguments");
  if (args === null) args = new JSON.Obj();
  let meta: JSON.Obj | null = null;
  const context = (<JSON.Obj>input).getObj("context");
  if (context !== null) meta = context.getObj("_meta");

  const tool = name.valueOf();
  if (tool == "progress") return progress(meta, stringArg(args, "prompt"));
  if (tool == "log") return log(args);
  if (tool == "sample") return sample(stringArg(args, "prompt"));
  if (tool == "elicit") return elicit();
  if (tool == "roots") return roots();
  if (tool == "secret") return secret(stringArg(args, "service"), stringArg(args, "user"));
  if (tool == "token") return token();
  if (tool == "url_done") {
    notify_url_elicitation_completed(json(`{"elicitationId":${quote(stringArg(args, "id"))}}`));
    return text("sent");
  }
  if (tool == "resource_updated") {
    notify_resource_updated(json(`{"uri":${quote(stringArg(args, "uri"))}}`));
    return text("sent");
  }
  if (tool == "grow") return grow(stringArg(args, "list"));
  if (tool.startsWith("extra_")) {
    const n = I32.parseInt(tool.slice(6));
    if (n >= 1 && n <= grown()) return text(tool + " was added by grow");
  }
  return fail("unknown tool " + tool);
}

function progress(meta: JSON.Obj | null, prompt: string): i32 {
  if (meta === null) return text("no progress token");
  const token = meta.get("progressToken");
  if (token === null) return text("no progress token");
  const tok = token.stringify();
  for (let i = 1; i <= 3; i++) {
    notify_progress(json(`{"progressToken":${tok},"progress":${i.toString()},"total":3,` +
      `"message":"step ${i.toString()} of 3"}`));
    if (prompt != "") ask(prompt);
  }
  return text("reported 3 steps");
}

function log(args: JSON.Obj): i32 {
  let level = stringArg(args, "level");
  if (level == "") level = "info";
  notify_logging_message(json(`{"level":${quote(level)},"logger":"user-as","data":${quote(stringArg(args, "message"))}}`));
  return text("sent");
}

function sample(prompt: string): i32 {
  const res = ask(prompt);
  return text(stringArg(res, "model") + " said: " + stringOf(res.getObj("content"), "text"));
}

// ask asks the client's model the prompt (create_message).
function ask(prompt: string): JSON.Obj {
  return parse(create_message(json(
    `{"messages":[{"role":"user","content":{"type":"text","text":${quote(prompt)}}}],"maxTokens":100}`)));
}

function elicit(): i32 {
  const res = parse(create_elicitation(json(`{"mode":"form","message":"What is your name?",` +
    `"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"timeout":60}`)));
  return text(stringArg(res, "action") + " " + stringOf(res.getObj("content"), "name"));
}

function roots(): i32 {
  const list = parse(list_roots()).getArr("roots");
  let uris = "";
  if (list !== null) {
    const roots = list.valueOf();
    for (let i = 0; i < roots.length; i++) {
      if (!roots[i].isObj) continue;
      const uri = stringArg(<JSON.Obj>roots[i], "uri");
      if (uri != "") uris += (uris == "" ? "" : " ") + uri;
    }
  }
  return text(uris == "" ? "no roots" : uris);
}

function secret(service: string, user: string): i32 {
  const off = get_keyring_secret(json(`{"service":${quote(service)},"user":${quote(user)}}`));
  const n = off == 0 ? 0 : length(off);
  return text(n == 0 ? "no secret" : new Memory(off, n).toString());
}

function token(): i32 {
  const res = get_access_token(json(`{"client_id":"wasmcp-example","token_endpoint_url":"https://auth.example/token"}`));
  return res == 0 ? fail("no access token") : text("got a token");
}

function grow(list: string): i32 {
  const n = grown() + 1;
  Var.set("grown", Uint8Array.wrap(String.UTF8.encode(n.toString())));
  if (list == "" || list == "tools") notify_tool_list_changed();
  else if (list == "prompts") notify_prompt_list_changed();
  else if (list == "resources") notify_resource_list_changed();
  else return fail("list is tools, prompts or resources, not " + list);
  return text(n.toString() + " extra tools");
}

function grown(): i32 {
  const v = Var.getString("grown");
  return v === null ? 0 : I32.parseInt(v);
}

// json passes a JSON document to a host function: a block of Extism's
// memory, which the host function takes.
function json(s: string): u64 {
  return Memory.allocateString(s).offset;
}

// stringOf is the string member key of obj, "" when there is none.
function stringOf(obj: JSON.Obj | null, key: string): string {
  return obj === null ? "" : stringArg(obj, key);
}

// parse reads the JSON object in the block a host function returned.
function parse(off: u64): JSON.Obj {
  const v = JSON.parse(new Memory(off, length(off)).toString());
  return v.isObj ? <JSON.Obj>v : new JSON.Obj();
}
