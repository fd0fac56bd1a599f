// A hyper-mcp v1 plugin written with the Extism AssemblyScript PDK, the way
// Extism's documentation and hyper-mcp's plugin guide describe one: it
// exports describe (the tool list) and call ({"params":{"name","arguments"}}
// -> a CallToolResult), and knows nothing of wasmcp. Its tools exercise each
// host function a plugin of that kind uses.
import { Config, Host, LogLevel, Memory, Var } from "@extism/as-pdk";
import { length } from "@extism/as-pdk/lib/env";
import { JSON } from "assemblyscript-json/assembly";

import { fail, outputString, quote, stringArg, text } from "./common";

// The PDK wraps neither these host functions nor the trace level.
@external("extism:host/env", "log_trace")
declare function log_trace(offset: u64): void;
@external("extism:host/env", "http_request")
declare function http_request(req: u64, body: u64): u64;
@external("extism:host/env", "http_status_code")
declare function http_status_code(): i32;

const TOOLS = `{"tools":[
{"name":"as_echo","description":"Returns its text argument unchanged.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
{"name":"as_greeting","description":"Returns the plugin's configured greeting (config key greeting).","inputSchema":{"type":"object"}},
{"name":"as_counter","description":"Increments a counter kept in a plugin variable and returns it.","inputSchema":{"type":"object"}},
{"name":"as_fail","description":"Fails with the given message, through error_set.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}},
{"name":"as_logs","description":"Logs one line at each level (trace, debug, info, warn, error).","inputSchema":{"type":"object"}},
{"name":"as_fetch","description":"GETs a URL; returns the status on the first line, then the body.","inputSchema":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}},
{"name":"as_spin","description":"Loops forever; for deadline tests.","inputSchema":{"type":"object"}}
]}`;

export function describe(): i32 {
  outputString(TOOLS);
  return 0;
}

export function call(): i32 {
  const input = JSON.parse(Host.inputString());
  if (!input.isObj) return fail("call: input is not a JSON object");
  const params = (<JSON.Obj>input).getObj("params");
  if (params === null) return fail("call: input has no params");
  const name = params.getString("name");
  if (name === null) return fail("call: params has no name");
  let args = params.getObj("arguments");
  if (args === null) args = new JSON.Obj();

  const tool = name.valueOf();
  if (tool == "as_echo") return text(stringArg(args, "text"));
  if (tool == "as_greeting") {
    const greeting = Config.get("greeting");
    return text(greeting === null ? "(no greeting configured)" : greeting);
  }
  if (tool == "as_counter") return counter();
  if (tool == "as_fail") return fail(stringArg(args, "message"));
  if (tool == "as_logs") return logs();
  if (tool == "as_fetch") return fetch(stringArg(args, "url"));
  if (tool == "as_spin") return spin();
  return fail("unknown tool " + tool);
}

function counter(): i32 {
  const prev = Var.getString("counter");
  const next = (prev === null ? 0 : I32.parseInt(prev)) + 1;
  Var.set("counter", Uint8Array.wrap(String.UTF8.encode(next.toString())));
  return text(next.toString());
}

function logs(): i32 {
  log_trace(Memory.allocateString("as_logs trace").offset);
  Host.log(LogLevel.Debug, "as_logs debug");
  Host.log(LogLevel.Info, "as_logs info");
  Host.log(LogLevel.Warn, "as_logs warn");
  Host.log(LogLevel.Error, "as_logs error");
  return text("logged at trace, debug, info, warn and error");
}

function fetch(url: string): i32 {
  const req = Memory.allocateString(`{"method":"GET","url":${quote(url)},"headers":{}}`);
  const res = http_request(req.offset, 0);
  const status = http_status_code();
  const body = res == 0 ? "" : new Memory(res, length(res)).toString();
  return text(status.toString() + "\n" + body);
}

// spins is written by the looping tool, so that its loop is not removed.
let spins: u64 = 0;

// A loop with no host call in it: only a deadline the host enforces on
// guest code itself stops it.
function spin(): i32 {
  while (true) spins++;
  return 0;
}
