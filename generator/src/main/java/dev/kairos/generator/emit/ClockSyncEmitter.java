package dev.kairos.generator.emit;

import dev.kairos.ir.Durations;
import dev.kairos.ir.Platform.ClockSync;
import dev.kairos.ir.Platform.DistributedSystem;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import java.util.Optional;

/**
 * A node's part in its system's clock synchronisation, as its node program holds it: the constexpr
 * table of the model's {@code clock-sync} (is this node the master, where is the master, the
 * period), the {@code kairos::clock::ClockSync} beside the node's ORB, and its steps. The master
 * answers exchanges on its ORB; a follower exchanges with the master every period.
 */
final class ClockSyncEmitter {
  private ClockSyncEmitter() {}

  /** A node's clock synchronisation: its system's clause, and the master's node. */
  record NodeClock(DistributedSystem system, ClockSync clockSync, Node master, boolean isMaster) {}

  /**
   * The clock synchronisation node {@code node} takes part in, if its system has one and the node
   * can reach the master (the master has an endpoint, on a network of the node's kind).
   */
  static Optional<NodeClock> of(SystemModel model, Node node) {
    final Optional<DistributedSystem> system = model.clockSyncedSystemOf(node.name());
    if (system.isEmpty()) {
      return Optional.empty();
    }
    final ClockSync clockSync = system.get().clockSync();
    final Optional<Node> master =
        model.nodes().stream().filter(n -> n.name().equals(clockSync.master())).findFirst();
    if (master.isEmpty() || master.get().endpoint() == null || master.get().os() != node.os()) {
      return Optional.empty();
    }
    return Optional.of(
        new NodeClock(
            system.get(), clockSync, master.get(), master.get().name().equals(node.name())));
  }

  /** The constexpr table, in the node program's anonymous namespace. */
  static void table(CodeWriter w, NodeClock clock) {
    w.line(Banner.origin(clock.clockSync().source()));
    w.comment(
        "Clock synchronisation of system $system$: $role$, a round of exchanges every"
            + " $period$.",
        "system",
        clock.system().name(),
        "role",
        clock.isMaster()
            ? "this node is the master, whose global time the others keep"
            : "this node keeps its global time on master " + clock.master().name() + "'s",
        "period",
        Durations.format(clock.clockSync().periodNs()));
    w.line(
        "constexpr ::kairos::clock::ClockSyncTable kClockSync{.master = $master$, .master_node ="
            + " $name$, .master_endpoint = $endpoint$, .period = ::std::chrono::nanoseconds{$period$}};",
        "master",
        clock.isMaster(),
        "name",
        CppNames.literal(clock.master().name()),
        "endpoint",
        CppNames.literal(clock.master().endpoint()),
        "period",
        clock.clockSync().periodNs());
    w.blank();
  }

  /** Set-up, before the ORB starts: the master answers exchanges, a follower routes them. */
  static void attach(CodeWriter w, NodeClock clock, String masterPeer) {
    if (clock.isMaster()) {
      w.line("// Followers' exchanges are answered at once by the reader of the highest band.");
      open(w, "made.clock.serve(orb)", "cannot answer clock synchronisation");
    } else {
      w.line("// Exchanges with the master, on a connection of their own at the highest band.");
      open(
          w,
          "made.clock.follow(orb, " + masterPeer + ")",
          "cannot synchronise with master " + clock.master().name());
    }
  }

  /** Set-up, once the ORB runs: a follower's exchange thread. */
  static void start(CodeWriter w) {
    open(w, "made.clock.start()", "clock synchronisation could not start");
  }

  private static void open(CodeWriter w, String call, String failure) {
    w.open("if ($call$ != ::kairos::kal::Status::kOk) {", "call", call);
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, $message$);",
        "message",
        CppNames.literal(failure));
    w.line("return false;");
    w.close("}");
  }
}
