package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Spm;
import dev.kairos.dsl.kairos.Strategy;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.ir.RuntimeCapacities;
import org.eclipse.xtext.validation.Check;

/**
 * A node holds no more than the runtime's tables do: SpMs, SvMs and ODS segments, and under
 * preemptive EDF a lane per method. (Priority bands need no check: the scheduling analysis folds
 * them into the lanes there are.)
 */
public class CapacityValidator extends ConcernValidator {

  @Check
  public void checkNodeFitsTheRuntime(Node node) {
    int spms = 0;
    int svms = 0;
    int segments = 0;
    for (Deployment deployment : node.getDeployments()) {
      final Tmo tmo = deployment.getTmo();
      if (tmo == null || tmo.eIsProxy()) {
        continue;
      }
      for (Method method : tmo.getMethods()) {
        if (method instanceof Spm) {
          spms++;
        } else if (method instanceof Svm) {
          svms++;
        }
      }
      if (tmo.getOds() != null) {
        segments += tmo.getOds().getSegments().size();
      }
    }
    exceeds(node, spms, RuntimeCapacities.SPMS, "spontaneous methods");
    exceeds(node, svms, RuntimeCapacities.SVMS, "service methods");
    exceeds(node, segments, RuntimeCapacities.SEGMENTS, "ODS segments");
    if (node.getScheduling() == Strategy.EDF) {
      // Preemptive EDF runs every method on a lane of its own, scheduled by deadline.
      if (spms + svms > RuntimeCapacities.LANES) {
        error(
            "node '"
                + node.getName()
                + "' is scheduled by preemptive edf, which runs each of its "
                + (spms + svms)
                + " methods on a lane of its own; the runtime has at most "
                + RuntimeCapacities.LANES
                + " lanes per node: use np-edf, or deploy some of its TMOs on another node",
            Literals.NODE__SCHEDULING,
            IssueCodes.NODE_EXCEEDS_RUNTIME);
      }
    }
  }

  /** A machine with more cores than the runtime schedules on one node. */
  @Check
  public void checkHardwareFitsTheRuntime(dev.kairos.dsl.kairos.Hardware hardware) {
    if (hardware.getCores() > RuntimeCapacities.CORES) {
      error(
          "hardware '"
              + hardware.getName()
              + "' has "
              + hardware.getCores()
              + " cores; the runtime schedules at most "
              + RuntimeCapacities.CORES
              + " per node: model the machine as several nodes",
          Literals.HARDWARE__CORES,
          IssueCodes.NODE_EXCEEDS_RUNTIME);
    }
  }

  private void exceeds(Node node, int count, int capacity, String what) {
    if (count > capacity) {
      error(
          "node '"
              + node.getName()
              + "' deploys "
              + count
              + " "
              + what
              + "; the runtime holds at most "
              + capacity
              + " per node: deploy some of its TMOs on another node",
          Literals.NODE__NAME,
          IssueCodes.NODE_EXCEEDS_RUNTIME);
    }
  }
}
