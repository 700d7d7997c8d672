package dev.kairos.timing;

import static dev.kairos.timing.HolisticAnalysis.MAX_CHAINS;
import static dev.kairos.timing.HolisticAnalysis.MAX_DEPTH;
import static dev.kairos.timing.HolisticAnalysis.MAX_VISITS;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.ChannelAccess;
import dev.kairos.ir.Tmos.ChannelUse;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.wire.LeastEncodedSize;
import dev.kairos.ir.wire.MaxEncodedSize;
import dev.kairos.ir.wire.OperationMessages;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Who calls whom and who reads what: the structure chains are derived from. */
final class ChainTopology {
  /** A method of a deployed TMO. */
  record Method(Node node, Deployment deployment, Optional<Spm> spm, Optional<Svm> svm) {
    String name() {
      return deployment.instance() + "." + methodName();
    }

    /** The method as its TMO class declares it. */
    Tmos.Method declared() {
      return spm.isPresent() ? spm.get() : svm.orElseThrow();
    }

    String methodName() {
      return declared().name();
    }

    List<String> calls() {
      return declared().calls();
    }

    List<ChannelUse> channelUses() {
      return declared().channelUses();
    }

    Criticality criticality() {
      return declared().criticality();
    }

    /** Period or minimum inter-arrival time; 0 for a one-shot SpM or an SvM without max-rate. */
    long periodNs() {
      return declared().periodNs();
    }
  }

  /** One step of a chain's path, in the order the chain's activation causes them. */
  sealed interface Step {}

  record Release(Method source) implements Step {}

  record Call(Method caller, Gate gate, Method callee) implements Step {}

  record Return(Method callee, Gate gate, Method caller) implements Step {}

  record Publish(Method publisher, Channel channel, Method reader) implements Step {}

  final SystemModel system;
  final MaxEncodedSize sizes;
  final LeastEncodedSize leastSizes;
  final OperationMessages messages;

  /** The service method each gate calls, as SystemModel.callee resolves it (by identity). */
  private final Map<Gate, Method> calleeOf = new java.util.IdentityHashMap<>();

  private final List<Method> spms = new ArrayList<>();
  private final Map<String, List<Method>> readers = new LinkedHashMap<>();
  private int visits;

  /** Whether the walk stopped at {@link #MAX_CHAINS} or {@link #MAX_VISITS}. */
  boolean truncated;

  ChainTopology(SystemModel system) {
    this.system = system;
    this.sizes = new MaxEncodedSize(system);
    this.leastSizes = new LeastEncodedSize(system);
    this.messages = new OperationMessages(sizes);
    for (Node node : system.nodes()) {
      for (Deployment deployment : node.deployments()) {
        for (Spm spm : deployment.tmo().spms()) {
          spms.add(new Method(node, deployment, Optional.of(spm), Optional.empty()));
        }
        for (Gate gate : deployment.tmo().gates()) {
          system
              .callee(gate)
              .ifPresent(
                  c ->
                      calleeOf.put(
                          gate,
                          new Method(
                              c.node(), c.deployment(), Optional.empty(), Optional.of(c.svm()))));
        }
      }
    }
  }

  /** The SpMs that read a channel: a chain follows a sample to the SpMs that read it. */
  private List<Method> spmReaders(String channel) {
    final List<Method> found = new ArrayList<>();
    for (SystemModel.ChannelEnd end : system.channelEnds(channel, ChannelAccess.READ)) {
      if (end.method() instanceof Spm spm) {
        found.add(new Method(end.node(), end.deployment(), Optional.of(spm), Optional.empty()));
      }
    }
    return found;
  }

  /** Every chain from every SpM that crosses at least one node boundary, in model order. */
  List<List<Step>> chains() {
    final List<List<Step>> found = new ArrayList<>();
    visits = 0;
    for (Method source : spms) {
      final List<Step> prefix = new ArrayList<>();
      prefix.add(new Release(source));
      explore(source, prefix, new ArrayDeque<>(), new HashSet<>(Set.of(source.name())), found);
      if (found.size() >= MAX_CHAINS) {
        break;
      }
    }
    return found.size() > MAX_CHAINS ? found.subList(0, MAX_CHAINS) : found;
  }

  /**
   * The paths from {@code method}, active under the calls on {@code callers}: into each gate it
   * calls, along each channel it publishes to a reader on another node, and, where it calls no
   * gate, back through the replies to every caller.
   */
  private void explore(
      Method method,
      List<Step> prefix,
      Deque<Call> callers,
      Set<String> onPath,
      List<List<Step>> found) {
    if (found.size() >= MAX_CHAINS || ++visits > MAX_VISITS) {
      truncated = true;
      return;
    }
    boolean calls = false;
    for (Gate gate : method.deployment().tmo().gates()) {
      if (!method.calls().contains(gate.name())) {
        continue;
      }
      final Method callee = calleeOf.get(gate);
      // A callee already on the path would wait for itself; depth keeps the walk finite.
      if (callee == null || onPath.contains(callee.name()) || callers.size() >= MAX_DEPTH) {
        continue;
      }
      calls = true;
      final Call call = new Call(method, gate, callee);
      final List<Step> next = new ArrayList<>(prefix);
      next.add(call);
      callers.push(call);
      onPath.add(callee.name());
      explore(callee, next, callers, onPath, found);
      onPath.remove(callee.name());
      callers.pop();
    }
    for (ChannelUse use : method.channelUses()) {
      if (use.access() != ChannelAccess.PUBLISH) {
        continue;
      }
      final Optional<Channel> channel =
          method.deployment().tmo().channels().stream()
              .filter(c -> c.name().equals(use.channel()))
              .findFirst();
      for (Method reader : readers.computeIfAbsent(use.channel(), this::spmReaders)) {
        if (channel.isEmpty() || reader.node().name().equals(method.node().name())) {
          continue;
        }
        final List<Step> path = new ArrayList<>(prefix);
        path.add(new Publish(method, channel.get(), reader));
        keepIfCrossing(path, found);
      }
    }
    if (!calls && !callers.isEmpty()) {
      final List<Step> path = new ArrayList<>(prefix);
      for (Call call : callers) {
        path.add(new Return(call.callee(), call.gate(), call.caller()));
      }
      keepIfCrossing(path, found);
    }
  }

  private void keepIfCrossing(List<Step> path, List<List<Step>> found) {
    final boolean crosses =
        path.stream()
            .anyMatch(
                step ->
                    (step instanceof Call call
                            && !call.caller().node().name().equals(call.callee().node().name()))
                        || step instanceof Publish);
    if (crosses && found.size() < MAX_CHAINS) {
      found.add(List.copyOf(path));
    } else if (crosses) {
      truncated = true;
    }
  }

  /** The first network connecting both nodes; none on one node or without a path. */
  Optional<Network> link(Node a, Node b) {
    if (a.name().equals(b.name())) {
      return Optional.empty();
    }
    return system.networks().stream()
        .filter(n -> n.nodes().contains(a.name()) && n.nodes().contains(b.name()))
        .findFirst();
  }

  /** The largest body of a request through the gate to the callee. */
  long requestBytes(Method callee) {
    return callee.svm().flatMap(Svm::signature).map(messages::requestBytes).orElse(0L);
  }

  /** The largest body of the answer; -1 for a oneway, which has none. */
  long answerBytes(Method callee) {
    final Optional<Operation> operation = callee.svm().flatMap(Svm::signature);
    if (operation.map(Operation::oneway).orElse(false)) {
      return EndToEndAnalysis.NO_ANSWER;
    }
    return operation.map(messages::answerBytes).orElse(0L);
  }

  long sampleBytes(Channel channel) {
    return sizes.body(List.of(channel.type()));
  }

  /** The fewest bytes of a request's body through the gate to the callee. */
  long leastRequestBytes(Method callee) {
    return callee
        .svm()
        .flatMap(Svm::signature)
        .map(o -> leastSizes.body(OperationMessages.types(OperationMessages.request(o))))
        .orElse(0L);
  }

  /**
   * The fewest bytes of the answer's body: its reply's, or an exception's index alone where it
   * raises any.
   */
  long leastAnswerBytes(Method callee) {
    final Optional<Operation> operation = callee.svm().flatMap(Svm::signature);
    if (operation.isEmpty()) {
      return 0;
    }
    final long reply =
        leastSizes.body(OperationMessages.types(OperationMessages.reply(operation.get())));
    return operation.get().raises().isEmpty() ? reply : Math.min(reply, 4);
  }

  long leastSampleBytes(Channel channel) {
    return leastSizes.body(List.of(channel.type()));
  }
}
