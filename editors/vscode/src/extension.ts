// The Kairos extension: starts the Kairos language server (diagnostics, completion, hover,
// navigation, live schedulability), and runs `kairos check` and `kairos generate` on the model
// of the active editor, showing the check's node timelines beside it.
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

import { ArchitecturePanel } from "./architecture";
import { ensureExecutable, findJava, JavaFound, releaseHome } from "./java";
import { TimelinePanel } from "./timeline";

/** The server's notification after each analysis (docs/editors.md). */
const REPORT_NOTIFICATION = "kairos/report";
interface ReportParams {
  workspace: string;
  analysed: boolean;
  reason?: string;
  html?: string;
  architectureSvg?: string;
}

const CLI_MAIN_CLASS = "dev.kairos.cli.KairosCli";
const CLI_TIMEOUT_MS = 5 * 60 * 1000;

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Kairos");
  context.subscriptions.push(output);
  const timeline = new TimelinePanel();
  const architecture = new ArchitecturePanel();
  const settings = vscode.workspace.getConfiguration("kairos");
  const jar = serverJar(context, settings.get<string>("server.jar", ""));
  const java = await findJava(
    settings.get<string>("java.home", ""),
    context.asAbsolutePath(path.join("server", "java")),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand("kairos.showTimeline", () => timeline.show()),
    vscode.commands.registerCommand("kairos.showArchitecture", () => architecture.show()),
    vscode.commands.registerCommand("kairos.check", () =>
      withJava(java, jar, (found) => check(found, jar, output, timeline)),
    ),
    vscode.commands.registerCommand("kairos.generate", () =>
      withJava(java, jar, (found) => generate(found, jar, output)),
    ),
  );

  if (typeof java === "string") {
    output.appendLine(java);
    void vscode.window.showErrorMessage(java);
    return;
  }
  if (!fs.existsSync(jar)) {
    const message = `The Kairos language server ${jar} does not exist: set "kairos.server.jar".`;
    output.appendLine(message);
    void vscode.window.showErrorMessage(message);
    return;
  }
  const serverOptions: ServerOptions = {
    command: java.executable,
    args: ["-XX:+UseSerialGC", "-jar", jar],
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "kairos" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.tmo") },
    outputChannel: output,
    // The timeline view shows the page of each report, the architecture view its diagram: the
    // server sends them only when asked.
    initializationOptions: { reportHtml: true, architectureSvg: true },
  };
  client = new LanguageClient("kairos", "Kairos Language Server", serverOptions, clientOptions);
  context.subscriptions.push(
    client.onNotification(REPORT_NOTIFICATION, (params: ReportParams) => {
      if (typeof params.html === "string") {
        timeline.update(params.html);
      }
      if (typeof params.architectureSvg === "string") {
        architecture.updateSvg(params.architectureSvg);
      } else if (!params.analysed) {
        architecture.notAnalysed(params.reason ?? "not analysed");
      }
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}

function serverJar(context: vscode.ExtensionContext, configured: string): string {
  return configured.trim() !== ""
    ? configured.trim()
    : context.asAbsolutePath(path.join("server", "kairos-ls.jar"));
}

async function withJava(
  java: JavaFound | string,
  jar: string,
  run: (java: JavaFound) => Promise<void>,
): Promise<void> {
  if (typeof java === "string") {
    void vscode.window.showErrorMessage(java);
    return;
  }
  if (!fs.existsSync(jar)) {
    void vscode.window.showErrorMessage(`The Kairos jar ${jar} does not exist.`);
    return;
  }
  await run(java);
}

/** The active model and the other models of its folder (they may import each other). */
function activeModels(): { folder: string; files: string[] } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "kairos" || editor.document.isUntitled) {
    void vscode.window.showWarningMessage("Open a saved Kairos model (.tmo) first.");
    return undefined;
  }
  const folder = path.dirname(editor.document.uri.fsPath);
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".tmo"))
    .sort()
    .map((name) => path.join(folder, name));
  return { folder, files };
}

async function check(
  java: JavaFound,
  jar: string,
  output: vscode.OutputChannel,
  timeline: TimelinePanel,
): Promise<void> {
  const models = activeModels();
  if (!models) {
    return;
  }
  await vscode.workspace.saveAll(false);
  const page = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "kairos-")), "report.html");
  const result = await runCli(java, jar, ["check", "--html", page, ...models.files], models.folder);
  output.clear();
  output.append(result.stdout + result.stderr);
  output.show(true);
  if (fs.existsSync(page)) {
    timeline.show(fs.readFileSync(page, "utf8"));
  }
  const verdict =
    result.code === 0
      ? "every deadline holds"
      : result.code === 1
        ? "deadlines miss or the model has errors"
        : "could not run";
  void vscode.window.showInformationMessage(`Kairos check: ${verdict} (see the Kairos output).`);
}

async function generate(java: JavaFound, jar: string, output: vscode.OutputChannel): Promise<void> {
  const models = activeModels();
  if (!models) {
    return;
  }
  await vscode.workspace.saveAll(false);
  const settings = vscode.workspace.getConfiguration("kairos");
  const target = path.resolve(
    models.folder,
    settings.get<string>("generate.outputDirectory", "generated"),
  );
  const clangFormat = settings.get<string>("generate.clangFormat", "").trim();
  const formatter = clangFormat !== "" ? ["--clang-format", clangFormat] : [];
  const result = await runCli(
    java,
    jar,
    ["generate", ...formatter, "-o", target, ...models.files],
    models.folder,
  );
  output.clear();
  output.append(result.stdout + result.stderr);
  output.show(true);
  if (result.code === 0) {
    void vscode.window.showInformationMessage(`Kairos generated the C++ into ${target}.`);
  } else {
    void vscode.window.showErrorMessage("Kairos generate failed (see the Kairos output).");
  }
}

/**
 * Where the command line finds the pinned clang-format: beside the jar in a platform package
 * (server/clang-format-VERSION/clang-format), else in the Kairos release on the PATH.
 */
function clangFormatHome(serverDirectory: string): string {
  for (const home of [serverDirectory, releaseHome()]) {
    if (home === undefined || !fs.existsSync(home)) {
      continue;
    }
    const carried = fs.readdirSync(home).filter((entry) => entry.startsWith("clang-format-"));
    if (carried.length > 0) {
      for (const entry of carried) {
        ensureExecutable(path.join(home, entry, "clang-format"));
      }
      return home;
    }
  }
  return serverDirectory;
}

function runCli(
  java: JavaFound,
  jar: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = clangFormatHome(path.dirname(jar));
  return new Promise((resolve) => {
    execFile(
      java.executable,
      // The home where the command finds the pinned clang-format (clang-format-VERSION/).
      ["-XX:+UseSerialGC", `-Dkairos.home=${home}`, "-cp", jar, CLI_MAIN_CLASS, ...args],
      { cwd, timeout: CLI_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 2) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
