// The jq playground: the view (ui://jq/playground) of the jq plugin's
// jq_playground tool. It runs the filter on the input through the server's
// jq tool, by way of the host (App.callServerTool), as the user types. The
// view reaches nothing else: it declares no domains, so a host serves it
// with connect-src 'none'.
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';

const filter = document.getElementById('filter');
const input = document.getElementById('input');
const slurp = document.getElementById('slurp');
const output = document.getElementById('output');
const status = document.getElementById('status');

// Enough to let a typist finish a word, short enough to feel live.
const debounceMs = 250;

const app = new App({ name: 'jq playground', version: '1.0.0' }, {});

// The host gives the arguments the model called jq_playground with: they
// fill the playground, and the first run starts.
app.ontoolinput = ({ arguments: args = {} }) => {
  if (typeof args.filter === 'string') filter.value = args.filter;
  if (typeof args.input_text === 'string') input.value = args.input_text;
  if (typeof args.slurp === 'boolean') slurp.checked = args.slurp;
  run();
};

app.onhostcontextchanged = applyContext;

function applyContext(ctx) {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

function show(state, text, note = '') {
  output.dataset.state = state;
  output.textContent = text;
  output.setAttribute('role', state === 'error' ? 'alert' : 'status');
  status.textContent = note;
}

// runs counts the runs started, so that a slow answer to an older filter
// never replaces the answer to a newer one.
let runs = 0;

async function run() {
  const n = ++runs;
  const args = { filter: filter.value };
  if (!args.filter.trim()) {
    show('idle', 'Type a jq filter above, such as .items[] | .name', '');
    return;
  }
  // A blank input is jq's null input (jq -n), not zero inputs.
  if (input.value.trim()) args.input_text = input.value;
  if (slurp.checked) args.slurp = true;
  output.dataset.state = 'running';
  status.textContent = 'running…';
  let res;
  try {
    res = await app.callServerTool({ name: 'jq', arguments: args });
  } catch (e) {
    if (n === runs) show('error', `The host could not call the jq tool: ${e.message}`, 'error');
    return;
  }
  if (n !== runs) return;
  if (res.isError) {
    show('error', textOf(res) || 'jq failed without a message', 'error');
    return;
  }
  const { results = [], truncated = false } = res.structuredContent ?? {};
  const text = results.map((v) => JSON.stringify(v, null, 2)).join('\n');
  const count = `${results.length} result${results.length === 1 ? '' : 's'}`;
  show('ok', text, truncated ? `${count} (truncated)` : count);
  shareWithModel(args);
}

function textOf(res) {
  return (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// The model sees the filter the user settled on at their next message, if
// the host takes context from views.
function shareWithModel(args) {
  if (!app.getHostCapabilities()?.updateModelContext) return;
  app.updateModelContext({ structuredContent: { jq_playground: args } }).catch(() => {});
}

let timer;
function schedule() {
  clearTimeout(timer);
  output.dataset.state = 'pending';
  timer = setTimeout(run, debounceMs);
}

filter.addEventListener('input', schedule);
input.addEventListener('input', schedule);
slurp.addEventListener('change', run);
filter.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    clearTimeout(timer);
    run();
  }
});

await app.connect();
applyContext(app.getHostContext());
run();
