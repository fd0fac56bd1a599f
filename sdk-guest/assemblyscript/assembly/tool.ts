import { JSONArray, JSONObject, JSONValue, parseJSON, parseJSONBytes } from "./json";
import { Offers } from "./offers";
import { permissionsJSON } from "./permissions";
import { CallResult } from "./result";

/** A handler receives the arguments (an object the host validated against
 * the input schema) and returns the result. */
export type Handler = (args: JSONObject) => CallResult;

/** The longest tool name, in bytes. */
export const MAX_TOOL_NAME_LEN: i32 = 128;
/** The largest number of tools one module may define. */
export const MAX_TOOLS: i32 = 1024;

const NO_PARAMETERS = '{"type":"object","additionalProperties":false}';

/** A tool definition. Schemas and annotations are JSON text. */
export class Tool {
  title: string | null = null;
  outputSchema: string | null = null;
  annotations: string | null = null;

  /** inputSchema "" means the tool takes no parameters. */
  constructor(
    public name: string,
    public description: string,
    public inputSchema: string,
    public handler: Handler,
  ) {}

  withTitle(title: string): Tool {
    this.title = title;
    return this;
  }
  /** Declares the structured content's JSON Schema: successful results must
   * then carry conforming structured content. */
  withOutputSchema(schema: string): Tool {
    this.outputSchema = schema;
    return this;
  }
  /** Sets MCP tool annotations (readOnlyHint, ...) as a JSON object. */
  withAnnotations(annotations: string): Tool {
    this.annotations = annotations;
    return this;
  }
}

const tools = new Array<Tool>();
const definitions = new Array<JSONValue>();
let refusal: string | null = null;

export function validName(name: string): bool {
  if (name.length < 1 || name.length > MAX_TOOL_NAME_LEN) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c == 0x5f || c == 0x2e || c == 0x2d;
    if (!ok) return false;
  }
  return true;
}

function refuse(name: string, why: string): bool {
  return refuseDefinition('addTool: tool "' + name + '": ' + why);
}

/** refuseDefinition records msg as the reason the module fails to load,
 * unless a definition was refused before, and returns false. */
export function refuseDefinition(msg: string): bool {
  if (refusal === null) refusal = msg;
  return false;
}

/** addTool registers a tool; call it at the top level of the module. It
 * returns false for a definition the host would refuse (bad or duplicate
 * name, schema that is not a JSON object, input schema without
 * "type":"object"); the module then fails to load with that reason. */
export function addTool(tool: Tool): bool {
  if (!validName(tool.name)) return refuse(tool.name, "a name must be 1 to 128 characters of [A-Za-z0-9_.-]");
  for (let i = 0; i < tools.length; i++) {
    if (tools[i].name == tool.name) return refuse(tool.name, "registered twice");
  }
  if (tools.length == MAX_TOOLS) return refuse(tool.name, "a module defines at most 1024 tools");
  const input = parseJSON(tool.inputSchema.length > 0 ? tool.inputSchema : NO_PARAMETERS);
  if (input === null || !input.isObject() || input.asObject()!.getString("type") != "object") {
    return refuse(tool.name, 'input schema: not a JSON object with "type":"object"');
  }
  const def = new JSONObject().setString("name", tool.name);
  const title = tool.title;
  if (title !== null) def.setString("title", title);
  if (tool.description.length > 0) def.setString("description", tool.description);
  def.set("inputSchema", input);
  const output = tool.outputSchema;
  if (output !== null) {
    const v = parseJSON(output);
    if (v === null || !v.isObject()) return refuse(tool.name, "output schema: not a JSON object");
    def.set("outputSchema", v);
  }
  const ann = tool.annotations;
  if (ann !== null) {
    const v = parseJSON(ann);
    if (v === null || !v.isObject()) return refuse(tool.name, "annotations: not a JSON object");
    def.set("annotations", v);
  }
  tools.push(tool);
  definitions.push(def);
  return true;
}

/** describe returns the Describe document, or null after a refused
 * definition (see refused). */
export function describe(): string | null {
  if (refusal !== null) return null;
  const list = new JSONArray();
  list.items = definitions;
  const doc = new JSONObject().set("tools", list);
  const offers = Offers.describe;
  if (offers !== null) offers(doc);
  const permissions = permissionsJSON();
  if (permissions !== null) doc.set("permissions", permissions);
  return doc.toString();
}

/** refused is why a definition was refused, or null. */
export function refused(): string | null {
  return refusal;
}

function errorDoc(msg: string): string {
  return CallResult.error(msg).toJSON().toString();
}

/** callTool runs the named tool on the arguments JSON at args[0:argsLen]
 * and returns the Result document; it always returns one. */
export function callTool(name: string, args: usize, argsLen: usize): string {
  let tool: Tool | null = null;
  for (let i = 0; i < tools.length; i++) {
    if (tools[i].name == name) {
      tool = tools[i];
      break;
    }
  }
  if (tool === null) return errorDoc('unknown tool "' + name + '"');
  const parsed = argsLen == 0 ? new JSONObject() : parseJSONBytes(args, argsLen);
  if (parsed === null || !parsed.isObject()) return errorDoc("invalid arguments for tool " + name + ": not a JSON object");
  const res = tool.handler(parsed.asObject()!);
  for (let i = 0; i < res.content.length; i++) {
    const why = res.content[i].check();
    if (why !== null) return errorDoc("tool " + name + " returned an invalid result: " + why);
  }
  return res.toJSON().toString();
}

/** call is callTool for arguments given as a string, for tests. */
export function call(name: string, args: string): string {
  const buf = String.UTF8.encode(args);
  return callTool(name, changetype<usize>(buf), <usize>buf.byteLength);
}
