// The TextMate grammar tokenizes real models as a reader expects: keywords, declared names,
// quantities with their units, comments and strings each get their own scope.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import * as oniguruma from "vscode-oniguruma";
import * as textmate from "vscode-textmate";

const EXTENSION = path.resolve(__dirname, "..");
const REPOSITORY = path.resolve(EXTENSION, "..", "..");

async function loadGrammar(): Promise<textmate.IGrammar> {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text: string) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () =>
      textmate.parseRawGrammar(
        fs.readFileSync(path.join(EXTENSION, "syntaxes", "kairos.tmLanguage.json"), "utf8"),
        "kairos.tmLanguage.json",
      ),
  });
  const grammar = await registry.loadGrammar("source.kairos");
  assert.ok(grammar, "the grammar loads");
  return grammar;
}

/** Every token of `text` as [text, innermost scope]. */
function tokens(grammar: textmate.IGrammar, text: string): Array<[string, string]> {
  const result: Array<[string, string]> = [];
  let state = textmate.INITIAL;
  for (const line of text.split("\n")) {
    const lineTokens = grammar.tokenizeLine(line, state);
    for (const token of lineTokens.tokens) {
      const value = line.substring(token.startIndex, token.endIndex);
      if (value.trim() !== "") {
        result.push([value.trim(), token.scopes[token.scopes.length - 1]]);
      }
    }
    state = lineTokens.ruleStack;
  }
  return result;
}

function scopeOf(all: Array<[string, string]>, value: string): string[] {
  return all.filter(([text]) => text === value).map(([, scope]) => scope);
}

test("keywords, names, quantities and comments of a TMO get their scopes", async () => {
  const grammar = await loadGrammar();
  const all = tokens(
    grammar,
    [
      "// a comment with tmo in it",
      "tmo Greeter implements Greeting {",
      "  spm tick",
      "    for t = from 0 s to forever every 100 ms",
      "    start-during (t, t + 5 ms) finish-by t + 50 ms",
      "    wcet 1 ms criticality hard",
      "    uses counters write;",
      "  svm greet gct 2 ms wcet 200 us criticality soft max-rate 10 Hz;",
      "}",
      'node board { os linux scheduling rms+mlf endpoint "uds:/tmp/x" deploy Greeter as greeter }',
      "node spare { os sim scheduling np-edf }",
    ].join("\n"),
  );
  assert.deepEqual(scopeOf(all, "// a comment with tmo in it"), [
    "comment.line.double-slash.kairos",
  ]);
  assert.deepEqual(scopeOf(all, "Greeter"), ["entity.name.type.kairos", "entity.name.type.kairos"]);
  assert.deepEqual(scopeOf(all, "tmo"), ["keyword.declaration.kairos"]);
  assert.deepEqual(scopeOf(all, "tick"), ["entity.name.type.kairos"]);
  assert.deepEqual(scopeOf(all, "start-during"), ["keyword.other.timing.kairos"]);
  assert.deepEqual(scopeOf(all, "finish-by"), ["keyword.other.timing.kairos"]);
  assert.deepEqual(scopeOf(all, "max-rate"), ["keyword.other.timing.kairos"]);
  assert.deepEqual(scopeOf(all, "100"), ["constant.numeric.kairos"]);
  assert.ok(scopeOf(all, "ms").every((scope) => scope === "keyword.other.unit.kairos"));
  assert.deepEqual(scopeOf(all, "Hz"), ["keyword.other.unit.kairos"]);
  assert.deepEqual(scopeOf(all, "hard"), ["constant.language.kairos"]);
  assert.deepEqual(scopeOf(all, "rms+mlf"), ["constant.language.kairos"]);
  assert.deepEqual(scopeOf(all, "np-edf"), ["constant.language.kairos"]);
  assert.deepEqual(scopeOf(all, "write"), ["storage.modifier.kairos"]);
  assert.deepEqual(scopeOf(all, "greeter"), ["variable.other.kairos"]);
  assert.ok(scopeOf(all, '"uds:/tmp/x"').length + scopeOf(all, "uds:/tmp/x").length > 0);
});

test("every model of the examples tokenizes without an unknown keyword left unscoped", async () => {
  const grammar = await loadGrammar();
  const keywords = ["tmo", "spm", "svm", "gate", "node", "deploy", "wcet", "gct", "deadline"];
  const models = ["hello/hello.tmo", "avionics/avionics.tmo"].map((name) =>
    fs.readFileSync(path.join(REPOSITORY, "examples", name), "utf8"),
  );
  for (const model of models) {
    const all = tokens(grammar, model);
    for (const keyword of keywords) {
      for (const scope of scopeOf(all, keyword)) {
        assert.match(scope, /^(keyword|comment)\./, `${keyword} is scoped ${scope}`);
      }
    }
  }
});
