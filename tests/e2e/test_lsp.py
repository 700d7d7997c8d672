"""Drives the real language server over stdio with LSP messages and checks its answers."""

import json
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT

SERVER_JARS = sorted((ROOT / "dsl.ide" / "target").glob("dsl.ide-*-ls.jar"))
ANSWER_TIMEOUT_S = 60

MODEL = """package demo

tmo Greeter {
  ods {
    segment counters {
      uint64 ticks;
    }
  }
  spm tick
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 5 ms) finish-by t + 50 ms
    wcet 1 ms criticality hard
    uses counters write;
  svm greet gct 2 ms wcet 200 us criticality soft max-rate 10 Hz uses counters read;
}

node board {
  os linux
  deploy Greeter as greeter
}
"""


class LanguageServer:
    """A minimal LSP client: Content-Length framing, requests with ids, notifications."""

    def __init__(self, jar: Path, workspace: Path):
        self.process = subprocess.Popen(
            ["java", "-jar", str(jar)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=workspace,
        )
        self.messages: "queue.Queue[dict]" = queue.Queue()
        self.pending: list[dict] = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, value = line.split(":", 1)
                headers[key.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict):
        payload = json.dumps(message).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict):
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        message = self._await(lambda m: m.get("id") == request_id and "method" not in m)
        assert "error" not in message, message
        return message["result"]

    def notification(self, method: str, predicate=lambda params: True):
        return self._await(lambda m: m.get("method") == method and predicate(m["params"]))["params"]

    def _await(self, matches):
        for message in self.pending:
            if matches(message):
                self.pending.remove(message)
                return message
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message.get("method") and "id" in message:
                # A request from the server (e.g. client/registerCapability): acknowledge it.
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            if matches(message):
                return message
            self.pending.append(message)
        pytest.fail("the language server did not answer in time")

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def position_of(text: str, fragment: str, offset: int = 0) -> dict:
    index = text.index(fragment) + offset
    line = text.count("\n", 0, index)
    return {"line": line, "character": index - (text.rfind("\n", 0, index) + 1)}


def start_server(workdir):
    """A language server on workdir, initialized: it has indexed the files already there."""
    if not SERVER_JARS:
        pytest.fail("language server jar not built: run `make java` first")
    ls = LanguageServer(SERVER_JARS[-1], workdir)
    result = ls.request(
        "initialize",
        {"processId": None, "rootUri": workdir.as_uri(), "capabilities": {"textDocument": {
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}},
    )
    capabilities = result["capabilities"]
    for capability in ("hoverProvider", "definitionProvider", "referencesProvider",
                       "documentSymbolProvider", "documentFormattingProvider", "completionProvider"):
        assert capabilities.get(capability), f"server does not offer {capability}"
    ls.notify("initialized", {})
    return ls


@pytest.fixture
def server(workdir):
    ls = start_server(workdir)
    yield ls
    ls.close()


def test_names_are_reported_in_kairos_words_across_files(workdir):
    (workdir / "geo.tmo").write_text("package geo\nstruct Point { double lat; }\n")
    more = workdir / "more.tmo"
    more.write_text("package geo\n\nstruct Point { double lon; }\n")
    ls = start_server(workdir)
    try:
        nav = workdir / "nav.tmo"
        text = "package nav\nstruct Leg { Point start; }\n"
        nav.write_text(text)
        ls.notify("textDocument/didOpen", {"textDocument": {
            "uri": nav.as_uri(), "languageId": "kairos", "version": 1, "text": text}})
        (unresolved,) = ls.notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == nav.as_uri() and p["diagnostics"])["diagnostics"]
        assert unresolved["code"] == "kairos.unresolved-reference", unresolved
        assert unresolved["message"] == (
            "unknown type 'Point'; package geo declares one: write geo.Point or import geo.*")
        assert unresolved["range"]["start"] == position_of(text, "Point start")

        duplicates = ls.notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == more.as_uri() and p["diagnostics"])["diagnostics"]
        assert [d["code"] for d in duplicates] == ["kairos.duplicate-name"], duplicates
        assert "struct 'Point' is also declared in geo.tmo" in duplicates[0]["message"]
    finally:
        ls.close()


def test_language_server_answers_an_editing_session(server, workdir):
    path = workdir / "demo.tmo"
    path.write_text(MODEL)
    uri = path.as_uri()
    document = {"uri": uri}

    # didOpen with a mistake: the WCET exceeds the GCT.
    broken = MODEL.replace("wcet 200 us", "wcet 3 ms")
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "kairos", "version": 1, "text": broken}})
    diagnostics = server.notification(
        "textDocument/publishDiagnostics",
        lambda p: p["uri"] == uri and p["diagnostics"])["diagnostics"]
    assert [d.get("code") for d in diagnostics] == ["kairos.wcet-exceeds-gct"], diagnostics
    assert diagnostics[0]["range"]["start"] == position_of(broken, "3 ms wcet"[:4])

    # didChange fixes it: the diagnostics are cleared.
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": MODEL}]})
    server.notification("textDocument/publishDiagnostics",
                        lambda p: p["uri"] == uri and not p["diagnostics"])

    # Completion at the start of a member line offers the method keywords.
    completion = server.request("textDocument/completion", {
        "textDocument": document, "position": position_of(MODEL, "  svm greet", 2)})
    items = completion["items"] if isinstance(completion, dict) else completion
    labels = {item["label"] for item in items}
    assert {"spm", "svm"} <= labels, labels

    # Hover over an SpM shows its timing.
    hover = server.request("textDocument/hover", {
        "textDocument": document, "position": position_of(MODEL, "spm tick", 5)})
    contents = hover["contents"]
    text = contents["value"] if isinstance(contents, dict) else json.dumps(contents)
    for expected in ("100 ms", "WCET 1 ms", "t + 50 ms", "hard"):
        assert expected in text, text
    hover = server.request("textDocument/hover", {
        "textDocument": document, "position": position_of(MODEL, "svm greet", 5)})
    text = json.dumps(hover["contents"])
    for expected in ("10 Hz", "WCET 200 us", "GCT 2 ms", "soft"):
        assert expected in text, text

    # Go to definition: a segment use leads to the segment.
    definition = server.request("textDocument/definition", {
        "textDocument": document, "position": position_of(MODEL, "counters write", 1)})
    (location,) = definition if isinstance(definition, list) else [definition]
    assert location["range"]["start"]["line"] == position_of(MODEL, "segment counters")["line"]

    # Find references: the segment is used by both methods.
    references = server.request("textDocument/references", {
        "textDocument": document, "position": position_of(MODEL, "segment counters", 9),
        "context": {"includeDeclaration": False}})
    assert len(references) == 2, references

    # Document symbols: an outline with the TMO (a class) holding its methods, and the node.
    symbols = server.request("textDocument/documentSymbol", {"textDocument": document})

    def flatten(items, parent=None):
        for item in items:
            yield item, parent
            yield from flatten(item.get("children", []), item)

    found = {item["name"]: (item, parent) for item, parent in flatten(symbols)}
    class_kind, method_kind = 5, 6
    assert found["Greeter"][0]["kind"] == class_kind, symbols
    assert found["tick"][0]["kind"] == method_kind and found["tick"][1]["name"] == "Greeter"
    assert found["greet"][0]["kind"] == method_kind and found["greet"][1]["name"] == "Greeter"
    assert "board" in found and found["greeter"][1]["name"] == "board"

    # Formatting a messy line yields edits that give the canonical layout.
    messy = MODEL.replace("  svm greet gct 2 ms", "  svm   greet   gct 2 ms")
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": messy}]})
    edits = server.request("textDocument/formatting", {
        "textDocument": document, "options": {"tabSize": 2, "insertSpaces": True}})
    assert edits, "formatting a messy document must produce edits"
    assert not (workdir / "src-gen").exists(), "the language server must not generate code"
