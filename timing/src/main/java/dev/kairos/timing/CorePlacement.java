package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * Partitioned scheduling: every TMO of a multicore node runs on one core, so its ODS segments,
 * their ceiling locks and the basic concurrency constraint stay on one processor, where the
 * single-core analyses hold. TMOs the model pins ({@code deploy T as x on core N}) stay there; the
 * others are placed first-fit decreasing: by utilization, largest first (ties by name, so placement
 * is deterministic), each on the lowest core where the core's analysis still finds every deadline
 * held; where none does, on the least loaded core, whose analysis then says what misses.
 */
public final class CorePlacement {
  private CorePlacement() {}

  /** The core of each deployment, in the node's order, and how each got there. */
  public record Result(int[] coreOf, List<NodePlan.Placement> placements) {
    /** The node as core {@code core} sees it: only the TMOs that run there. */
    public Node onCore(Node node, int core) {
      final List<Deployment> mine = new ArrayList<>();
      for (int i = 0; i < node.deployments().size(); i++) {
        if (coreOf[i] == core) {
          mine.add(node.deployments().get(i));
        }
      }
      return subNode(node, mine);
    }
  }

  /**
   * First-fit decreasing by utilization alone (a core holds up to 100%), then each core analysed
   * once; only where a core so packed misses a deadline are the TMOs placed again, each tried
   * against the cores' analyses. Most systems take the first path, in time linear in the analyses
   * of their cores.
   *
   * @param holds whether one core's share of the node is schedulable: the caller's analysis of a
   *     processor (the placement decides where, the analysis whether it holds)
   */
  public static Result place(Node node, Predicate<Node> holds) {
    final Result packed = pack(node, null);
    for (int core = 0; core < node.hardware().cores(); core++) {
      final Node mine = packed.onCore(node, core);
      if (!mine.deployments().isEmpty() && !holds.test(mine)) {
        return pack(node, holds);
      }
    }
    return packed;
  }

  /**
   * First-fit decreasing: each TMO on the lowest core with room for it by utilization, or (given
   * {@code holds}) on the lowest core whose analysis still holds with it.
   */
  private static Result pack(Node node, Predicate<Node> holds) {
    final int cores = node.hardware().cores();
    final List<Deployment> deployments = node.deployments();
    final int[] coreOf = new int[deployments.size()];
    final double[] utilization = new double[deployments.size()];
    final double[] load = new double[cores];
    final List<List<Deployment>> onCore = new ArrayList<>();
    for (int core = 0; core < cores; core++) {
      onCore.add(new ArrayList<>());
    }
    final List<Integer> unpinned = new ArrayList<>();
    for (int i = 0; i < deployments.size(); i++) {
      final Deployment deployment = deployments.get(i);
      utilization[i] = utilization(deployment, node.hardware().speed());
      if (deployment.pinned() && deployment.core() < cores) {
        coreOf[i] = deployment.core();
        onCore.get(coreOf[i]).add(deployment);
        load[coreOf[i]] += utilization[i];
      } else {
        unpinned.add(i);
      }
    }
    unpinned.sort(
        Comparator.comparingDouble((Integer i) -> -utilization[i])
            .thenComparing(i -> deployments.get(i).instance()));
    for (int i : unpinned) {
      int chosen = -1;
      for (int core = 0; core < cores && chosen < 0; core++) {
        if (load[core] + utilization[i] > 1.0) {
          continue; // cannot fit whatever the order
        }
        if (holds == null) {
          chosen = core;
          break;
        }
        final List<Deployment> trial = new ArrayList<>(onCore.get(core));
        trial.add(deployments.get(i));
        if (holds.test(subNode(node, trial))) {
          chosen = core;
        }
      }
      if (chosen < 0) {
        chosen = 0;
        for (int core = 1; core < cores; core++) {
          if (load[core] < load[chosen]) {
            chosen = core;
          }
        }
      }
      coreOf[i] = chosen;
      onCore.get(chosen).add(deployments.get(i));
      load[chosen] += utilization[i];
    }
    final List<NodePlan.Placement> placements = new ArrayList<>();
    for (int i = 0; i < deployments.size(); i++) {
      placements.add(
          new NodePlan.Placement(
              deployments.get(i).instance(),
              coreOf[i],
              deployments.get(i).pinned(),
              utilization[i]));
    }
    return new Result(coreOf, placements);
  }

  /** The load a TMO puts on a core: its SpMs per period and its SvMs per max-rate. */
  static double utilization(Deployment deployment, BigDecimal speed) {
    double sum = 0;
    for (Spm spm : deployment.tmo().spms()) {
      if (spm.periodNs() > 0) {
        sum +=
            (double)
                    (Resources.scale(spm.wcetNs(), speed)
                        + deployment.tmo().callWaitNs(spm.calls()))
                / spm.periodNs();
      }
    }
    for (Svm svm : deployment.tmo().svms()) {
      if (svm.minInterArrivalNs() > 0) {
        sum +=
            (double)
                    (Resources.scale(svm.wcetNs(), speed)
                        + deployment.tmo().callWaitNs(svm.calls()))
                / svm.minInterArrivalNs();
      }
    }
    return sum;
  }

  private static Node subNode(Node node, List<Deployment> deployments) {
    return node.withDeployments(deployments);
  }
}
