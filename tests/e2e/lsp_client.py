"""A small LSP client over stdio for the tests and the benchmark: Content-Length framing,
requests with ids, notifications, and the server's own requests acknowledged."""

import json
import queue
import subprocess
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The launch command editors use (docs/editors.md).
SERVER_JAR = ROOT / "language-server" / "target" / "kairos-language-server.jar"
ANSWER_TIMEOUT_S = 60


class NoAnswer(Exception):
    """The server sent nothing that matched in time."""


class LanguageServer:
    """The Kairos language server as a child process, driven with LSP messages."""

    def __init__(self, workspace: Path, jar: Path = SERVER_JAR, timeout_s: float = ANSWER_TIMEOUT_S,
                 java: str = "java", env: dict | None = None):
        self.process = subprocess.Popen(
            [java, "-jar", str(jar)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=workspace,
        )
        self.timeout_s = timeout_s
        self.messages: "queue.Queue[tuple[float, dict]]" = queue.Queue()
        self.pending: list[tuple[float, dict]] = []
        self.requests_from_server: list[dict] = []
        self.next_id = 1
        self.write_lock = threading.Lock()
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
            message = json.loads(body)
            if message.get("method") and "id" in message:
                # A request from the server (client/registerCapability, workspace/codeLens/refresh):
                # acknowledged at once, and kept for tests that look for it.
                self.requests_from_server.append(message)
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            self.messages.put((time.monotonic(), message))

    def send(self, message: dict):
        payload = json.dumps(message).encode("utf-8")
        with self.write_lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
            self.process.stdin.flush()

    def notify(self, method: str, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params):
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        _, message = self._await(lambda m: m.get("id") == request_id and "method" not in m)
        if "error" in message:
            raise AssertionError(f"{method} failed: {message['error']}")
        return message["result"]

    def notification(self, method: str, predicate=lambda params: True, timeout_s=None):
        """The params of the first notification of `method` that satisfies `predicate`."""
        return self.timed_notification(method, predicate, timeout_s)[1]

    def timed_notification(self, method: str, predicate=lambda params: True, timeout_s=None):
        """(arrival time on time.monotonic(), params) of the first matching notification."""
        arrived, message = self._await(
            lambda m: m.get("method") == method and predicate(m["params"]), timeout_s)
        return arrived, message["params"]

    def diagnostics(self, uri: str, predicate=lambda diagnostics: True, timeout_s=None):
        """The diagnostics of the first publication for `uri` that satisfies `predicate`."""
        return self.notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == uri and predicate(p["diagnostics"]), timeout_s)["diagnostics"]

    def _await(self, matches, timeout_s=None):
        for entry in self.pending:
            if matches(entry[1]):
                self.pending.remove(entry)
                return entry
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while time.monotonic() < deadline:
            try:
                entry = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if matches(entry[1]):
                return entry
            self.pending.append(entry)
        raise NoAnswer("the language server did not answer in time")

    def forget_pending(self):
        """Drops what arrived and was not asked for yet (older publications)."""
        self.pending.clear()
        while not self.messages.empty():
            self.messages.get_nowait()

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=30)


CLIENT_CAPABILITIES = {
    "textDocument": {
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "foldingRange": {"lineFoldingOnly": True},
        "rename": {"prepareSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "semanticTokens": {"requests": {"full": True}, "tokenTypes": [], "tokenModifiers": [],
                           "formats": ["relative"]},
        "publishDiagnostics": {"codeDescriptionSupport": True, "dataSupport": True},
    },
    "workspace": {"codeLens": {"refreshSupport": True}, "workspaceEdit": {"documentChanges": False}},
}


def start(workspace: Path, analysis_delay_ms: int | None = None, report_html: bool = False,
          architecture_svg: bool = False, **kwargs) -> tuple[LanguageServer, dict]:
    """A server on `workspace`, initialized (it indexes the files already there); with its
    capabilities."""
    if not SERVER_JAR.is_file():
        raise FileNotFoundError(f"{SERVER_JAR} is not built: run `make java` first")
    server = LanguageServer(workspace, **kwargs)
    options = {} if analysis_delay_ms is None else {"analysisDelayMs": analysis_delay_ms}
    if report_html:
        options["reportHtml"] = True
    if architecture_svg:
        options["architectureSvg"] = True
    result = server.request("initialize", {
        "processId": None, "rootUri": workspace.as_uri(), "capabilities": CLIENT_CAPABILITIES,
        "initializationOptions": options})
    server.notify("initialized", {})
    return server, result["capabilities"]


def open_document(server: LanguageServer, path: Path, text: str | None = None, version: int = 1) -> str:
    text = path.read_text() if text is None else text
    uri = path.as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "kairos", "version": version, "text": text}})
    return uri


def change_document(server: LanguageServer, uri: str, text: str, version: int):
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})


def position_of(text: str, fragment: str, offset: int = 0) -> dict:
    index = text.index(fragment) + offset
    line = text.count("\n", 0, index)
    return {"line": line, "character": index - (text.rfind("\n", 0, index) + 1)}


def offset_of(text: str, position: dict) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]


def apply_edits(text: str, edits: list[dict]) -> str:
    """The text after LSP TextEdits (applied from the last to the first)."""
    for edit in sorted(edits, key=lambda e: offset_of(text, e["range"]["start"]), reverse=True):
        start = offset_of(text, edit["range"]["start"])
        end = offset_of(text, edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text
