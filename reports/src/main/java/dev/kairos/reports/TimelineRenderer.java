package dev.kairos.reports;

import org.mozilla.javascript.Context;
import org.mozilla.javascript.Function;
import org.mozilla.javascript.Script;
import org.mozilla.javascript.Scriptable;
import org.mozilla.javascript.ScriptableObject;

/**
 * The timeline's one renderer, report/timeline-draw.js, run for the page's static SVG: the code the
 * page's interactive view draws every zoom and pan with in a browser, here run by Rhino
 * (interpreted, with the standard objects only, so the script reaches no Java class) for where no
 * script runs, the editors' panels among them. One per page, on the thread that writes it.
 */
final class TimelineRenderer implements AutoCloseable {
  private static final String SOURCE = "timeline-draw.js";

  /**
   * The script, compiled once per thread that writes pages (the language server writes them on
   * several): a compiled script runs again in any later context and scope of its thread.
   */
  private static final ThreadLocal<Script> COMPILED = new ThreadLocal<>();

  private final Context context;
  private final Scriptable scope;
  private final Scriptable timeline;
  private final Scriptable nodes;

  /** A renderer of the nodes of {@code json}, the page's {@link TimelineData}. */
  TimelineRenderer(String json) {
    context = Context.enter();
    context.setLanguageVersion(Context.VERSION_ECMASCRIPT);
    context.setInterpretedMode(true);
    scope = context.initSafeStandardObjects();
    script(context).exec(context, scope);
    timeline = (Scriptable) ScriptableObject.getProperty(scope, "KairosTimeline");
    final Scriptable data = (Scriptable) call("parse", json);
    nodes = (Scriptable) ScriptableObject.getProperty(data, "nodes");
  }

  private static Script script(Context context) {
    Script compiled = COMPILED.get();
    if (compiled == null) {
      compiled = context.compileString(HtmlReport.resource(SOURCE), SOURCE, 1, null);
      COMPILED.set(compiled);
    }
    return compiled;
  }

  /** Node {@code index} where no script runs: what its timeline covers, the SVG, the legend. */
  String staticHtml(int index) {
    return Context.toString(call("staticHtml", ScriptableObject.getProperty(nodes, index)));
  }

  private Object call(String name, Object argument) {
    final Function function = (Function) ScriptableObject.getProperty(timeline, name);
    return function.call(context, scope, timeline, new Object[] {argument});
  }

  @Override
  public void close() {
    context.close();
  }
}
