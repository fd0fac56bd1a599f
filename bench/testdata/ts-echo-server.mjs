// The TypeScript baseline of the bench's HTTP experiment: a Streamable HTTP
// MCP server with one tool, echo, on the official TypeScript SDK, stateful
// (one session per client, as wasmcp serves 2025-11-25 clients), built the
// way the SDK's own examples build it. The low-level Server with a raw JSON
// schema is the counterpart of go-sdk's AddTool in the bench's Go baseline.
//
// Environment: WASMCP_BENCH_TS_SDK is the directory of the installed
// @modelcontextprotocol/sdk package (the bench downloads nothing), and
// WASMCP_BENCH_HTTP the HOST:PORT to listen on. It serves /mcp until SIGTERM.
import { randomUUID } from "node:crypto";
import http from "node:http";

const sdk = process.env.WASMCP_BENCH_TS_SDK;
const [host, port] = process.env.WASMCP_BENCH_HTTP.split(":");
const { Server } = await import(`${sdk}/dist/esm/server/index.js`);
const { StreamableHTTPServerTransport } = await import(`${sdk}/dist/esm/server/streamableHttp.js`);
const { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } = await import(`${sdk}/dist/esm/types.js`);

const echoTool = {
  name: "echo",
  description: "Echoes back the input message.",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string", description: "Message to echo." } },
    required: ["message"],
  },
};

function newServer() {
  const server = new Server({ name: "ts-echo", version: "0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echoTool] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => ({
    content: [{ type: "text", text: "Echo: " + (req.params.arguments?.message ?? "") }],
    structuredContent: {},
  }));
  return server;
}

const transports = new Map(); // session id -> transport

async function readJSON(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readJSON(req) : undefined;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    console.error(err);
    if (!res.headersSent) res.writeHead(500).end();
  }
});

httpServer.listen(Number(port), host, () => console.error(`ts-echo listening on http://${host}:${port}/mcp`));
process.on("SIGTERM", () => {
  httpServer.closeAllConnections();
  httpServer.close(() => process.exit(0));
});
