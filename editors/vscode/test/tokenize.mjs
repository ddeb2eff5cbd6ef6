// editors/vscode/test/tokenize.mjs: the TextMate grammar, tokenized the way
// VS Code does it (vscode-textmate on the Oniguruma WebAssembly build).
//   1. crisp cases: keywords, numbers with units, strings, declared names,
//      operators and comments get the scopes themes colour;
//   2. every .sketch file under the folders given on the command line
//      (default: the repository's stdlib-sketches) is tokenized, and no
//      token outside whitespace may be left with only the root scope.
// Exit status 0 when all hold; otherwise each failure is printed.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const wasm = fs.readFileSync(
  path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
await oniguruma.loadWASM(wasm.buffer);
const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (s) => new oniguruma.OnigScanner(s),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scope) => {
    if (scope !== "source.sketch") return null;
    const file = path.join(root, "syntaxes", "sketch.tmLanguage.json");
    return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
  },
});
const grammar = await registry.loadGrammar("source.sketch");

/// Tokens of a text: [{text, scopes, line}] over all lines.
function tokenize(text) {
  const out = [];
  let stack = vsctm.INITIAL;
  text.split(/\r?\n/).forEach((line, n) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens)
      out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes,
                 line: n + 1 });
    stack = r.ruleStack;
  });
  return out;
}

const failures = [];
function expectScope(text, piece, scope) {
  const t = tokenize(text).find((x) => x.text === piece);
  if (!t)
    failures.push(`"${piece}" is not one token in: ${text}`);
  else if (!t.scopes.some((s) => s === scope || s.startsWith(scope + ".")))
    failures.push(`"${piece}" in "${text}": scopes ${t.scopes.join(" ")}, ` +
                  `expected ${scope}`);
}

// 1. Crisp cases.
expectScope('import "topologies/ndv2"', "import", "keyword.control.import");
expectScope('import "topologies/ndv2"', '"topologies/ndv2"', "string.quoted.double");
expectScope("sketch ring4 on ring(nodes: 2) {", "sketch", "keyword.other.declaration");
expectScope("sketch ring4 on ring(nodes: 2) {", "ring4", "entity.name.type");
expectScope("machine dgx2(nodes: int = 1) {", "dgx2", "entity.name.type");
expectScope("  class nvswitch { alpha = 0.3 us; beta = 8 us/MB }", "nvswitch", "entity.name.class");
expectScope("  class nvswitch { alpha = 0.3 us; beta = 8 us/MB }", "0.3", "constant.numeric");
expectScope("  class nvswitch { alpha = 0.3 us; beta = 8 us/MB }", "us/MB", "keyword.other.unit");
expectScope("  class ib { beta = 12.5 GB/s }", "GB/s", "keyword.other.unit");
expectScope("  size 1 KiB .. 64 KiB", "KiB", "keyword.other.unit");
expectScope("  size 1 KiB .. 64 KiB", "..", "keyword.operator.range");
expectScope("  size 1 KiB .. 64 KiB", "size", "keyword.other");
expectScope("  collective allgather", "allgather", "support.constant.collective");
expectScope("  policy nvs uc-min", "uc-min", "support.constant.policy");
expectScope("  relay each 0 -> 1", "->", "keyword.operator.arrow");
expectScope("  link nv n:0 <-> n:1", "<->", "keyword.operator.arrow");
expectScope("  for k in 0..gpus / 2 {", "for", "keyword.control");
expectScope("  for k in 0..gpus / 2 {", "k", "variable.other");
expectScope("// a comment with sketch and 1 us", "// a comment with sketch and 1 us",
            "comment.line.double-slash");
expectScope("/* block */", "/*", "comment.block");

// 2. Every sketch of the given folders: no unscoped token.
const folders = process.argv.slice(2);
if (folders.length === 0)
  folders.push(path.resolve(root, "..", "..", "stdlib-sketches"));
let files = 0, tokens = 0;
function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith(".sketch")) check(p);
  }
}
function check(file) {
  ++files;
  for (const t of tokenize(fs.readFileSync(file, "utf8"))) {
    if (t.text.trim() === "") continue;
    ++tokens;
    if (t.scopes.length < 2)
      failures.push(`${file}:${t.line}: "${t.text}" has no scope`);
  }
}
folders.forEach(walk);
if (files === 0) failures.push(`no .sketch files under ${folders.join(", ")}`);

if (failures.length) {
  for (const f of failures) console.error("FAIL: " + f);
  process.exit(1);
}
console.log(`tokenize: crisp cases ok; ${files} sketches, ${tokens} tokens, ` +
            "all scoped");
