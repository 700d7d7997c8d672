"""The packaged VS Code extension (`make vsix` -> build/editors/kairos.vsix): its manifest says
what VS Code needs to offer Kairos for .tmo files, it carries everything it uses, and the language
server inside it answers over LSP.

Needs `make vsix`."""

import json
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import ROOT
from lsp_client import LanguageServer

VSIX = ROOT / "build" / "editors" / "kairos.vsix"


@pytest.fixture(scope="module")
def vsix() -> zipfile.ZipFile:
    assert VSIX.is_file(), f"{VSIX} is missing: run `make vsix`"
    with zipfile.ZipFile(VSIX) as archive:
        yield archive


def manifest(vsix: zipfile.ZipFile) -> dict:
    return json.loads(vsix.read("extension/package.json"))


def test_the_manifest_offers_the_kairos_language_for_tmo_files(vsix):
    package = manifest(vsix)
    assert package["name"] == "kairos" and package["publisher"]
    assert package["main"] == "./out/extension.js"
    languages = package["contributes"]["languages"]
    assert [language["id"] for language in languages] == ["kairos"]
    assert languages[0]["extensions"] == [".tmo"]
    grammar = package["contributes"]["grammars"][0]
    assert grammar["language"] == "kairos" and grammar["scopeName"] == "source.kairos"
    commands = {command["command"] for command in package["contributes"]["commands"]}
    assert {"kairos.check", "kairos.generate", "kairos.showTimeline",
            "kairos.showArchitecture"} <= commands
    titles = {command["command"]: command["title"] for command in package["contributes"]["commands"]}
    assert titles["kairos.showArchitecture"] == "Show Architecture"
    assert package["contributes"]["configuration"]["properties"]["kairos.java.home"]


def test_every_file_the_manifest_names_is_in_the_package(vsix):
    package = manifest(vsix)
    names = set(vsix.namelist())
    contributes = package["contributes"]
    wanted = [package["main"], contributes["languages"][0]["configuration"]]
    wanted += [grammar["path"] for grammar in contributes["grammars"]]
    wanted += [snippet["path"] for snippet in contributes["snippets"]]
    wanted += ["./server/kairos-ls.jar"]
    for path in wanted:
        assert "extension/" + path.removeprefix("./") in names, path
    # Bundled: nothing of node_modules, no sources, no tests, no repository files.
    assert not [
        n for n in names
        if "/node_modules/" in n or n.endswith(".ts") or "/test" in n or n.endswith(".gitignore")
    ]


def test_the_vsix_manifest_names_the_extension_and_its_engine(vsix):
    root = ElementTree.fromstring(vsix.read("extension.vsixmanifest"))
    ns = {"v": "http://schemas.microsoft.com/developer/vsx-schema/2011"}
    identity = root.find("v:Metadata/v:Identity", ns)
    assert identity.get("Id") == "kairos" and identity.get("Publisher") == manifest(vsix)["publisher"]
    engine = root.find("v:Metadata/v:Properties/v:Property[@Id='Microsoft.VisualStudio.Code.Engine']", ns)
    assert engine is not None and engine.get("Value").startswith("^1.")


def test_the_snippets_are_valid_and_cover_tmo_methods_and_nodes(vsix):
    snippets = json.loads(vsix.read("extension/snippets/kairos.json"))
    assert {"tmo", "spm", "svm", "gate", "node"} <= {s["prefix"] for s in snippets.values()}


def test_the_language_server_inside_the_package_answers(vsix, tmp_path):
    jar = tmp_path / "kairos-ls.jar"
    jar.write_bytes(vsix.read("extension/server/kairos-ls.jar"))
    model = tmp_path / "hello.tmo"
    model.write_text((ROOT / "examples" / "hello" / "hello.tmo").read_text())
    server = LanguageServer(tmp_path, jar)
    try:
        answer = server.request(
            "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        )
        capabilities = answer["capabilities"]
        assert capabilities.get("completionProvider") is not None
        assert capabilities.get("documentFormattingProvider")
    finally:
        server.close()


def test_the_cli_inside_the_package_checks_and_generates_a_model(vsix, tmp_path):
    """Kairos: Check and Kairos: Generate run the command line from the bundled jar."""
    import subprocess

    jar = tmp_path / "kairos-ls.jar"
    jar.write_bytes(vsix.read("extension/server/kairos-ls.jar"))
    model = ROOT / "examples" / "hello" / "hello.tmo"
    cli = ["java", "-cp", str(jar), "dev.kairos.cli.KairosCli"]
    page = tmp_path / "report.html"
    checked = subprocess.run(cli + ["check", "--html", str(page), str(model)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert page.is_file() and "<svg" in page.read_text()
    # As the extension's kairos.generate.clangFormat setting passes it: the pinned formatter.
    formatter = subprocess.run([str(ROOT / "scripts" / "clang-format.sh"), "--path"],
                               capture_output=True, text=True, check=True).stdout.strip()
    generated = subprocess.run(cli + ["generate", "--clang-format", formatter,
                                      "-o", str(tmp_path / "out"), "--impl",
                                      str(tmp_path / "impl"), str(model)],
                               capture_output=True, text=True, timeout=300)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert (tmp_path / "out" / "board.main.cpp").is_file()


def test_the_server_inside_the_package_lays_out_diagrams(vsix, tmp_path):
    """The Show Architecture view's diagrams come from ELK inside the bundled jar, found through its
    service file (the shading merges them); the command line there draws the same."""
    import subprocess

    jar = tmp_path / "kairos-ls.jar"
    jar.write_bytes(vsix.read("extension/server/kairos-ls.jar"))
    with zipfile.ZipFile(jar) as archive:
        names = set(archive.namelist())
        assert "org/eclipse/elk/alg/layered/LayeredLayoutProvider.class" in names
        services = archive.read(
            "META-INF/services/org.eclipse.elk.core.data.ILayoutMetaDataProvider").decode()
        assert "org.eclipse.elk.alg.layered.options.LayeredMetaDataProvider" in services
        assert not [n for n in names if n.startswith("images/")], "ELK's documentation pictures"
    svg = tmp_path / "avionics.svg"
    drawn = subprocess.run(["java", "-cp", str(jar), "dev.kairos.cli.KairosCli", "diagram",
                            str(ROOT / "examples" / "avionics" / "avionics.tmo"), "-o", str(svg)],
                           capture_output=True, text=True, timeout=300)
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    assert 'id="arch-gate-mission1.planner.sensors"' in svg.read_text()
