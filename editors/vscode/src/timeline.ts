// The timeline view: the node timelines of the `kairos check` report (the same self-contained
// HTML page `kairos check --html` writes), kept up to date from the language server.
import * as vscode from "vscode";

export class TimelinePanel {
  private panel: vscode.WebviewPanel | undefined;
  private latestHtml: string | undefined;

  /** Shows the panel (creating it when needed) with the latest page, or `html` when given. */
  show(html?: string): void {
    if (html !== undefined) {
      this.latestHtml = html;
    }
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        "kairos.timeline",
        "Kairos Timeline",
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, retainContextWhenHidden: true },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    }
    this.panel.webview.html = this.page();
    this.panel.reveal(undefined, true);
  }

  /** A new page from the language server: shown at once if the panel is open, kept otherwise. */
  update(html: string): void {
    this.latestHtml = html;
    if (this.panel) {
      this.panel.webview.html = this.page();
    }
  }

  isOpen(): boolean {
    return this.panel !== undefined;
  }

  private page(): string {
    // The report is inline SVG and CSS; nothing it shows runs code or loads from elsewhere.
    const policy =
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ` +
      `style-src 'unsafe-inline'; img-src data:;">`;
    const html =
      this.latestHtml ??
      "<!DOCTYPE html><html><body><p>No report yet: open a .tmo model, or run " +
        "<b>Kairos: Check</b>.</p></body></html>";
    return html.includes("<head>") ? html.replace("<head>", `<head>${policy}`) : policy + html;
  }
}
