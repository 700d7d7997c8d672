// A webview panel that shows a self-contained page from the language server (inline SVG and CSS,
// no script) and follows each new page while it is open.
import * as vscode from "vscode";

export class LivePanel {
  private panel: vscode.WebviewPanel | undefined;
  private latestHtml: string | undefined;

  constructor(
    private readonly viewType: string,
    private readonly title: string,
    private readonly placeholder: string,
  ) {}

  /** Shows the panel (creating it when needed) with the latest page, or `html` when given. */
  show(html?: string): void {
    if (html !== undefined) {
      this.latestHtml = html;
    }
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        this.viewType,
        this.title,
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

  /** A new page: shown at once if the panel is open, kept otherwise. */
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
    // The pages are inline SVG and CSS; nothing they show runs code or loads from elsewhere.
    const policy =
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ` +
      `style-src 'unsafe-inline'; img-src data:;">`;
    const html =
      this.latestHtml ?? `<!DOCTYPE html><html><body><p>${this.placeholder}</p></body></html>`;
    return html.includes("<head>") ? html.replace("<head>", `<head>${policy}`) : policy + html;
  }
}
