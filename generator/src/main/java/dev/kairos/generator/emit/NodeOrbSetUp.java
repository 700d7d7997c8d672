package dev.kairos.generator.emit;

import static dev.kairos.generator.emit.NodeProgramEmitter.check;
import static dev.kairos.generator.emit.NodeProgramEmitter.dispatcher;
import static dev.kairos.generator.emit.NodeProgramEmitter.osName;
import static dev.kairos.generator.emit.NodeProgramEmitter.reachable;

import dev.kairos.generator.emit.RemoteCalls.ResolvedGate;
import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ServiceRates;
import dev.kairos.timing.TaskReport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ORB part of a node program: its listening endpoint and bands, its peers and routes, the gates
 * of its TMOs bound to their routes, and the lines that print each gate's calls beside the analysed
 * round-trip bound.
 */
final class NodeOrbSetUp {
  private NodeOrbSetUp() {}

  /** The ORB: what the node serves, the peers and routes its gates call, their binding. */
  static void orb(
      CodeWriter w,
      SystemModel system,
      Node node,
      NodePlan report,
      List<ResolvedGate> gates,
      boolean serves,
      Optional<ClockSyncEmitter.NodeClock> clock,
      List<RemoteCalls.Caller> callers) {
    w.comment(
        "Remote calls: the ORB serves this node's service methods and carries its gates' calls,"
            + " on one connection per (peer, band, calling lane) set up before the run.");
    w.line("auto& orb = made.orb;");
    final boolean clockMaster = clock.isPresent() && clock.get().isMaster();
    final boolean listens = serves || clockMaster;
    requireIdentity(w, system, node, listens, gates, clock);
    if (listens) {
      check(
          w,
          "orb.listen("
              + CppNames.literal(node.endpoint())
              + (system.authenticates(node) ? ", /*authenticate=*/true" : "")
              + ")",
          "cannot listen on " + node.endpoint());
    }
    if (serves) {
      if (node.endpoint().startsWith("udp:")) {
        w.comment(
            "Over UDP the node takes oneways only, one datagram each: band b's arrive on port"
                + " $port$ + b.",
            "port",
            node.endpoint().substring(node.endpoint().lastIndexOf(':') + 1));
      }
      final Set<Integer> bands = new TreeSet<>();
      for (TaskReport task : report.tasks()) {
        if (task.kind() == TaskReport.Kind.SVM) {
          bands.add(task.band());
        }
      }
      for (int band : bands) {
        check(w, "orb.serve_band(" + band + ")", "cannot serve band " + band);
      }
      for (Deployment deployment : node.deployments()) {
        if (!deployment.tmo().svms().isEmpty()) {
          final int object = RemoteCalls.objectOf(node, deployment);
          check(
              w,
              "orb.add_object(" + object + ", &" + dispatcher(deployment) + ", &engine)",
              "cannot serve " + deployment.instance());
        }
      }
      accessList(w, node, report, callers, clock.filter(ClockSyncEmitter.NodeClock::isMaster));
    }
    final Map<String, String> peers = new LinkedHashMap<>();
    for (ResolvedGate gate : gates) {
      final Node callee = gate.calleeNode();
      if (reachable(node, callee) && !peers.containsKey(callee.name())) {
        final String peer = "peer_" + callee.name();
        peers.put(callee.name(), peer);
        w.line("::std::uint8_t $peer$ = 0;", "peer", peer);
        check(
            w,
            "orb.add_peer("
                + CppNames.literal(callee.endpoint())
                + ", "
                + peer
                + provenAs(system, callee)
                + ")",
            "cannot call node " + callee.name() + " at " + callee.endpoint());
      }
    }
    final Set<String> routes = new HashSet<>();
    for (ResolvedGate gate : gates) {
      if (!reachable(node, gate.calleeNode())) {
        w.comment(
            "gate $caller$.$gate$ is not bound: node $node$ $why$.",
            "caller",
            gate.caller().instance(),
            "gate",
            gate.gate().name(),
            "node",
            gate.calleeNode().name(),
            "why",
            gate.calleeNode().endpoint() == null
                ? "has no endpoint on a network"
                : "runs on " + osName(gate.calleeNode()) + ", this node on " + osName(node));
        continue;
      }
      for (RemoteCalls.Lane lane : gate.callerLanes()) {
        // Gates of one instance to one server band share their lanes' connections.
        final String route =
            "orb.add_route("
                + peers.get(gate.calleeNode().name())
                + ", "
                + gate.band()
                + ", "
                + lane.core()
                + ", "
                + lane.band()
                + (lane.slot() == 0 ? "" : ", " + lane.slot())
                + ")";
        if (routes.add(route)) {
          check(
              w, route, "no route for gate " + gate.caller().instance() + "." + gate.gate().name());
        }
      }
    }
    for (Deployment deployment : node.deployments()) {
      final List<ResolvedGate> own =
          gates.stream()
              .filter(g -> g.caller().equals(deployment) && reachable(node, g.calleeNode()))
              .toList();
      if (own.isEmpty()) {
        continue;
      }
      final List<String> targets = new ArrayList<>();
      for (ResolvedGate gate : own) {
        targets.add(
            "."
                + gate.gate().name()
                + " = {.peer = "
                + peers.get(gate.calleeNode().name())
                + ", .band = "
                + gate.band()
                + ", .object = "
                + gate.object()
                + ", .operation = "
                + gate.operation()
                + "}");
      }
      w.parenthesized("deployed::" + deployment.instance() + ".bind_gates(orb, {", targets, "});");
    }
    if (clock.isPresent()) {
      final Node master = clock.get().master();
      if (!clock.get().isMaster() && !peers.containsKey(master.name())) {
        final String peer = "peer_" + master.name();
        peers.put(master.name(), peer);
        w.line("::std::uint8_t $peer$ = 0;", "peer", peer);
        check(
            w,
            "orb.add_peer("
                + CppNames.literal(master.endpoint())
                + ", "
                + peer
                + provenAs(system, master)
                + ")",
            "cannot reach clock master " + master.name() + " at " + master.endpoint());
      }
      ClockSyncEmitter.attach(w, clock.get(), peers.get(master.name()));
    }
    w.open(
        "if (const ::kairos::kal::Status started = orb.start();"
            + " started != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::report_failure(kNode, $what$, started);",
        "what",
        CppNames.literal(
            serves || clockMaster
                ? "the ORB could not start listening on " + node.endpoint()
                : "the ORB could not start"));
    w.line("return false;");
    w.close("}");
    if (clock.isPresent()) {
      ClockSyncEmitter.start(w);
    }
  }

  /** A rate as the access list's comments say it: "10/s". */
  private static String perSecond(double hz) {
    return new java.math.BigDecimal(hz)
            .round(new java.math.MathContext(4))
            .stripTrailingZeros()
            .toPlainString()
        + "/s";
  }

  /** The arrival jitter the analysis gave the requests of the service method `gate` calls. */
  private static long arrivalJitterNs(NodePlan report, String instance, ResolvedGate gate) {
    return report.tasks().stream()
        .filter(task -> task.kind() == TaskReport.Kind.SVM)
        .filter(task -> task.instance().equals(instance))
        .filter(task -> task.method().equals(gate.svm().name()))
        .mapToLong(TaskReport::jitterNs)
        .findFirst()
        .orElse(0);
  }

  /** A line per gate after the run: its calls beside the round trip the analysis bounds. */
  static void gateSummaries(CodeWriter w, List<ResolvedGate> gates) {
    for (ResolvedGate gate : gates) {
      final long bound = gate.roundTripBoundNs();
      final String accessor =
          "deployed::" + gate.caller().instance() + ".gates()." + gate.gate().name();
      w.line(
          "::kairos::print_gate(kNode, $name$, $callee$, $gate$.counters(),"
              + " ::std::chrono::nanoseconds{$bound$}, $gate$.deadline());",
          "name",
          CppNames.literal(gate.caller().instance() + "." + gate.gate().name()),
          "callee",
          CppNames.literal(gate.callee().instance() + "." + gate.svm().name()),
          "gate",
          accessor,
          "bound",
          bound);
    }
  }

  /**
   * The model as the access list: each node may invoke here the operations its gates name, and no
   * other (the followers of the clock this node is master of, its clock); a node no gate of another
   * node calls refuses every request. Each (node, operation) gets its share of the method's
   * max-rate as a budget of its own, so that a node that floods takes nothing from the others'
   * share.
   */
  private static void accessList(
      CodeWriter w,
      Node node,
      NodePlan report,
      List<RemoteCalls.Caller> callers,
      Optional<ClockSyncEmitter.NodeClock> mastersClock) {
    final List<String> clockFollowers =
        mastersClock.stream()
            .flatMap(clock -> clock.system().nodes().stream())
            .filter(name -> !name.equals(node.name()))
            .toList();
    w.comment(
        "The model is the access list: a node may invoke here what its gates name, nothing else"
            + " (a request beyond it is refused, kNotPermitted), at most at its share of the"
            + " method's max-rate, with the arrival jitter the analysis counted for its calls (a"
            + " request sooner than that is refused, kRateExceeded).");
    if (callers.isEmpty() && clockFollowers.isEmpty()) {
      w.line("// No gate of another node calls this one.");
      check(w, "orb.permit_only({})", "cannot set the node's callers");
      return;
    }
    // One entry per (node, object, operation): the gates of a node that call one operation share
    // its budget.
    final Map<String, List<RemoteCalls.Caller>> entries = new LinkedHashMap<>();
    for (RemoteCalls.Caller caller : callers) {
      final ResolvedGate gate = caller.gate();
      entries
          .computeIfAbsent(
              caller.node().name() + "/" + gate.object() + "/" + gate.operation(),
              key -> new ArrayList<>())
          .add(caller);
    }
    // Each calling node has connection slots of its own: as many as its routes here (one per
    // server band and calling lane, as it adds them) and the clock's.
    final Map<String, Set<String>> routes = new LinkedHashMap<>();
    for (RemoteCalls.Caller caller : callers) {
      for (RemoteCalls.Lane lane : caller.gate().callerLanes()) {
        routes
            .computeIfAbsent(caller.node().name(), n -> new HashSet<>())
            .add(caller.gate().band() + "/" + lane);
      }
    }
    for (String follower : clockFollowers) {
      routes.computeIfAbsent(follower, n -> new HashSet<>()).add("clock");
    }
    w.open("static constexpr ::kairos::orb::CallerPermit kCallers[] = {");
    for (List<RemoteCalls.Caller> gates : entries.values()) {
      final ResolvedGate first = gates.get(0).gate();
      final double callsPerSecond =
          gates.stream().mapToDouble(RemoteCalls.Caller::callsPerSecond).sum();
      final Optional<ServiceRates.Report> rate = gates.get(0).rate();
      // The node's share of the method's max-rate: max-rate split among the calling nodes as
      // their gates' rates are (all of it for a lone caller; where the callers together call
      // more often than max-rate, the node gets its part of max-rate, not what it calls at).
      final boolean budgeted =
          rate.isPresent() && callsPerSecond > 0 && !Double.isInfinite(rate.get().callsPerSecond());
      final double shareHz =
          budgeted ? rate.get().maxRateHz() * callsPerSecond / rate.get().callsPerSecond() : 0;
      final long intervalNs = budgeted ? (long) Math.floor(1e9 / shareHz) : 0;
      // The node's methods call independently, as the callers of the method do together: up
      // to (methods - 1) intervals early, with the jitter the analysis gives the chains'
      // requests (the method's arrival jitter less its callers' burst). Every caller's budget so
      // kept, their requests together keep to what the method's max-rate admits.
      final int methods = gates.stream().mapToInt(RemoteCalls.Caller::methods).sum();
      final long chainJitterNs =
          budgeted
              ? Math.max(
                  0,
                  arrivalJitterNs(report, first.callee().instance(), first)
                      - rate.get().burstJitterNs())
              : 0;
      final long toleranceNs = budgeted ? Math.max(0, methods - 1) * intervalNs + chainJitterNs : 0;
      w.line(
          "// $gates$ -> $callee$.$method$: $rate$",
          "gates",
          String.join(
              ", ",
              gates.stream()
                  .map(
                      c ->
                          c.gate().caller().instance()
                              + "."
                              + c.gate().gate().name()
                              + " ("
                              + c.gate().gate().source()
                              + ")")
                  .toList()),
          "callee",
          first.callee().instance(),
          "method",
          first.svm().name(),
          "rate",
          budgeted
              ? perSecond(callsPerSecond) + ", budget " + perSecond(shareHz)
              : "no budget: " + (rate.isEmpty() ? "no max-rate" : "a caller unbounded"));
      w.line(
          "{$node$, $object$, $operation$, ::std::chrono::nanoseconds{$interval$},"
              + " ::std::chrono::nanoseconds{$tolerance$}, $connections$},",
          "node",
          CppNames.literal(gates.get(0).node().name()),
          "object",
          first.object(),
          "operation",
          first.operation(),
          "interval",
          intervalNs,
          "tolerance",
          toleranceNs,
          "connections",
          routes.get(gates.get(0).node().name()).size());
    }
    for (String follower : clockFollowers) {
      w.line(
          "{$node$, ::kairos::clock::kSyncObject, 0, {}, {}, $connections$},"
              + "  // clock synchronisation of system $system$",
          "node",
          CppNames.literal(follower),
          "connections",
          routes.get(follower).size(),
          "system",
          mastersClock.get().system().name());
    }
    w.close("};");
    check(w, "orb.permit_only(kCallers)", "cannot set the node's callers");
  }

  /**
   * A node whose tcp: connections are authenticated, listening or calling, cannot set up without
   * its identity: the generated set-up says so, and how to give it, before anything listens.
   */
  private static void requireIdentity(
      CodeWriter w,
      SystemModel system,
      Node node,
      boolean listens,
      List<ResolvedGate> gates,
      Optional<ClockSyncEmitter.NodeClock> clock) {
    final Set<String> provers = new TreeSet<>();
    if (listens && system.authenticates(node)) {
      provers.add(node.name());
    }
    for (ResolvedGate gate : gates) {
      if (reachable(node, gate.calleeNode()) && system.authenticates(gate.calleeNode())) {
        provers.add(gate.calleeNode().name());
      }
    }
    clock
        .filter(c -> !c.isMaster() && system.authenticates(c.master()))
        .ifPresent(c -> provers.add(c.master().name()));
    if (provers.isEmpty()) {
      return;
    }
    w.comment(
        "tcp: connections of $nodes$ are authenticated (TLS 1.3, a certificate of the system's CA"
            + " per node): this node proves who it is with its keys.",
        "nodes",
        String.join(", ", provers));
    w.open("if (options.identity == nullptr) {");
    w.line("::kairos::report_missing_identity(options, kNode);");
    w.line("return false;");
    w.close("}");
  }

  /** add_peer's last argument for a callee whose tcp: endpoint is authenticated: its name. */
  private static String provenAs(SystemModel system, Node callee) {
    return system.authenticates(callee) ? ", " + CppNames.literal(callee.name()) : "";
  }
}
