// What a module offers beside its tools (resources, templates, prompts),
// reached by the exports wasmcp_read, wasmcp_prompt and wasmcp_complete and
// by the Describe document only through the hooks of Offers, which the first
// addResource, addResourceTemplate or addPrompt sets: a module of tools
// alone compiles none of that code.

import { JSONObject, JSONValue, quote } from "./json";
import { Prompt, completeAt, describePrompts, getPromptAt } from "./prompt";
import { Resource, ResourceTemplate, describeResources, read } from "./resource";

/** The exports of resources and prompts, as Offers.serve numbers them. */
export const enum Export {
  Read = 0,
  Prompt = 1,
  Complete = 2,
}

/** JSON-RPC error codes a read, prompt or completion may fail with; the
 * host sends any other as Internal. */
export enum ErrorCode {
  NotFound = -32002,
  InvalidParams = -32602,
  Internal = -32603,
}

/** The definitions, made by enableOffers: a module of tools alone makes
 * none of it. */
export class Definitions {
  resources: Resource[] = [];
  resourceDefs: JSONValue[] = [];
  templates: ResourceTemplate[] = [];
  templateDefs: JSONValue[] = [];
  prompts: Prompt[] = [];
  promptDefs: JSONValue[] = [];
}

let definitions: Definitions | null = null;

/** defined returns the definitions. */
export function defined(): Definitions {
  enableOffers();
  return definitions!;
}

export class Offers {
  /** Answers an export: ok says whether its inputs lie where the host puts
   * them (one input is the name, args empty). */
  static serve: ((which: Export, ok: bool, name: usize, nameLen: usize, args: usize, argsLen: usize) => string) | null =
    null;
  /** Adds the Describe members of the definitions. */
  static describe: ((doc: JSONObject) => void) | null = null;
}

/** enableOffers sets the hooks of Offers. */
export function enableOffers(): void {
  if (definitions === null) definitions = new Definitions();
  Offers.serve = serve;
  Offers.describe = describe;
}

function describe(doc: JSONObject): void {
  describeResources(doc);
  describePrompts(doc);
}

function serve(which: Export, ok: bool, name: usize, nameLen: usize, args: usize, argsLen: usize): string {
  if (!ok) {
    const e = which == Export.Read ? "wasmcp_read" : which == Export.Prompt ? "wasmcp_prompt" : "wasmcp_complete";
    return errorDoc(ErrorCode.Internal, e + ": the input is not in the region returned by wasmcp_alloc");
  }
  if (which == Export.Read) return read(String.UTF8.decodeUnsafe(name, nameLen));
  if (which == Export.Prompt) return getPromptAt(String.UTF8.decodeUnsafe(name, nameLen), args, argsLen);
  return completeAt(name, nameLen);
}

/** errorDoc is the document of a refused read, prompt or completion. */
export function errorDoc(code: i32, message: string): string {
  return '{"error":{"code":' + code.toString() + ',"message":' + quote(message) + "}}";
}
