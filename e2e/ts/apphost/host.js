// A minimal MCP Apps host, as a web client builds one: the MCP TypeScript
// client connects to the server, the page calls a tool whose _meta names a
// ui:// view, reads the view, and renders it with ext-apps' AppBridge in a
// sandbox proxy on another origin (sandbox.html), under a
// Content-Security-Policy built from the view's _meta.ui.csp. app.test.mjs
// bundles this file with esbuild and drives the page in headless Chromium.
//
// The query string says what to do: server (the /mcp URL), sandbox (the
// proxy's URL), tool and args (JSON). What happened is in window.host, for
// the test to read: ready once the view is initialized and has the tool's
// input and result, error if anything failed, calls (the view's tool calls
// through the bridge) and contexts (its model context updates).
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const info = { name: 'wasmcp-e2e-host', version: '1.0.0' };
const host = { ready: false, error: null, calls: [], contexts: [], logs: [] };
window.host = host;

const q = new URLSearchParams(location.search);
main(q.get('server'), q.get('sandbox'), q.get('tool'), JSON.parse(q.get('args') || '{}')).then(
  () => { host.ready = true; },
  (e) => { host.error = String(e?.stack || e); },
);

async function main(server, sandboxURL, toolName, args) {
  const client = new Client(info, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(server)));
  const caps = client.getServerCapabilities();
  if (!caps?.extensions?.['io.modelcontextprotocol/ui']) {
    throw new Error(`the server does not declare io.modelcontextprotocol/ui: ${JSON.stringify(caps)}`);
  }
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`no tool ${toolName} in ${tools.map((t) => t.name)}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${toolName} names no view: ${JSON.stringify(tool._meta)}`);
  document.getElementById('title').textContent = `${tool.title || tool.name} · ${uri}`;

  // The call and the read start together, as a chat client does when the
  // model calls a tool that has a view.
  const result = client.callTool({ name: toolName, arguments: args });
  const { contents } = await client.readResource({ uri });
  const view = contents.find((c) => c.uri === uri);
  if (view?.mimeType !== RESOURCE_MIME_TYPE || typeof view.text !== 'string') {
    throw new Error(`${uri} is not an HTML view: ${JSON.stringify(view).slice(0, 200)}`);
  }
  const csp = view._meta?.ui?.csp ?? {};

  const frame = document.getElementById('view');
  const proxyReady = new Promise((resolve) => {
    addEventListener('message', function ready(e) {
      if (e.source === frame.contentWindow && e.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        removeEventListener('message', ready);
        resolve();
      }
    });
  });
  const src = new URL(sandboxURL);
  src.searchParams.set('host', location.origin);
  src.searchParams.set('csp', JSON.stringify(csp));
  frame.src = src.href;
  await proxyReady;

  const bridge = new AppBridge(client, info, {
    serverTools: {},
    logging: {},
    updateModelContext: { text: {}, structuredContent: {} },
    sandbox: { csp },
  }, {
    hostContext: { theme: 'light', platform: 'web', displayMode: 'inline', toolInfo: { tool } },
  });
  bridge.onupdatemodelcontext = async (params) => {
    host.contexts.push(params);
    return {};
  };
  bridge.onloggingmessage = (params) => host.logs.push(params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  // The view may call the server's tools that are not for the model only.
  // Set after connect, which installs a handler forwarding every call, and
  // before the view exists to call anything.
  bridge.oncalltool = async (params) => {
    host.calls.push(params);
    const target = tools.find((t) => t.name === params.name);
    const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!visibility.includes('app')) throw new Error(`tool ${params.name} is not available to views`);
    return client.callTool(params);
  };
  await bridge.sendSandboxResourceReady({ html: view.text, sandbox: 'allow-scripts allow-same-origin', csp });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await result);
}
