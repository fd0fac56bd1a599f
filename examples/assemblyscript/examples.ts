// The wasmcp example tools in AssemblyScript, the same set as
// examples/go/everything (which mirrors the MCP "everything" server):
//
//   echo                    {"message":"hi"}        -> "Echo: hi"
//   get-sum                 {"a":7,"b":5}           -> "The sum of 7 and 5 is 12."
//   get-structured-content  {"location":"Chicago"}  -> structured weather, with an output schema
//   get-tiny-image          {}                      -> text, a 16x16 PNG, text
//   get-resource-links      {"count":2}             -> text and resource links
//   get-error               {"message":"why"}       -> isError: true
//
// Build (from the repository root; `make plugins` does it):
//
//   sdk-guest/assemblyscript/node_modules/.bin/asc examples/assemblyscript/examples.ts \
//       --config sdk-guest/assemblyscript/asconfig.json -o examples-as.wasm

import {
  CallResult,
  Content,
  JSONObject,
  JSONValue,
  LogLevel,
  Tool,
  addTool,
  debug,
  formatNumber,
  log,
} from "../../sdk-guest/assemblyscript/assembly";
export * from "../../sdk-guest/assemblyscript/assembly/abi";

// Every tool only reads its arguments.
const HINTS = '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}';

function echo(args: JSONObject): CallResult {
  const message = args.getString("message");
  debug("echo: " + message);
  return CallResult.text("Echo: " + message);
}

function getSum(args: JSONObject): CallResult {
  const a = args.getNumber("a");
  const b = args.getNumber("b");
  const sum = a + b;
  if (!isFinite(sum)) return CallResult.error("The sum is out of the range of a 64-bit float.");
  return CallResult.text("The sum of " + formatNumber(a) + " and " + formatNumber(b) + " is " + formatNumber(sum) + ".");
}

// Fixed, made-up values, so that results are deterministic.
function weather(temperature: f64, conditions: string, humidity: f64): JSONObject {
  return new JSONObject().setNumber("temperature", temperature).setString("conditions", conditions).setNumber("humidity", humidity);
}

function getStructuredContent(args: JSONObject): CallResult {
  const location = args.getString("location");
  if (location == "New York") return CallResult.structured(weather(22.5, "Partly cloudy", 65));
  if (location == "Chicago") return CallResult.structured(weather(18, "Windy", 55));
  if (location == "Los Angeles") return CallResult.structured(weather(28.3, "Sunny", 40));
  // Not reached: the host validates location against the enum.
  return CallResult.error('no weather for "' + location + '"; choose New York, Chicago or Los Angeles');
}

// A 16x16 RGB PNG (322 bytes): a colour gradient crossed by two dark
// diagonals, the same image as the Go example's.
const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABCUlEQVR42oySIY+DQBCFJxRNQrLVuM1JHBpXjcO9BMdfWM1fwDUZh6vGoXHodaupwm9y" +
  "6YX2YLt3dIJhZ77deTMvFOLL3jkm+uSTAuHdshAgy3QU8oTZckgxWeJlQRz9x2QL9E/BAyCiKGZjECd+5mIwPlPBq8Ek5cngvfHSoE/59Rtsc2nOw7Rj" +
  "6gldztuTwLkvL/g2rIwa0BbsFKwatlFUfL2CiJrKI8kD/IYv5QFuClXzWKVSaBv3EVfDoFC0a99Ny7Vy57YDphp5t1PZdlzW8AOmRNrz+x66ni8l3Ckt" +
  "GZLxT2v0I2cZ9Pi0xkki0gfmGzVLiVlzKCTsfGxVItIzn8/4DgAA///FsmU2KdbO8QAAAABJRU5ErkJggg==";

function getTinyImage(args: JSONObject): CallResult {
  return CallResult.text("This is a tiny image:")
    .add(Content.imageBase64(TINY_PNG, "image/png"))
    .addText("The image above is a 16x16 PNG.");
}

function getResourceLinks(args: JSONObject): CallResult {
  const n = <i32>args.getNumber("count", 3); // 1 to 10, by the schema
  const res = CallResult.text("Here are " + n.toString() + " resource links:");
  for (let i = 1; i <= n; i++) {
    res.add(
      Content.resourceLink("test://static/resource/" + i.toString(), "Resource " + i.toString())
        .set("description", JSONValue.string("Example resource number " + i.toString()))
        .set("mimeType", JSONValue.string("text/plain")),
    );
  }
  return res;
}

function getError(args: JSONObject): CallResult {
  let message = args.getString("message");
  if (message.length == 0) message = "this tool always fails";
  log(LogLevel.Error, "get-error: " + message);
  return CallResult.error("get-error: " + message);
}

addTool(
  new Tool(
    "echo",
    "Echoes back the input message.",
    '{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},' +
      '"required":["message"],"additionalProperties":false}',
    echo,
  ).withAnnotations(HINTS),
);
addTool(
  new Tool(
    "get-sum",
    "Returns the sum of two numbers.",
    '{"type":"object","properties":{"a":{"type":"number","description":"First number."},' +
      '"b":{"type":"number","description":"Second number."}},"required":["a","b"],"additionalProperties":false}',
    getSum,
  )
    .withTitle("Sum")
    .withAnnotations(HINTS),
);
addTool(
  new Tool(
    "get-structured-content",
    "Returns the current weather for a city as structured content (made-up, fixed values).",
    '{"type":"object","properties":{"location":{"type":"string","description":"City name.",' +
      '"enum":["New York","Chicago","Los Angeles"]}},"required":["location"],"additionalProperties":false}',
    getStructuredContent,
  )
    .withOutputSchema(
      '{"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in degrees Celsius."},' +
        '"conditions":{"type":"string","description":"Weather conditions."},' +
        '"humidity":{"type":"number","description":"Relative humidity in percent.","minimum":0,"maximum":100}},' +
        '"required":["temperature","conditions","humidity"],"additionalProperties":false}',
    )
    .withAnnotations(HINTS),
);
addTool(new Tool("get-tiny-image", "Returns a tiny PNG image between two text blocks.", "", getTinyImage).withAnnotations(HINTS));
addTool(
  new Tool(
    "get-resource-links",
    "Returns links to example resources.",
    '{"type":"object","properties":{"count":{"type":"integer","description":"Number of links to return.",' +
      '"default":3,"minimum":1,"maximum":10}},"additionalProperties":false}',
    getResourceLinks,
  ).withAnnotations(HINTS),
);
addTool(
  new Tool(
    "get-error",
    "Always fails with a tool error (isError: true), to test error handling.",
    '{"type":"object","properties":{"message":{"type":"string","description":"Error message to return."}},' +
      '"additionalProperties":false}',
    getError,
  ).withAnnotations(HINTS),
);
