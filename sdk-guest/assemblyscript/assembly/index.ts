// The AssemblyScript SDK for writing wasmcp tools.
//
// A module registers its tools at the top level and re-exports the ABI:
//
//   import { addTool, CallResult, JSONObject, Tool } from "<sdk>/assembly";
//   export * from "<sdk>/assembly/abi";
//
//   function echo(args: JSONObject): CallResult {
//     return CallResult.text("Echo: " + args.getString("message"));
//   }
//
//   addTool(new Tool("echo", "Echoes back the input message.",
//     '{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}', echo));
//
// A module that needs more than the closed sandbox asks for it, for
// example for the origins it reaches with http:
//
//   requestPermissions(new Permissions().withNet(["https://api.example.com"]));
//
//   const res = http(new HttpRequest("https://api.example.com/items"));
//   const err = res.error; // denied, invalid, failed or timed out
//   if (err !== null) return CallResult.error(err.message);
//   return CallResult.text(res.text());
//
// Resources, resource templates and prompts are registered the same way
// (addResource, addResourceTemplate, addPrompt; see README.md).
//
// Build with the asconfig.json of this directory (see examples/assemblyscript).

export { base64Encode } from "./base64";
export { HttpError, HttpHeader, HttpRequest, HttpResponse, ReplyStatus, http } from "./http";
export {
  JSONArray,
  JSONBool,
  JSONKind,
  JSONNumber,
  JSONObject,
  JSONString,
  JSONValue,
  formatNumber,
  parseJSON,
  quote,
} from "./json";
export { LogLevel, debug, error, info, log, warn } from "./log";
export { ErrorCode } from "./offers";
export { FSPermission, Permissions, requestPermissions } from "./permissions";
export {
  CompleteHandler,
  Completion,
  CompletionRequest,
  MAX_COMPLETION_VALUES,
  MAX_PROMPTS,
  MAX_PROMPT_ARGUMENTS,
  Prompt,
  PromptArgument,
  PromptHandler,
  PromptMessage,
  PromptResult,
  Role,
  addPrompt,
  complete,
  getPrompt,
} from "./prompt";
export {
  MAX_RESOURCES,
  MAX_RESOURCE_TEMPLATES,
  MAX_URI_LEN,
  ReadHandler,
  ReadResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  addResource,
  addResourceTemplate,
  read,
} from "./resource";
export { CallResult, Content } from "./result";
export { Handler, MAX_TOOLS, MAX_TOOL_NAME_LEN, Tool, addTool, call } from "./tool";
