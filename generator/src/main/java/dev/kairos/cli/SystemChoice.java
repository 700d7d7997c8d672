package dev.kairos.cli;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TimingPlan;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The system a command runs or deploys (--system), and its nodes. */
final class SystemChoice {
  private SystemChoice() {}

  /** A schedulable system as analysed, and the nodes of it a command runs or deploys. */
  record Chosen(SystemModel system, TimingPlan plan, List<NodePlan> nodes) {}

  /**
   * The nodes of the system named (or the model's only system, or every node of a model without
   * one), or those of them {@code onlyNodes} names; empty after saying what is wrong.
   */
  static Optional<List<NodePlan>> nodes(
      SystemModel system,
      TimingPlan plan,
      String systemName,
      List<String> onlyNodes,
      PrintWriter err) {
    final List<String> names;
    if (systemName != null) {
      final Optional<Platform.DistributedSystem> named =
          system.systems().stream().filter(s -> s.name().equals(systemName)).findFirst();
      if (named.isEmpty()) {
        err.println(
            "kairos: error: --system "
                + systemName
                + ": no such system in the model"
                + systemsClause(system));
        return Optional.empty();
      }
      names = named.get().nodes();
    } else if (system.systems().size() == 1) {
      names = system.systems().get(0).nodes();
    } else if (system.systems().isEmpty()) {
      names = system.nodes().stream().map(Platform.Node::name).toList();
    } else {
      err.println(
          "kairos: error: the model has several systems: name one with --system"
              + systemsClause(system));
      return Optional.empty();
    }
    final List<String> wanted = onlyNodes != null ? onlyNodes : names;
    final List<NodePlan> chosen = new ArrayList<>();
    for (String name : wanted) {
      final Optional<NodePlan> node =
          plan.nodes().stream().filter(n -> n.node().name().equals(name)).findFirst();
      if (!names.contains(name) || node.isEmpty()) {
        err.println(
            "kairos: error: --nodes: "
                + name
                + " is not a node of the system (its nodes: "
                + String.join(", ", names)
                + ")");
        return Optional.empty();
      }
      chosen.add(node.get());
    }
    if (chosen.isEmpty()) {
      err.println("kairos: error: the model has no node to run");
      return Optional.empty();
    }
    return Optional.of(chosen);
  }

  private static String systemsClause(SystemModel system) {
    return system.systems().isEmpty()
        ? ""
        : " (its systems: "
            + String.join(
                ", ", system.systems().stream().map(Platform.DistributedSystem::name).toList())
            + ")";
  }

  /** The name a run or a deployment goes by: the system's, or the model's without one. */
  static String name(SystemModel system, String systemName) {
    if (systemName != null) {
      return systemName;
    }
    return system.systems().size() == 1 ? system.systems().get(0).name() : system.modelName();
  }
}
