// sandboxd's MCP server driven by the official TypeScript SDK client (@modelcontextprotocol/sdk,
// pinned in package.json), over both transports: StreamableHTTPClientTransport to /mcp, and
// StdioClientTransport spawning `sandbox mcp --server URL`. A real sandboxd on loopback, with an
// API key, is started here. docs/mcp.md describes the tools.
//
//   node mcp_sdk_test.mjs --node-modules DIR --sandboxd PATH --sandbox PATH
//        --state-language L --file-language L --version X.Y.Z
//
// --state-language runs code in a context twice (the state must be kept); --file-language reads
// back a file written through write_file; --version is the project's, which initialize must
// report over both transports. Exits 0 when every check passed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    "node-modules": { type: "string" },
    sandboxd: { type: "string" },
    sandbox: { type: "string" },
    "state-language": { type: "string" },
    "file-language": { type: "string" },
    version: { type: "string" },
  },
});
for (const name of ["node-modules", "sandboxd", "sandbox", "state-language", "file-language",
                    "version"]) {
  if (!args[name]) throw new Error(`--${name} is required`);
}

// The SDK is installed in the build tree (npm ci), not beside this script.
const sdk = createRequire(join(args["node-modules"], "package.json"));
const load = async (spec) => import(pathToFileURL(sdk.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await load(
  "@modelcontextprotocol/sdk/client/streamableHttp.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");

// Per language: code that sets state, code whose result shows it (42), code that raises (and
// the error name it reports), code whose result is data/in.txt upper-cased.
const PROGRAMS = {
  lua: {
    set: "x = 41",
    get: "x + 1",
    raise: "error('boom')",
    errorName: "LuaError",
    readFile: "io.open('/workspace/data/in.txt'):read('a'):upper()",
  },
  python: {
    set: "x = 41",
    get: "x + 1",
    raise: "1 / 0",
    errorName: "ZeroDivisionError",
    readFile: "open('/workspace/data/in.txt').read().upper()",
  },
  javascript: {
    set: "globalThis.x = 41",
    get: "x + 1",
    raise: "null.f()",
    errorName: "TypeError",
    readFile: "fs.readFileSync('/workspace/data/in.txt', 'utf8').toUpperCase()",
  },
};
const stateLanguage = PROGRAMS[args["state-language"]];
const fileLanguage = PROGRAMS[args["file-language"]];
assert.ok(stateLanguage && fileLanguage, "languages: one of " + Object.keys(PROGRAMS).join(", "));

const API_KEY = "mcp-test-key";
const TOOLS = ["list_languages", "run_code", "create_context", "list_contexts", "delete_context",
               "read_file", "write_file", "list_files", "delete_file"];

// sandboxd on a free loopback port; resolves to its base URL.
function startSandboxd(dataDir) {
  const child = spawn(args.sandboxd, ["--listen", "127.0.0.1:0", "--data", dataDir,
                                      "--api-key", API_KEY], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on("exit", (code) => reject(new Error(`sandboxd exited (${code}): ${out}`)));
  });
}

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function exercise(client, label, sandboxId) {
  const step = (what) => console.log(`[${label}] ${what}`);
  step("initialize");
  assert.equal(client.getServerVersion().name, "sandboxd");
  assert.equal(client.getServerVersion().version, args.version);
  assert.ok(client.getServerCapabilities().tools, "the server offers tools");

  step("tools/list");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const t of tools) {
    assert.ok(t.description.length > 20, `${t.name} has a description`);
    assert.equal(t.inputSchema.type, "object", `${t.name} has an input schema`);
  }

  step("list_languages");
  const languages = await client.callTool({ name: "list_languages", arguments: {} });
  assert.equal(languages.isError, false);
  const ids = languages.structuredContent.languages.map((l) => l.id);
  for (const l of [args["state-language"], args["file-language"]]) assert.ok(ids.includes(l), l);

  const run = (code, extra) => client.callTool({
    name: "run_code", arguments: { code, sandbox_id: sandboxId, ...extra } });

  step(`run ${args["state-language"]} in a context twice: the state is kept`);
  const created = await client.callTool({
    name: "create_context", arguments: { sandbox_id: sandboxId, language: args["state-language"] } });
  assert.equal(created.isError, false, text(created));
  const contextId = created.structuredContent.id;
  assert.match(contextId, /^[A-Za-z0-9._-]+$/);
  let r = await run(stateLanguage.set, { context_id: contextId });
  assert.equal(r.isError, false, text(r));
  r = await run(stateLanguage.get, { context_id: contextId });
  assert.equal(r.isError, false, text(r));
  assert.equal(r.structuredContent.results[0].text, "42", text(r));
  assert.match(text(r), /result: 42/);
  assert.equal(r.structuredContent.context.id, contextId);

  step("the language's default context keeps state too");
  r = await run(stateLanguage.set, { language: args["state-language"] });
  assert.equal(r.isError, false, text(r));
  r = await run(stateLanguage.get, { language: args["state-language"] });
  assert.equal(r.structuredContent.results[0].text, "42", text(r));
  assert.notEqual(r.structuredContent.context.id, undefined);

  step("list_contexts and delete_context");
  const listed = await client.callTool({ name: "list_contexts", arguments: { sandbox_id: sandboxId } });
  assert.ok(listed.structuredContent.contexts.some((c) => c.id === contextId), text(listed));
  r = await client.callTool({
    name: "delete_context", arguments: { sandbox_id: sandboxId, context_id: contextId } });
  assert.equal(r.isError, false, text(r));
  r = await run(stateLanguage.get, { context_id: contextId });
  assert.equal(r.isError, true);
  assert.match(text(r), /CONTEXT_NOT_FOUND/);

  step(`write a file, read it back from ${args["file-language"]} and with read_file`);
  r = await client.callTool({
    name: "write_file",
    arguments: { sandbox_id: sandboxId, path: "data/in.txt", content: "hello from mcp",
                 make_parents: true } });
  assert.equal(r.isError, false, text(r));
  r = await run(fileLanguage.readFile, { language: args["file-language"] });
  assert.equal(r.isError, false, text(r));
  assert.match(r.structuredContent.results[0].text, /HELLO FROM MCP/);
  r = await client.callTool({
    name: "read_file", arguments: { sandbox_id: sandboxId, path: "/workspace/data/in.txt" } });
  assert.equal(text(r), "hello from mcp");
  r = await client.callTool({
    name: "list_files", arguments: { sandbox_id: sandboxId, path: "data" } });
  assert.deepEqual(r.structuredContent.files.map((f) => f.name), ["in.txt"]);
  r = await client.callTool({
    name: "delete_file", arguments: { sandbox_id: sandboxId, path: "data/in.txt" } });
  assert.equal(r.isError, false, text(r));
  r = await client.callTool({
    name: "read_file", arguments: { sandbox_id: sandboxId, path: "data/in.txt" } });
  assert.equal(r.isError, true);
  assert.match(text(r), /FILE_NOT_FOUND/);

  step("a guest error is a result with isError");
  r = await run(stateLanguage.raise, { language: args["state-language"] });
  assert.equal(r.isError, true);
  assert.match(text(r), new RegExp(`error: ${stateLanguage.errorName}`));
  assert.equal(r.structuredContent.error.name, stateLanguage.errorName);

  step("stateless run_code (no sandbox)");
  r = await client.callTool({
    name: "run_code", arguments: { language: args["state-language"], code: stateLanguage.raise } });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.context, undefined);

  step("bad arguments are protocol errors");
  await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /-32602/);
  await assert.rejects(client.callTool({ name: "run_code", arguments: { language: "lua" } }),
                       /Missing argument 'code'/);
}

const dataDir = mkdtempSync(join(tmpdir(), "mcp-sdk-test-"));
const { child: sandboxd, url } = await startSandboxd(dataDir);
try {
  // Streamable HTTP, to /mcp, with the API key.
  const http = new Client({ name: "mcp-sdk-test", version: "1.0.0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(url + "/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
  await exercise(http, "http", "mcp-http");
  await http.close();

  // stdio, through `sandbox mcp`.
  const stdio = new Client({ name: "mcp-sdk-test", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({
    command: args.sandbox, args: ["--server", url, "--api-key", API_KEY, "mcp"], stderr: "inherit" }));
  await exercise(stdio, "stdio", "mcp-stdio");
  await stdio.close();

  console.log("[http] a bad API key is refused");
  const refused = new Client({ name: "mcp-sdk-test", version: "1.0.0" });
  await assert.rejects(refused.connect(new StreamableHTTPClientTransport(new URL(url + "/mcp"), {
    requestInit: { headers: { authorization: "Bearer wrong" } } })), /401|Unauthorized|API key/i);

  console.log("[stdio] a bad API key is refused");
  const badStdio = new Client({ name: "mcp-sdk-test", version: "1.0.0" });
  await badStdio.connect(new StdioClientTransport({
    command: args.sandbox, args: ["--server", url, "--api-key", "wrong", "mcp"], stderr: "inherit" }));
  const r = await badStdio.callTool({ name: "list_languages", arguments: {} });
  assert.equal(r.isError, true);
  assert.match(text(r), /HTTP 401.*API key/);
  await badStdio.close();
  console.log("all MCP checks passed");
} finally {
  sandboxd.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
}
