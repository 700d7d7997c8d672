// The architecture view: the diagram `kairos diagram` draws (nodes with their TMOs, gates,
// channels, networks, laid out by the Eclipse Layout Kernel), redrawn from each analysis the
// language server reports.
import { LivePanel } from "./livePanel";

export class ArchitecturePanel extends LivePanel {
  private latestSvg: string | undefined;

  constructor() {
    super(
      "kairos.architecture",
      "Kairos Architecture",
      "No diagram yet: open a .tmo model; it is drawn once the model has no errors.",
    );
  }

  /** A diagram of the latest analysis. */
  updateSvg(svg: string): void {
    this.latestSvg = svg;
    this.update(ArchitecturePanel.page(svg, undefined));
  }

  /** The model could not be analysed: the last diagram stays, under the reason. */
  notAnalysed(reason: string): void {
    if (this.latestSvg !== undefined) {
      this.update(ArchitecturePanel.page(this.latestSvg, reason));
    }
  }

  private static page(svg: string, reason: string | undefined): string {
    const note =
      reason === undefined ? "" : `<p class="stale">${escapeHtml(reason)}: the last diagram</p>`;
    return (
      `<!DOCTYPE html><html><head><meta charset="utf-8"><style>` +
      `body { background: #fff; margin: 12px; } ` +
      `.stale { font: 13px sans-serif; color: #a11212; }` +
      `</style></head><body>${note}${svg}</body></html>`
    );
  }
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
