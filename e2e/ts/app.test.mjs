// The jq plugin's MCP App (ui://jq/playground) rendered as a web client
// renders it: a host page (apphost/host.js: ext-apps' AppBridge and the MCP
// TypeScript client) in headless Chromium against `wasmcp serve --http`.
// The view loads in its sandbox, the test types filters, the view runs them
// through the jq tool by way of the host, and the test reads what it shows
// and saves a screenshot, build/test-output/jq-playground.png
// (WASMCP_TEST_OUT moves the directory; make screenshot also copies it to
// docs/jq-playground.png for the README).
//
// It needs Debian's chromium (make deps installs it) and playwright-core
// (npm ci); without them the test skips, except under CI=true, where it
// fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { plugins, startClient, timeout, workDir } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.env.WASMCP_TEST_OUT || join(here, '..', '..', 'build', 'test-output');
// Every wait in the browser has this bound; the test's own is larger.
const waitMs = 30_000;

// chromiumPath is Debian's chromium, or '' when it is not installed.
function chromiumPath() {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    } catch { /* try the next name */ }
  }
  return '';
}

async function loadPlaywright() {
  try {
    return (await import('playwright-core')).chromium;
  } catch {
    return null;
  }
}

const chromiumBin = chromiumPath();
const playwright = await loadPlaywright();
const why = !chromiumBin ? 'chromium is not installed (make deps installs it: apt-get install chromium)'
  : !playwright ? 'playwright-core is not installed (make deps runs npm ci in e2e/ts)' : '';
const skip = why && process.env.CI !== 'true' ? why : false;

// cspHeader is the Content-Security-Policy a host serves a view with: the
// view's inline code and nothing else, plus the origins its _meta.ui.csp
// declares (which wasmcp has already capped to the plugin's net grants).
// An entry that could break out of its directive is dropped.
function cspHeader(csp = {}) {
  const list = (v) => (Array.isArray(v) ? v : []).filter((d) => typeof d === 'string' && /^[^\s;,'"]+$/.test(d));
  const res = list(csp.resourceDomains).join(' ');
  const or = (v, none) => list(v).join(' ') || none;
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`.trim(),
    `style-src 'unsafe-inline' ${res}`.trim(),
    `img-src data: ${res}`.trim(),
    `font-src data: ${res}`.trim(),
    `media-src data: ${res}`.trim(),
    `connect-src ${or(csp.connectDomains, "'none'")}`,
    `frame-src ${or(csp.frameDomains, "'none'")}`,
    `base-uri ${or(csp.baseUriDomains, "'none'")}`,
    "object-src 'none'",
  ].join('; ');
}

// serve starts a loopback HTTP server answering GET path with what
// routes[path](url) returns: [content type, body, extra headers].
async function serve(routes) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const route = routes[url.pathname];
    if (req.method !== 'GET' || !route) {
      res.writeHead(404).end();
      return;
    }
    const [type, body, headers = {}] = route(url);
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

let work;
let hostSite; // the host page's origin
let sandboxSite; // the sandbox proxy's: another origin, as the spec asks
let wasmcp; // { client, url, stderr, close }
let browser;

before(async () => {
  if (skip) return;
  if (why) assert.fail(why);
  work = workDir('wasmcp-e2e-app-');
  const { build } = await import('esbuild');
  const bundle = await build({
    entryPoints: [join(here, 'apphost', 'host.js')],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'warning',
  });
  const hostJS = bundle.outputFiles[0].text;
  const hostHTML = readFileSync(join(here, 'apphost', 'host.html'));
  const sandboxHTML = readFileSync(join(here, 'apphost', 'sandbox.html'));
  hostSite = await serve({
    '/host.html': () => ['text/html; charset=utf-8', hostHTML],
    '/host.js': () => ['text/javascript; charset=utf-8', hostJS],
  });
  sandboxSite = await serve({
    '/sandbox.html': (url) => ['text/html; charset=utf-8', sandboxHTML,
      { 'content-security-policy': cspHeader(JSON.parse(url.searchParams.get('csp') || '{}')) }],
  });

  // The jq plugin alone: the browser page is its only other client.
  const served = join(work, 'served');
  mkdirSync(served);
  copyFileSync(join(plugins, 'jq.wasm'), join(served, 'jq.wasm'));
  wasmcp = await startClient({
    transport: 'http', dir: served, cacheDir: join(work, 'cache'), args: ['--allow-origin', hostSite.origin],
  });

  // Chromium's own sandbox cannot start as root, which is how CI runs:
  // --no-sandbox turns it off. The view is still confined by the page's
  // iframe sandbox, its other origin and its Content-Security-Policy.
  browser = await playwright.launch({ executablePath: chromiumBin, args: ['--no-sandbox'], timeout: waitMs });
});

after(async () => {
  await browser?.close();
  await wasmcp?.close();
  await hostSite?.close();
  await sandboxSite?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// viewFrame returns the frame the view runs in: the sandbox proxy's frame
// inside the host page's.
async function viewFrame(page) {
  const proxy = await (await page.waitForSelector('#view', { timeout: waitMs })).contentFrame();
  const inner = await proxy.waitForSelector('iframe', { state: 'attached', timeout: waitMs });
  const frame = await inner.contentFrame();
  await frame.waitForSelector('#filter', { timeout: waitMs });
  return frame;
}

// shown waits until the view has an answer for filter (its state ok or
// error) and returns the state and text it shows.
async function shown(host, frame, filter) {
  await frame.waitForFunction(
    (f) => {
      const out = document.getElementById('output');
      return document.getElementById('filter').value === f && ['ok', 'error'].includes(out.dataset.state);
    },
    filter, { timeout: waitMs, polling: 50 },
  );
  // The last call the view made through the host is for this filter.
  const calls = await host.evaluate(() => window.host.calls);
  assert.equal(calls.at(-1)?.name, 'jq');
  assert.equal(calls.at(-1)?.arguments.filter, filter);
  return frame.$eval('#output', (o) => ({ state: o.dataset.state, text: o.textContent, role: o.getAttribute('role') }));
}

async function typeFilter(frame, filter) {
  await frame.fill('#filter', '');
  await frame.locator('#filter').pressSequentially(filter, { delay: 10, timeout: waitMs });
}

test('the jq playground runs in a browser host and calls jq through it', { timeout: 4 * timeout, skip }, async () => {
  const page = await browser.newPage({ viewport: { width: 900, height: 520 }, deviceScaleFactor: 2 });
  const logs = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  try {
    const input = '{"items": [\n  {"name": "tea", "price": 4},\n  {"name": "teapot", "price": 32},\n'
      + '  {"name": "kettle", "price": 45.5}\n]}';
    const args = { filter: '[.items[] | select(.price > 10) | .name]', input_text: input };
    const q = new URLSearchParams({
      server: wasmcp.url, sandbox: `${sandboxSite.origin}/sandbox.html`, tool: 'jq_playground', args: JSON.stringify(args),
    });
    await page.goto(`${hostSite.origin}/host.html?${q}`, { timeout: waitMs });
    await page.waitForFunction(() => window.host?.ready || window.host?.error, null, { timeout: waitMs });
    const hostError = await page.evaluate(() => window.host.error);
    assert.equal(hostError, null, hostError);
    const frame = await viewFrame(page);

    // The view opens with the model's arguments and their result.
    let out = await shown(page, frame, args.filter);
    assert.equal(out.state, 'ok', out.text);
    assert.deepEqual(JSON.parse(out.text), ['teapot', 'kettle']);

    // What the user types runs live.
    await typeFilter(frame, '[.items[].price] | add');
    out = await shown(page, frame, '[.items[].price] | add');
    assert.equal(out.state, 'ok', out.text);
    assert.equal(out.text, '81.5');

    // A broken filter is an error the view shows as one.
    await typeFilter(frame, '.items[');
    out = await shown(page, frame, '.items[');
    assert.equal(out.state, 'error');
    assert.equal(out.role, 'alert');
    assert.match(out.text, /syntax error/);

    // The view reaches nothing but its host: it declares no domains, so it
    // runs under connect-src 'none', and the MCP server it came from is as
    // closed to it as any other.
    const blocked = await frame.evaluate((url) => new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true });
      fetch(url, { method: 'POST' }).then(() => resolve('fetched'), () => {});
    }), wasmcp.url);
    assert.equal(blocked, 'connect-src');

    // The view told the host the filter that worked, for the model.
    const contexts = await page.evaluate(() => window.host.contexts);
    assert.deepEqual(contexts.at(-1)?.structuredContent?.jq_playground?.filter, '[.items[].price] | add');

    // The picture for the README: a filter that shows off a little.
    const pretty = '.items | map(select(.price > 10) | {name, eur: .price})';
    await typeFilter(frame, pretty);
    out = await shown(page, frame, pretty);
    assert.equal(out.state, 'ok', out.text);
    assert.deepEqual(JSON.parse(out.text), [{ name: 'teapot', eur: 32 }, { name: 'kettle', eur: 45.5 }]);
    mkdirSync(outDir, { recursive: true });
    const shot = join(outDir, 'jq-playground.png');
    await page.locator('.card').screenshot({ path: shot, timeout: waitMs });
    if (process.env.WASMCP_SCREENSHOT) copyFileSync(shot, process.env.WASMCP_SCREENSHOT);
    process.stdout.write(`# screenshot: ${shot}\n`);
  } catch (e) {
    e.message += `\nbrowser console:\n${logs.join('\n')}\nserver log:\n${wasmcp.stderr()}`;
    throw e;
  } finally {
    await page.close();
  }
});
