// The timeline view: the node timelines of the `kairos check` report (the same self-contained
// HTML page `kairos check --html` writes), kept up to date from the language server.
import { LivePanel } from "./livePanel";

export class TimelinePanel extends LivePanel {
  constructor() {
    super(
      "kairos.timeline",
      "Kairos Timeline",
      "No report yet: open a .tmo model, or run <b>Kairos: Check</b>.",
    );
  }
}
