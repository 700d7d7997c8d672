"""Drives the real language server over stdio with LSP messages and checks its answers: the
editing features (diagnostics, completion, hover, definition, references, rename, symbols,
folding, semantic tokens, formatting). test_lsp_live.py covers the live schedulability."""

import json
from pathlib import Path

import pytest

from lsp_client import apply_edits, change_document, open_document, position_of, start

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
  svm greet gct 5 ms wcet 200 us criticality soft max-rate 10 Hz uses counters read;
}

node board {
  os linux
  deploy Greeter as greeter
}
"""

# Two files of one system: geo.tmo declares a type, nav.tmo uses it through an import.
GEO = """package geo

struct Point {
  double lat;
  double lon;
}
"""

NAV = """package nav

import geo.*

struct Leg {
  Point start;
  Point end;
}
"""


@pytest.fixture
def serve(workdir):
    """Starts a server on the workdir as it is then (it indexes the files already there)."""
    started = []

    def start_server():
        ls, capabilities = start(workdir)
        started.append(ls)
        for capability in ("hoverProvider", "definitionProvider", "referencesProvider",
                           "documentSymbolProvider", "documentFormattingProvider",
                           "completionProvider", "renameProvider", "foldingRangeProvider",
                           "semanticTokensProvider", "codeActionProvider", "codeLensProvider"):
            assert capabilities.get(capability), f"server does not offer {capability}"
        ls.capabilities = capabilities
        return ls

    yield start_server
    for ls in started:
        ls.close()


def two_files(workdir: Path) -> tuple[Path, Path]:
    geo, nav = workdir / "geo.tmo", workdir / "nav.tmo"
    geo.write_text(GEO)
    nav.write_text(NAV)
    return geo, nav


def demo_file(workdir: Path) -> Path:
    path = workdir / "demo.tmo"
    path.write_text(MODEL)
    return path


def test_names_are_reported_in_kairos_words_across_files(workdir):
    (workdir / "geo.tmo").write_text("package geo\nstruct Point { double lat; }\n")
    more = workdir / "more.tmo"
    more.write_text("package geo\n\nstruct Point { double lon; }\n")
    ls, _ = start(workdir)
    try:
        nav = workdir / "nav.tmo"
        text = "package nav\nstruct Leg { Point start; }\n"
        nav.write_text(text)
        uri = open_document(ls, nav, text)
        (unresolved,) = ls.diagnostics(uri, bool)
        assert unresolved["code"] == "kairos.unresolved-reference", unresolved
        assert unresolved["message"] == (
            "unknown type 'Point'; package geo declares one: write geo.Point or import geo.*")
        assert unresolved["range"]["start"] == position_of(text, "Point start")

        duplicates = ls.diagnostics(more.as_uri(), bool)
        assert [d["code"] for d in duplicates] == ["kairos.duplicate-name"], duplicates
        assert "struct 'Point' is also declared in geo.tmo" in duplicates[0]["message"]
    finally:
        ls.close()


def test_the_server_sends_the_codes_the_cli_prints(serve, workdir):
    """A syntax error and a validation error carry the kairos.* codes, never Xtext's own."""
    path = workdir / "codes.tmo"
    text = "tmo T {\n  svm slow gct 1 ms wcet 2 ms;\n  spm every every\n}\n"
    path.write_text(text)
    server = serve()
    uri = open_document(server, path, text)
    diagnostics = server.diagnostics(uri, lambda d: any(x.get("code") == "kairos.syntax" for x in d))
    codes = [d.get("code") for d in diagnostics]
    assert all(code.startswith("kairos.") for code in codes), codes
    syntax = next(d for d in diagnostics if d["code"] == "kairos.syntax")
    assert syntax["range"]["start"]["line"] == 2, syntax

    valid_syntax = "tmo T {\n  svm slow gct 1 ms wcet 2 ms;\n}\n"
    change_document(server, uri, valid_syntax, 2)
    diagnostics = server.diagnostics(
        uri, lambda d: [x.get("code") for x in d] == ["kairos.wcet-exceeds-gct"])
    assert diagnostics[0]["range"]["start"] == position_of(valid_syntax, "2 ms")


def test_language_server_answers_an_editing_session(serve, workdir):
    path = demo_file(workdir)
    server = serve()
    uri = path.as_uri()
    document = {"uri": uri}

    # didOpen with a mistake: the WCET exceeds the GCT.
    broken = MODEL.replace("wcet 200 us", "wcet 6 ms")
    open_document(server, path, broken)
    diagnostics = server.diagnostics(uri, bool)
    assert [d.get("code") for d in diagnostics] == ["kairos.wcet-exceeds-gct"], diagnostics
    assert diagnostics[0]["range"]["start"] == position_of(broken, "6 ms")

    # didChange fixes it: the diagnostics are cleared.
    change_document(server, uri, MODEL, 2)
    server.diagnostics(uri, lambda d: not d)

    # Completion at the start of a member line offers the method keywords.
    completion = server.request("textDocument/completion", {
        "textDocument": document, "position": position_of(MODEL, "  svm greet", 2)})
    items = completion["items"] if isinstance(completion, dict) else completion
    labels = {item["label"] for item in items}
    assert {"spm", "svm"} <= labels, labels

    # Hover over an SpM shows its timing as written.
    hover = server.request("textDocument/hover", {
        "textDocument": document, "position": position_of(MODEL, "spm tick", 5)})
    text = hover["contents"]["value"]
    for expected in ("100 ms", "WCET 1 ms", "t + 50 ms", "hard"):
        assert expected in text, text
    hover = server.request("textDocument/hover", {
        "textDocument": document, "position": position_of(MODEL, "svm greet", 5)})
    text = hover["contents"]["value"]
    for expected in ("10 Hz", "WCET 200 us", "GCT 5 ms", "soft"):
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

    # Formatting a messy line yields edits that give the canonical layout.
    messy = MODEL.replace("  svm greet gct 5 ms", "  svm   greet   gct 5 ms")
    change_document(server, uri, messy, 3)
    edits = server.request("textDocument/formatting", {
        "textDocument": document, "options": {"tabSize": 2, "insertSpaces": True}})
    assert edits, "formatting a messy document must produce edits"
    assert apply_edits(messy, edits) == MODEL
    assert not (workdir / "src-gen").exists(), "the language server must not generate code"


def test_document_symbols_outline_tmos_methods_and_nodes(serve, workdir):
    path = demo_file(workdir)
    server = serve()
    uri = open_document(server, path)
    symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})

    def flatten(items, parent=None):
        for item in items:
            yield item, parent
            yield from flatten(item.get("children", []), item)

    found = {item["name"]: (item, parent) for item, parent in flatten(symbols)}
    class_kind, method_kind, struct_kind, module_kind = 5, 6, 23, 2
    assert found["Greeter"][0]["kind"] == class_kind, symbols
    assert found["tick"][0]["kind"] == method_kind and found["tick"][1]["name"] == "Greeter"
    assert found["greet"][0]["kind"] == method_kind and found["greet"][1]["name"] == "Greeter"
    assert found["counters"][0]["kind"] == struct_kind
    assert found["board"][0]["kind"] == module_kind and found["greeter"][1]["name"] == "board"
    # Each symbol's range holds its selection range (its name).
    tick = found["tick"][0]
    assert tick["selectionRange"]["start"] == position_of(MODEL, "spm tick", 4)
    assert tick["range"]["start"]["line"] <= tick["selectionRange"]["start"]["line"]


def test_definition_leads_across_files(serve, workdir):
    geo, nav = two_files(workdir)
    server = serve()
    uri = open_document(server, nav)
    definition = server.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": position_of(NAV, "Point start", 2)})
    (location,) = definition if isinstance(definition, list) else [definition]
    assert location["uri"] == geo.as_uri(), location
    assert location["range"]["start"] == position_of(GEO, "Point")


def test_references_are_found_in_every_file(serve, workdir):
    geo, nav = two_files(workdir)
    server = serve()
    uri = open_document(server, geo)
    references = server.request("textDocument/references", {
        "textDocument": {"uri": uri}, "position": position_of(GEO, "Point", 1),
        "context": {"includeDeclaration": True}})
    found = sorted((r["uri"], r["range"]["start"]["line"], r["range"]["start"]["character"])
                   for r in references)
    assert found == sorted([
        (geo.as_uri(), *position_of(GEO, "Point").values()),
        (nav.as_uri(), *position_of(NAV, "Point start").values()),
        (nav.as_uri(), *position_of(NAV, "Point end").values()),
    ]), references


def test_rename_changes_the_declaration_and_every_use(serve, workdir):
    geo, nav = two_files(workdir)
    server = serve()
    uri = open_document(server, geo)
    prepared = server.request("textDocument/prepareRename", {
        "textDocument": {"uri": uri}, "position": position_of(GEO, "Point", 2)})
    assert prepared, "Point can be renamed"
    edit = server.request("textDocument/rename", {
        "textDocument": {"uri": uri}, "position": position_of(GEO, "Point", 2),
        "newName": "Position"})
    changes = edit.get("changes") or {
        change["textDocument"]["uri"]: change["edits"] for change in edit["documentChanges"]}
    assert set(changes) == {geo.as_uri(), nav.as_uri()}, edit
    assert apply_edits(GEO, changes[geo.as_uri()]) == GEO.replace("Point", "Position")
    assert apply_edits(NAV, changes[nav.as_uri()]) == NAV.replace("Point", "Position")


def test_folding_ranges_cover_blocks(serve, workdir):
    path = demo_file(workdir)
    server = serve()
    uri = open_document(server, path)
    ranges = server.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})
    spans = {(r["startLine"], r["endLine"]) for r in ranges}
    lines = MODEL.split("\n")
    tmo_start = position_of(MODEL, "tmo Greeter")["line"]
    tmo_end = max(i for i, line in enumerate(lines) if line == "}" and i > tmo_start
                  and i < position_of(MODEL, "node board")["line"])
    node_start = position_of(MODEL, "node board")["line"]
    assert any(start == tmo_start and end >= tmo_end - 1 for start, end in spans), spans
    assert any(start == position_of(MODEL, "ods {")["line"] for start, _ in spans), spans
    assert any(start == position_of(MODEL, "spm tick")["line"] for start, _ in spans), spans
    assert any(start == node_start for start, _ in spans), spans


def decode_tokens(text: str, data: list[int], legend: dict) -> dict[tuple[int, int], tuple]:
    """{(line, character): (text, type, {modifiers})} from LSP's relative token encoding."""
    tokens = {}
    line = character = 0
    lines = text.split("\n")
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, modifiers = data[i:i + 5]
        line += delta_line
        character = delta_start if delta_line else character + delta_start
        names = {name for bit, name in enumerate(legend["tokenModifiers"]) if modifiers >> bit & 1}
        tokens[(line, character)] = (
            lines[line][character:character + length], legend["tokenTypes"][kind], names)
    return tokens


def test_semantic_tokens_follow_meaning(serve, workdir):
    path = demo_file(workdir)
    server = serve()
    uri = open_document(server, path)
    legend = server.capabilities["semanticTokensProvider"]["legend"]
    result = server.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
    tokens = decode_tokens(MODEL, result["data"], legend)

    def token(fragment, offset=0):
        where = position_of(MODEL, fragment, offset)
        return tokens.get((where["line"], where["character"]))

    assert token("package") == ("package", "keyword", set())
    assert token("demo") == ("demo", "namespace", {"declaration"})
    assert token("Greeter") == ("Greeter", "class", {"declaration"})
    assert token("spm tick", 4) == ("tick", "method", {"declaration"})
    assert token("greet") == ("greet", "method", {"declaration"})
    assert token("counters") == ("counters", "struct", {"declaration"})
    assert token("counters write") == ("counters", "struct", set())
    assert token("uint64") == ("uint64", "type", {"defaultLibrary"})
    assert token("ticks") == ("ticks", "property", {"declaration"})
    assert token("100 ms") == ("100", "number", set())
    assert token("hard") == ("hard", "enumMember", set())
    assert token("t = from", 0) == ("t", "parameter", {"declaration"})
    assert token("Greeter as") == ("Greeter", "class", set())
    assert token("greeter\n") == ("greeter", "variable", {"declaration"})
    assert token("spm") == ("spm", "keyword", set())
