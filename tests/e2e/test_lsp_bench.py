"""The language server benchmark runs: a small model, one edit and its undo. Only that the
schedulability diagnostics and the report arrive is checked here; the figures are bench/'s."""

from conftest import ROOT, run

KAIROS_JAR = ROOT / "generator" / "target" / "kairos.jar"
SERVER_JAR = ROOT / "language-server" / "target" / "kairos-language-server.jar"


def test_lsp_latency_bench_sees_the_diagnostics_of_an_edit():
    result = run(["java", "-cp", f"{KAIROS_JAR}:{SERVER_JAR}", ROOT / "bench" / "lsp" / "LspLatency.java",
                  "--tmos", "40", "--files", "2", "--cycles", "1"], timeout=600)
    out = result.stdout
    assert "model: 40 TMOs (80 tasks) on 1 nodes in 2 file(s)" in out, out
    for what in ("edit that breaks a deadline (4 keystrokes), from the last keystroke, 1 edits:",
                 "undo (1 change), from the last keystroke, 1 edits:",
                 "schedulability diagnostics", "kairos/report notification",
                 "baseline: kairos check --format json of the same files, in-process"):
        assert what in out, out
