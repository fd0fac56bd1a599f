// Ground truth for the host's portable schema rules
// (host/internal/schema/portable.go and pattern.go): compiles schemas with
// the validator the official TypeScript SDK's client compiles every
// outputSchema with (AjvJsonSchemaValidator: ajv, draft-07, strict off), and
// patterns as ajv compiles them (new RegExp(p, "u")), matching each against
// probe strings. Reads on stdin
//
//   {"schemas": {NAME: SCHEMA}, "patterns": [P], "probes": [S]}
//
// and writes {"schemas": {NAME: ERROR}, "shared": ERROR, "patterns":
// [{"error": ERROR, "matches": [BOOL]}]}, ERROR being "" on success.
// "shared" compiles every schema that compiles alone into one validator,
// twice, as one client listing the tools of a server twice does.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { schemas = {}, patterns = [], probes = [] } = JSON.parse(input);

const message = (e) => String(e && e.message ? e.message : e);
const out = { schemas: {}, shared: '', patterns: [] };
if (Object.keys(schemas).length > 0) {
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  console.warn = () => {}; // ajv warns of unknown formats, which it ignores
  for (const [name, schema] of Object.entries(schemas)) {
    try {
      new AjvJsonSchemaValidator().getValidator(structuredClone(schema));
      out.schemas[name] = '';
    } catch (e) {
      out.schemas[name] = message(e) || 'error';
    }
  }
  const shared = new AjvJsonSchemaValidator();
  try {
    for (let round = 0; round < 2; round++) {
      for (const [name, schema] of Object.entries(schemas)) {
        if (out.schemas[name] === '') shared.getValidator(structuredClone(schema));
      }
    }
  } catch (e) {
    out.shared = message(e) || 'error';
  }
}
for (const p of patterns) {
  try {
    const re = new RegExp(p, 'u');
    out.patterns.push({ error: '', matches: probes.map((s) => re.test(s)) });
  } catch (e) {
    out.patterns.push({ error: message(e) || 'error', matches: [] });
  }
}
process.stdout.write(JSON.stringify(out));
