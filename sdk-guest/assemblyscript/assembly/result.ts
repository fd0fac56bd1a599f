import { base64Encode } from "./base64";
import { JSONArray, JSONObject, JSONValue } from "./json";

/** One MCP content block, a JSON object with a "type". Build blocks with
 * the static functions; set optional fields with set. */
export class Content {
  constructor(public readonly json: JSONObject) {}

  static text(text: string): Content {
    return new Content(new JSONObject().setString("type", "text").setString("text", text));
  }
  /** An image from raw bytes (base64 encoded here), e.g. "image/png". */
  static image(data: Uint8Array, mimeType: string): Content {
    return Content.imageBase64(base64Encode(data), mimeType);
  }
  /** An image from data already base64 encoded. */
  static imageBase64(data: string, mimeType: string): Content {
    return Content.media("image", data, mimeType);
  }
  /** Audio from raw bytes (base64 encoded here), e.g. "audio/wav". */
  static audio(data: Uint8Array, mimeType: string): Content {
    return Content.media("audio", base64Encode(data), mimeType);
  }
  static resourceLink(uri: string, name: string): Content {
    return new Content(new JSONObject().setString("type", "resource_link").setString("uri", uri).setString("name", name));
  }
  /** An embedded text resource. mimeType may be "". */
  static embeddedText(uri: string, mimeType: string, text: string): Content {
    const r = new JSONObject().setString("uri", uri);
    if (mimeType.length > 0) r.setString("mimeType", mimeType);
    return new Content(new JSONObject().setString("type", "resource").set("resource", r.setString("text", text)));
  }

  private static media(type: string, data: string, mimeType: string): Content {
    return new Content(new JSONObject().setString("type", type).setString("data", data).setString("mimeType", mimeType));
  }

  /** Sets an optional field (annotations, _meta, title, ...). */
  set(key: string, value: JSONValue): Content {
    this.json.set(key, value);
    return this;
  }

  /** check reports the first way the block breaks the rules of its type,
   * which would make the host discard the instance, or null. */
  check(): string | null {
    const type = this.json.getString("type");
    if (type == "text") return this.json.get("text") !== null && this.json.get("text")!.isString() ? null : "a text block needs a text";
    if (type == "image" || type == "audio") {
      return this.json.getString("data").length > 0 && this.json.getString("mimeType").length > 0
        ? null
        : "an image or audio block needs data and a MIME type";
    }
    if (type == "resource_link") {
      return this.json.getString("uri").length > 0 && this.json.getString("name").length > 0
        ? null
        : "a resource_link block needs a uri and a name";
    }
    if (type == "resource") return this.json.getObject("resource") !== null ? null : "a resource block needs a resource";
    return "content type \"" + type + "\" is not one of text, image, audio, resource_link, resource";
  }
}

/** A tool result: content blocks, optional structured content, and whether
 * it is a tool error. Without content the host mirrors the structured
 * content as a text block. */
export class CallResult {
  content: Content[] = [];
  structuredContent: JSONObject | null = null;
  isError: bool = false;

  /** A result with one text block. */
  static text(text: string): CallResult {
    return new CallResult().add(Content.text(text));
  }
  /** A tool error the model should read: isError and one text block. */
  static error(message: string): CallResult {
    const r = CallResult.text(message);
    r.isError = true;
    return r;
  }
  /** A result whose structured content is value. */
  static structured(value: JSONObject): CallResult {
    const r = new CallResult();
    r.structuredContent = value;
    return r;
  }

  /** Adds a content block. */
  add(block: Content): CallResult {
    this.content.push(block);
    return this;
  }
  addText(text: string): CallResult {
    return this.add(Content.text(text));
  }

  /** The Result document. */
  toJSON(): JSONObject {
    const list = new JSONArray();
    for (let i = 0; i < this.content.length; i++) list.push(this.content[i].json);
    const doc = new JSONObject().set("content", list);
    const sc = this.structuredContent;
    if (sc !== null) doc.set("structuredContent", sc);
    if (this.isError) doc.setBool("isError", true);
    return doc;
  }
}
