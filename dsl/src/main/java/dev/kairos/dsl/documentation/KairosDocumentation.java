package dev.kairos.dsl.documentation;

import dev.kairos.dsl.kairos.Duration;
import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.OneShotAac;
import dev.kairos.dsl.kairos.PeriodicAac;
import dev.kairos.dsl.kairos.Spm;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.TimePoint;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.kairos.Window;
import dev.kairos.dsl.units.Quantities;
import java.util.Locale;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.documentation.IEObjectDocumentationProvider;

/**
 * What an editor shows on hover: the timing of a method (period or max rate, WCET, window, deadline
 * or GCT, criticality), a gate's deadline, a TMO's and a node's outline.
 */
public class KairosDocumentation implements IEObjectDocumentationProvider {

  @Override
  public String getDocumentation(EObject element) {
    if (element instanceof Spm spm) {
      return spm(spm);
    }
    if (element instanceof Svm svm) {
      return svm(svm);
    }
    if (element instanceof Gate gate) {
      return "**gate** `"
          + gate.getName()
          + "` — remote call to "
          + (gate.getCallee() == null ? "?" : gate.getCallee().getName())
          + "."
          + (gate.getMethod() == null ? "?" : gate.getMethod().getName())
          + (gate.isNonBlocking() ? ", non-blocking" : ", blocking")
          + "; result-return deadline "
          + text(gate.getDeadline());
    }
    if (element instanceof Tmo tmo) {
      final long spms = tmo.getMethods().stream().filter(Spm.class::isInstance).count();
      final long svms = tmo.getMethods().stream().filter(Svm.class::isInstance).count();
      return "**tmo** `"
          + tmo.getName()
          + "` — "
          + spms
          + " spontaneous and "
          + svms
          + " service method(s), "
          + (tmo.getOds() == null ? 0 : tmo.getOds().getSegments().size())
          + " ODS segment(s)";
    }
    if (element instanceof Node node) {
      return "**node** `"
          + node.getName()
          + "` — os "
          + node.getOs().getLiteral()
          + ", scheduling "
          + node.getScheduling().getLiteral()
          + (node.getHardware() == null ? "" : ", hardware " + node.getHardware().getName())
          + ", "
          + node.getDeployments().size()
          + " deployed TMO(s)";
    }
    return null;
  }

  private static String spm(Spm spm) {
    final StringBuilder out = new StringBuilder("**spm** `").append(spm.getName()).append("` — ");
    Window window = null;
    if (spm.getAac() instanceof PeriodicAac aac) {
      out.append("period ").append(text(aac.getPeriod()));
      out.append(" (from ").append(text(aac.getFrom()));
      out.append(aac.isForever() ? ", forever)" : " to " + text(aac.getTo()) + ")");
      window = aac.getWindow();
    } else if (spm.getAac() instanceof OneShotAac aac) {
      out.append("once");
      window = aac.getWindow();
    }
    if (window != null) {
      out.append("; start window (")
          .append(point(window.getEarliest()))
          .append(", ")
          .append(point(window.getLatest()))
          .append("); deadline ")
          .append(point(window.getDeadline()));
    }
    out.append("; WCET ").append(text(spm.getWcet()));
    out.append("; criticality ").append(spm.getCriticality().getLiteral());
    return out.toString();
  }

  private static String svm(Svm svm) {
    return "**svm** `"
        + svm.getName()
        + "` — "
        + (svm.getMaxRate() == null
            ? "no max-rate"
            : "max-rate " + svm.getMaxRate().getValue() + " Hz")
        + "; WCET "
        + text(svm.getWcet())
        + "; GCT "
        + text(svm.getGct())
        + "; criticality "
        + svm.getCriticality().getLiteral().toLowerCase(Locale.ROOT);
  }

  private static String point(TimePoint point) {
    if (point == null) {
      return "?";
    }
    if (point.getAnchor() == null) {
      return text(point.getOffset());
    }
    return point.getOffset() == null
        ? point.getAnchor()
        : point.getAnchor() + " + " + text(point.getOffset());
  }

  private static String text(Duration duration) {
    return duration == null || duration.getValue() == null ? "?" : Quantities.text(duration);
  }
}
