// The SPAN server through the TypeScript MCP SDK (a client nobody here wrote), over stdio.
//
//   node tests/tsdk_check.cjs PREFIX -- python -m span_toolkit.server
//
// PREFIX is a directory where `npm install @modelcontextprotocol/sdk` was run (the package is loaded from
// PREFIX/node_modules). Prints one JSON object: for each tool call whether the SDK's own Client accepted
// the result (it validates structuredContent against the outputSchema with Ajv), and whether every input
// and output schema compiles under Ajv's *strict* mode, and which calendar spellings the published input
// schema accepts (ECMA-262 regular expressions, as a browser or Node host would check them).
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

const [prefix, sep, command, ...args] = process.argv.slice(2);
if (!prefix || sep !== "--" || !command) {
  console.error("usage: node tsdk_check.cjs PREFIX -- COMMAND [ARGS...]");
  process.exit(2);
}
const req = createRequire(path.join(path.resolve(prefix), "node_modules", "noop.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
const AjvMod = req("ajv");
const Ajv = AjvMod.default || AjvMod;

const D = { calendar: "gregorian", year: 2025, month: 7, day: 1 };
const CALLS = [
  ["search_calendar", D],
  ["search_calendar", { calendar: "lunar", year: 2023, month: 2, day: 15, is_lunar_leap_month: true }],
  ["search_calendar", { calendar: "Chinese Lunar", year: 2025, festival_name: "Chinese New Year" }],
  ["date_arithmetic", { calendar: "hebrew", year: 5784, month: 13, day: 29, years: 1 }],
  ["date_arithmetic", { calendar: "jalali", year: 1404, month: 1, day: 1, days: -10 }],
  ["date_difference", { start: D, end: { calendar: "hijri", year: 1447, month: 1, day: 1 } }],
  ["list_calendars", {}],
];
const BAD_SPELLINGS = ["lunar2", "", "  ", "lunar\n", "ｌｕｎａｒ"];

async function main() {
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const client = new Client({ name: "span-tsdk-check", version: "0" });
  await client.connect(transport);
  const pkg = path.join(path.resolve(prefix), "node_modules", "@modelcontextprotocol", "sdk", "package.json");
  const out = { sdk: JSON.parse(require("node:fs").readFileSync(pkg, "utf8")).version, calls: [], strict: {},
                spellings: {} };
  try {
    const { tools } = await client.listTools();
    const strict = new Ajv({ strict: true, allErrors: true });
    for (const t of tools) {
      for (const [kind, schema] of [["input", t.inputSchema], ["output", t.outputSchema]]) {
        try {
          strict.compile(schema);
          out.strict[`${t.name}.${kind}`] = "ok";
        } catch (e) {
          out.strict[`${t.name}.${kind}`] = String(e.message || e);
        }
      }
    }
    for (const [name, a] of CALLS) {
      try {
        const r = await client.callTool({ name, arguments: a });
        out.calls.push({ name, ok: !r.isError && !!r.structuredContent, validated: true,
                         text_chars: (r.content || []).map((c) => (c.text || "").length).reduce((x, y) => x + y, 0) });
      } catch (e) {
        out.calls.push({ name, ok: false, validated: false, error: String(e.message || e).slice(0, 300) });
      }
    }
    const cat = await client.callTool({ name: "list_calendars", arguments: {} });
    const search = tools.find((t) => t.name === "search_calendar").inputSchema;
    const check = new Ajv({ strict: false }).compile(search);
    const spellings = [];
    for (const c of cat.structuredContent.calendars) {
      for (const s of [c.name, ...c.aliases]) spellings.push(s, s.toUpperCase(), ` ${s} `);
    }
    for (const s of [...spellings, ...BAD_SPELLINGS]) {
      out.spellings[s] = check({ calendar: s, year: 2025, month: 1, day: 1 });
    }
    out.bad_spellings = BAD_SPELLINGS;
  } finally {
    await client.close();
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(String(e && e.stack || e));
  process.exit(1);
});
