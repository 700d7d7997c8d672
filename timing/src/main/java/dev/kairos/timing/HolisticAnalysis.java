package dev.kairos.timing;

import static dev.kairos.timing.EndToEndAnalysis.saturatedSum;

import dev.kairos.ir.Platform;
import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.ChannelAccess;
import dev.kairos.ir.Tmos.ChannelUse;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.wire.Frames;
import dev.kairos.ir.wire.LeastEncodedSize;
import dev.kairos.ir.wire.MaxEncodedSize;
import dev.kairos.ir.wire.OperationMessages;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Holistic end-to-end analysis (Tindell and Clark, "Holistic schedulability analysis for
 * distributed hard real-time systems", Microprocessing and Microprogramming 40, 1994, as MAST
 * implements it): response times along chains that cross nodes, with the release jitter each hop
 * passes on to the next.
 *
 * <p>A chain starts at an SpM (strictly periodic: no jitter of its own) and follows what its
 * activation causes: a request through a gate to a service method on another node, that method's
 * own calls and channel samples, the replies back to each caller; or a sample it publishes, read on
 * another node by a time-triggered SpM, which ends the chain. Each hop has a window of end times
 * from the chain's release: a message leaves between its sender's activation and that activation's
 * response without its own gate waits; it arrives after the network's latency and the transmission
 * of its smallest frame at the earliest and after latency + jitter + its queueing and transmission
 * on the link at the latest (the network is a resource of its own: every network is one shared
 * medium on which the frames of all chains queue, first in first out, each counted as if it went
 * first); a service method completes between its request's arrival and that arrival's latest plus
 * its response on its node. The width of the window in which a service method's requests arrive is
 * its release jitter J, which raises the interference it causes on its node: ceil((w + J) / T)
 * activations in a window w (the response-time analysis of {@link SchedulingAnalysis} with jitter
 * terms; under EDF, its demand as a job with deadline D - J). Best-case execution times are not
 * modelled: every method may finish at once, which keeps the jitter on the safe side.
 *
 * <p>Response times depend on jitters and jitters on response times: the nodes are analysed again
 * with the jitters of the last pass until nothing changes (a fixed point, reached from zero jitter
 * by growing values), or up to {@link #MAX_ITERATIONS} passes, after which the analysis has
 * diverged and the system is not schedulable; so it has too when a hop has no bound (a method
 * without a bounded response), whose jitter then has none either. A model whose chains never cross
 * a node is analysed once, exactly as without this analysis.
 */
public final class HolisticAnalysis {
  /** Passes over the nodes before the iteration counts as diverged. */
  public static final int MAX_ITERATIONS = 64;

  /** Chains derived at most; a model with more reports the first ones. */
  public static final int MAX_CHAINS = 1024;

  /** Hops of calls a chain follows at most (a call path deeper than this is not followed). */
  static final int MAX_DEPTH = 16;

  /**
   * Methods visited at most while deriving chains: call trees that fan out on one node without
   * crossing to another could otherwise take exponential time to walk.
   */
  public static final int MAX_VISITS = 100_000;

  private HolisticAnalysis() {}

  public static AnalysisReport analyse(SystemModel system) {
    return analyse(system, SchedulingAnalysis::analyse);
  }

  /**
   * As {@link #analyse(SystemModel)}, with the first pass over the nodes (no jitter) from {@code
   * withoutJitter}: a caller that keeps the reports of nodes that did not change (the language
   * server) gives them here.
   */
  public static AnalysisReport analyse(
      SystemModel system, java.util.function.Function<Node, NodeReport> withoutJitter) {
    final Topology topology = new Topology(system);
    final List<List<Step>> paths = topology.chains();
    final List<ServiceRates.Report> rates = ServiceRates.analyse(system);
    final Map<String, Long> bursts = ServiceRates.burstJitter(rates);
    Map<String, Long> serviceJitter = Map.of();
    Map<String, Long> messageJitter = Map.of();
    List<NodeReport> nodes =
        bursts.isEmpty()
            ? system.nodes().stream().map(withoutJitter).toList()
            : analyseNodes(system, bursts);
    if (paths.isEmpty()) {
      return new AnalysisReport(
          nodes,
          EndToEndAnalysis.analyse(system, nodes),
          List.of(),
          AnalysisReport.Holistic.NONE,
          rates);
    }
    int iteration = 1;
    while (true) {
      final Pass pass = new Pass(topology, paths, nodes, serviceJitter, messageJitter);
      final List<ChainReport> chains = paths.stream().map(pass::evaluate).toList();
      final boolean settled =
          pass.serviceJitter.equals(serviceJitter) && pass.messageJitter.equals(messageJitter);
      // A hop without a bound passes on a jitter without one: no later pass can settle.
      final boolean unbounded = chains.stream().anyMatch(c -> c.boundNs() < 0);
      if (unbounded) {
        return new AnalysisReport(
            nodes,
            EndToEndAnalysis.analyse(system, nodes),
            chains.stream().map(HolisticAnalysis::diverged).toList(),
            new AnalysisReport.Holistic(iteration, false, !topology.truncated),
            rates);
      }
      if (settled || iteration >= MAX_ITERATIONS) {
        return new AnalysisReport(
            nodes,
            EndToEndAnalysis.analyse(system, nodes),
            settled ? chains : chains.stream().map(HolisticAnalysis::diverged).toList(),
            new AnalysisReport.Holistic(iteration, settled, !topology.truncated),
            rates);
      }
      serviceJitter = pass.serviceJitter;
      messageJitter = pass.messageJitter;
      nodes = analyseNodes(system, ServiceRates.withBursts(serviceJitter, bursts));
      iteration++;
    }
  }

  /** Without a fixed point the last pass bounds nothing: no chain is guaranteed. */
  private static ChainReport diverged(ChainReport chain) {
    return new ChainReport(
        chain.name(),
        chain.source(),
        chain.periodNs(),
        chain.hard(),
        chain.hops(),
        -1,
        chain.limits(),
        false,
        chain.sourceRef());
  }

  private static List<NodeReport> analyseNodes(SystemModel system, Map<String, Long> jitter) {
    return system.nodes().stream().map(node -> SchedulingAnalysis.analyse(node, jitter)).toList();
  }

  /** A method of a deployed TMO. */
  record Method(Node node, Deployment deployment, Optional<Spm> spm, Optional<Svm> svm) {
    String name() {
      return deployment.instance() + "." + methodName();
    }

    String methodName() {
      return spm.map(Spm::name).orElseGet(() -> svm.orElseThrow().name());
    }

    List<String> calls() {
      return spm.map(Spm::calls).orElseGet(() -> svm.orElseThrow().calls());
    }

    List<ChannelUse> channelUses() {
      return spm.map(Spm::channelUses).orElseGet(() -> svm.orElseThrow().channelUses());
    }

    Criticality criticality() {
      return spm.map(Spm::criticality).orElseGet(() -> svm.orElseThrow().criticality());
    }

    /** Period or minimum inter-arrival time; 0 for a one-shot SpM or an SvM without max-rate. */
    long periodNs() {
      return spm.map(Spm::periodNs).orElseGet(() -> svm.orElseThrow().minInterArrivalNs());
    }
  }

  /** One step of a chain's path, in the order the chain's activation causes them. */
  sealed interface Step {}

  record Release(Method source) implements Step {}

  record Call(Method caller, Gate gate, Method callee) implements Step {}

  record Return(Method callee, Gate gate, Method caller) implements Step {}

  record Publish(Method publisher, Channel channel, Method reader) implements Step {}

  /** Who calls whom and who reads what: the structure chains are derived from. */
  static final class Topology {
    final SystemModel system;
    final MaxEncodedSize sizes;
    final LeastEncodedSize leastSizes;
    final OperationMessages messages;
    private final Map<String, Method> svmsByClass = new HashMap<>();
    private final List<Method> spms = new ArrayList<>();
    private final Map<String, List<Method>> readers = new LinkedHashMap<>();
    private int visits;

    /** Whether the walk stopped at {@link #MAX_CHAINS} or {@link #MAX_VISITS}. */
    boolean truncated;

    Topology(SystemModel system) {
      this.system = system;
      this.sizes = new MaxEncodedSize(system);
      this.leastSizes = new LeastEncodedSize(system);
      this.messages = new OperationMessages(sizes);
      for (Node node : system.nodes()) {
        for (Deployment deployment : node.deployments()) {
          for (Spm spm : deployment.tmo().spms()) {
            final Method method = new Method(node, deployment, Optional.of(spm), Optional.empty());
            spms.add(method);
            for (ChannelUse use : spm.channelUses()) {
              if (use.access() == ChannelAccess.READ) {
                readers.computeIfAbsent(use.channel(), c -> new ArrayList<>()).add(method);
              }
            }
          }
          for (Svm svm : deployment.tmo().svms()) {
            svmsByClass.putIfAbsent(
                deployment.tmo().qualifiedName() + "." + svm.name(),
                new Method(node, deployment, Optional.empty(), Optional.of(svm)));
          }
        }
      }
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
        final Method callee = svmsByClass.get(gate.calleeTmo() + "." + gate.calleeMethod());
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
        for (Method reader : readers.getOrDefault(use.channel(), List.of())) {
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

  /**
   * A stream of frames on a network: one per message of a chain (a gate's requests or replies, or a
   * channel's samples to one reader's node), with the time on the link of its largest frame and of
   * its smallest, and its period.
   */
  record Stream(
      String key, String network, long transmissionNs, long leastTransmissionNs, long periodNs) {}

  /** A window of end times from the chain's release; latest -1 when unbounded. */
  record Window(long earliest, long latest) {
    boolean bounded() {
      return latest >= 0;
    }
  }

  /**
   * One pass over the chains with the nodes' reports of this iteration and the messages' jitters of
   * the last: the chains' bounds, and the jitters for the next iteration.
   */
  static final class Pass {
    private final Topology topology;
    private final Map<String, TaskReport> tasks = new HashMap<>();
    private final Map<String, Long> lastMessageJitter;
    private final Map<String, Long> requestJitter;
    private final Map<String, Long> hubWaits = new HashMap<>();
    private final Map<String, Stream> streams = new LinkedHashMap<>();
    final Map<String, Long> serviceJitter = new HashMap<>();
    final Map<String, Long> messageJitter = new HashMap<>();

    Pass(
        Topology topology,
        List<List<Step>> paths,
        List<NodeReport> nodes,
        Map<String, Long> requestJitter,
        Map<String, Long> lastMessageJitter) {
      this.topology = topology;
      this.requestJitter = requestJitter;
      this.lastMessageJitter = lastMessageJitter;
      for (NodeReport node : nodes) {
        node.tasks().forEach(t -> tasks.putIfAbsent(t.name(), t));
      }
      for (List<Step> path : paths) {
        for (Step step : path) {
          declareStreams(step);
        }
      }
    }

    private void declareStreams(Step step) {
      if (step instanceof Call call) {
        final long period = call.caller().periodNs();
        stream(
            requestKey(call.caller(), call.gate()),
            call.caller(),
            call.callee(),
            topology.requestBytes(call.callee()),
            topology.leastRequestBytes(call.callee()),
            Frames.HEADER_BYTES,
            period);
        final long answer = topology.answerBytes(call.callee());
        if (answer != EndToEndAnalysis.NO_ANSWER) {
          stream(
              replyKey(call.caller(), call.gate()),
              call.callee(),
              call.caller(),
              answer,
              topology.leastAnswerBytes(call.callee()),
              Frames.HEADER_BYTES,
              period);
        }
      } else if (step instanceof Publish publish) {
        stream(
            sampleKey(publish),
            publish.publisher(),
            publish.reader(),
            topology.sampleBytes(publish.channel()),
            topology.leastSampleBytes(publish.channel()),
            Frames.SAMPLE_HEADER_BYTES,
            publish.publisher().periodNs());
      }
    }

    /**
     * A stream's frames: its largest as a frame of the ORB (the most a message puts on the link),
     * its smallest with {@code leastHeader}, the header it carries at the least (a frame's for a
     * request or a reply; a channel sample's, shorter, where the hub sends the sample itself).
     */
    private void stream(
        String key,
        Method from,
        Method to,
        long bytes,
        long leastBytes,
        int leastHeader,
        long periodNs) {
      topology
          .link(from.node(), to.node())
          .ifPresent(
              network ->
                  streams.putIfAbsent(
                      key,
                      new Stream(
                          key,
                          network.name(),
                          Frames.serialisationNs(bytes, network.bitsPerSecond()),
                          Frames.serialisationNs(leastBytes, leastHeader, network.bitsPerSecond()),
                          periodNs)));
    }

    private static String requestKey(Method caller, Gate gate) {
      return "request " + caller.deployment().instance() + "." + gate.name();
    }

    private static String replyKey(Method caller, Gate gate) {
      return "reply " + caller.deployment().instance() + "." + gate.name();
    }

    private static String sampleKey(Publish publish) {
      return "sample "
          + publish.channel().name()
          + " from "
          + publish.publisher().name()
          + " to "
          + publish.reader().node().name();
    }

    /**
     * The longest a frame of {@code key} takes on its network from being sent, its own transmission
     * included: every other stream's frames may go first, as many as arrive in the window with
     * their jitter (non-preemptive, first in first out: w = sum over the others of (floor((w + J) /
     * T) + 1) C, then + its own C); -1 when the network's load does not let w settle.
     */
    long[] queueing(String key) {
      final Stream own = streams.get(key);
      if (own == null || own.transmissionNs() == 0) {
        return new long[] {own == null ? 0 : own.transmissionNs(), 0};
      }
      long wait = 0;
      try {
        for (int iteration = 0; iteration < 10_000; iteration++) {
          long next = 0;
          for (Stream other : streams.values()) {
            if (other.key().equals(key) || !other.network().equals(own.network())) {
              continue;
            }
            final long jitter = lastMessageJitter.getOrDefault(other.key(), 0L);
            final long frames =
                other.periodNs() > 0
                    ? Math.floorDiv(Math.addExact(wait, jitter), other.periodNs()) + 1
                    : 1;
            next = Math.addExact(next, Math.multiplyExact(frames, other.transmissionNs()));
          }
          if (next == wait) {
            return new long[] {own.transmissionNs(), wait};
          }
          wait = next;
        }
      } catch (ArithmeticException beyond64Bits) {
        // falls through: unbounded
      }
      return new long[] {own.transmissionNs(), -1};
    }

    /** The chain's hops, bound and limits; records the jitters it passes on. */
    ChainReport evaluate(List<Step> path) {
      final Method source = ((Release) path.get(0)).source();
      final List<ChainReport.Hop> hops = new ArrayList<>();
      final List<ChainReport.Limit> limits = new ArrayList<>();
      final StringBuilder name = new StringBuilder(source.name());
      boolean hard = source.criticality() == Criticality.HARD;
      // The activation windows of the methods waiting on calls, innermost first, and the latest
      // instant each call's request left.
      final Deque<Window> activations = new ArrayDeque<>();
      final Deque<Long> sentLatest = new ArrayDeque<>();
      Window current = new Window(0, 0);
      hops.add(
          hop(ChainReport.HopKind.RELEASE, source.name() + " released", source, current, 0, 0));
      Window completed = null;
      for (Step step : path.subList(1, path.size())) {
        if (step instanceof Call call) {
          hard &= call.callee().criticality() == Criticality.HARD;
          name.append(" -[gate ")
              .append(call.gate().name())
              .append("]-> ")
              .append(call.callee().name());
          // It sends before it waits for this call's reply, which the analysis counts as
          // execution after the send.
          final Window sent = sent(call.caller(), current, call.gate().replyWaitNs());
          hops.add(
              hop(
                  ChainReport.HopKind.SEND,
                  call.caller().name() + " calls " + call.gate().name(),
                  call.caller(),
                  sent,
                  0,
                  0));
          final Window arrived =
              network(
                  hops,
                  "request " + call.caller().deployment().instance() + "." + call.gate().name(),
                  requestKey(call.caller(), call.gate()),
                  call.caller(),
                  call.callee(),
                  sent);
          activations.push(current);
          sentLatest.push(sent.latest());
          current = arrived;
          if (arrived.bounded()) {
            serviceJitter.merge(
                call.callee().name(), arrived.latest() - arrived.earliest(), Math::max);
          }
        } else if (step instanceof Return back) {
          // A callee that made calls of its own completed with its last reply (RESUME above).
          final Window done = completed != null ? completed : completes(back.callee(), current);
          if (completed == null) {
            hops.add(
                hop(
                    ChainReport.HopKind.SERVE,
                    back.callee().name() + " completes",
                    back.callee(),
                    done,
                    0,
                    0));
          }
          completed = null;
          final boolean oneway = topology.answerBytes(back.callee()) == EndToEndAnalysis.NO_ANSWER;
          final Window replied =
              oneway
                  ? done
                  : network(
                      hops,
                      "reply " + back.caller().deployment().instance() + "." + back.gate().name(),
                      replyKey(back.caller(), back.gate()),
                      back.callee(),
                      back.caller(),
                      done);
          final long sent = sentLatest.pop();
          final long roundTrip = replied.bounded() && sent >= 0 ? replied.latest() - sent : -1;
          limits.add(
              new ChainReport.Limit(
                  ChainReport.LimitKind.GATE_DEADLINE,
                  back.caller().deployment().instance(),
                  back.gate().name(),
                  "",
                  roundTrip,
                  back.gate().deadlineNs(),
                  roundTrip >= 0 && roundTrip <= back.gate().deadlineNs(),
                  back.gate().source()));
          current = activations.pop();
          final Window resumed = completes(back.caller(), current);
          completed =
              new Window(
                  replied.earliest(),
                  resumed.bounded() && replied.bounded()
                      ? Math.max(resumed.latest(), replied.latest())
                      : -1);
          hops.add(
              hop(
                  ChainReport.HopKind.RESUME,
                  back.caller().name()
                      + (oneway
                          ? " completes, its oneway call " + back.gate().name() + " served"
                          : " has its reply and completes"),
                  back.caller(),
                  completed,
                  0,
                  0));
        } else if (step instanceof Publish publish) {
          hard &= publish.reader().criticality() == Criticality.HARD;
          name.append(" -[channel ")
              .append(publish.channel().name())
              .append("]-> ")
              .append(publish.reader().name());
          // The method puts the sample in its ring; its node's hub sends it on.
          // A sample may be the last thing the method does, after every reply it waited for.
          final Window published =
              afterHub(sent(publish.publisher(), current, 0), publish.publisher().node());
          hops.add(
              hop(
                  ChainReport.HopKind.PUBLISH,
                  publish.publisher().name() + " publishes " + publish.channel().name() + ", sent",
                  publish.publisher(),
                  published,
                  0,
                  0));
          final Window arrived =
              network(
                  hops,
                  "sample " + publish.channel().name(),
                  sampleKey(publish),
                  publish.publisher(),
                  publish.reader(),
                  published);
          // The reader's node's hub hands it to the reader's history (between Linux nodes DDS's
          // own threads carry it there first).
          final Window delivered =
              afterHub(throughTransport(arrived, publish), publish.reader().node());
          hops.add(
              hop(
                  ChainReport.HopKind.DELIVER,
                  "delivered to " + publish.reader().deployment().instance() + "'s history",
                  publish.reader(),
                  delivered,
                  0,
                  0));
          completed = read(publish.reader(), delivered);
          hops.add(
              hop(
                  ChainReport.HopKind.READ,
                  publish.reader().name() + " reads " + publish.channel().name() + " and completes",
                  publish.reader(),
                  completed,
                  0,
                  0));
          limits.add(validity(publish, current, published, delivered));
        }
      }
      final long bound = hops.get(hops.size() - 1).latestNs();
      final boolean bounded = hops.stream().allMatch(h -> h.latestNs() >= 0);
      final boolean meets = bounded && limits.stream().allMatch(ChainReport.Limit::meets);
      return new ChainReport(
          name.toString(),
          source.name(),
          source.periodNs(),
          hard,
          List.copyOf(hops),
          bounded ? bound : -1,
          List.copyOf(limits),
          meets,
          source.spm().orElseThrow().source());
    }

    private ChainReport.Hop hop(
        ChainReport.HopKind kind,
        String what,
        Method where,
        Window window,
        long transmission,
        long queueing) {
      return new ChainReport.Hop(
          kind,
          what,
          where.node().name(),
          window.earliest(),
          window.latest(),
          transmission,
          queueing);
    }

    /** The method's response on its node; -1 when it has none. */
    private long response(Method method) {
      final TaskReport task = tasks.get(method.name());
      return task == null ? -1 : task.responseTimeNs();
    }

    /**
     * When a method activated in {@code activation} sends (a request or a sample) that it then
     * waits {@code waitAfter} for, at most, before it completes: at once at the earliest; at the
     * latest by its response less that wait, which the analysis counts as execution after the send
     * (had the wait been that long, the method would still have completed within its response).
     * Only that wait: the method may have waited for its other gates' replies before it sent, and a
     * sample it may publish after all of them, as it completes.
     */
    private Window sent(Method method, Window activation, long waitAfter) {
      if (!activation.bounded()) {
        return activation;
      }
      final long response = response(method);
      if (response < 0) {
        return new Window(activation.earliest(), -1);
      }
      return new Window(
          activation.earliest(),
          saturatedSum(activation.latest(), Math.max(0, response - waitAfter)));
    }

    /**
     * A sample between two Linux nodes goes through Cyclone DDS, whose own time (the write, its
     * receiving thread, the hand-over to the reader's listener) comes on top of the network's: the
     * channel transport the probe measured on the reader's hardware, at its p99.9 (nothing without
     * a platform file, or from a probe built without Cyclone DDS). On one node, or on sim, the hub
     * carries it itself.
     */
    private Window throughTransport(Window arrived, Publish publish) {
      final Node from = publish.publisher().node();
      final Node to = publish.reader().node();
      final boolean overDds =
          !from.name().equals(to.name())
              && from.os() == Platform.OperatingSystem.LINUX
              && to.os() == Platform.OperatingSystem.LINUX;
      if (!overDds || !arrived.bounded()) {
        return arrived;
      }
      return new Window(
          arrived.earliest(),
          saturatedSum(arrived.latest(), PlatformOverheads.of(to).channelTransportNs()));
    }

    /** A sample that reached a node's hub in {@code window} leaves it by then plus its wait. */
    private Window afterHub(Window window, Node node) {
      final long wait = hubWait(node);
      if (!window.bounded() || wait < 0) {
        return new Window(window.earliest(), -1);
      }
      return new Window(window.earliest(), saturatedSum(window.latest(), wait));
    }

    /**
     * How long a node's channel hub may wait for the processor before it passes a sample on (sends
     * it, or hands it to the readers' histories; on Linux DDS's receive thread does the latter for
     * a channel only other nodes publish, started on the same CPU). Its threads run below every
     * lane, on the CPU of the node's core 0, and run as soon as no lane there is ready: at most the
     * longest busy period of the methods there in which the hub's own work, however small, is done,
     * w = e + sum of ceil((w + J) / T) * C with e > 0 (1 ns): a method released at the instant the
     * others' work ends takes the processor before the hub does. J is a method's release jitter
     * (the platform's release lateness for an SpM, its requests' jitter for a service method).
     *
     * <p>A lane that waits for a reply is not ready, and the hub runs; but work the wait holds back
     * comes later, all at once. Two bounds, the smaller of which holds: C is what the method
     * computes, without its waits, and a method whose work may be put off past its release by
     * something that leaves the processor idle has R - C more jitter, as any self-suspending task
     * (a method that waits, and every method that a waiting one holds back: its lane, which serves
     * nothing else while it waits, or a segment, which it keeps while it waits); or C counts the
     * waits as execution, with no more jitter: from the instant when no lane is ready or waiting,
     * each instant either computes or waits some released work, so such a period ends by the time
     * all that work is done, and the hub's wait lies in one. The first needs a bounded response of
     * every method put off, the second a load of the methods and their waits below 1.
     *
     * <p>A one-shot SpM counts once. -1 without a bound: neither has one, or a service method has
     * no max-rate.
     */
    private long hubWait(Node node) {
      return hubWaits.computeIfAbsent(node.name(), name -> hubWaitOf(node));
    }

    private long hubWaitOf(Node node) {
      final PlatformOverheads overheads = PlatformOverheads.of(node);
      final long releaseLateness = overheads.releaseJitterNs();
      final List<Method> methods = new ArrayList<>();
      for (Method method : methodsOf(node)) {
        final TaskReport task = tasks.get(method.name());
        if (task == null) {
          return -1;
        }
        if (task.core() == 0) {
          methods.add(method);
        }
      }
      final List<Method> waiting =
          methods.stream().filter(m -> m.deployment().tmo().callWaitNs(m.calls()) > 0).toList();
      // Rows {period, jitter, work} of each bound, and the one-shot SpMs' work.
      final List<long[]> suspending = new ArrayList<>();
      final List<long[]> waitsExecute = new ArrayList<>();
      long onceComputing = 0;
      long onceWaiting = 0;
      boolean suspendingBounded = true;
      for (Method method : methods) {
        final TaskReport task = tasks.get(method.name());
        final long waits = method.deployment().tmo().callWaitNs(method.calls());
        final long computes = task.wcetNs() - waits;
        final boolean service = method.svm().isPresent();
        if (method.periodNs() <= 0) {
          if (service) {
            return -1;
          }
          onceComputing += computes;
          onceWaiting += task.wcetNs();
          continue;
        }
        final long released =
            service
                ? overheads.requestJitterNs(requestJitter.getOrDefault(method.name(), 0L))
                : releaseLateness;
        waitsExecute.add(new long[] {method.periodNs(), released, task.wcetNs()});
        final boolean putOff = waiting.stream().anyMatch(w -> holdsBack(node, w, method));
        if (putOff && task.responseTimeNs() < 0) {
          suspendingBounded = false;
        }
        final long suspended = putOff ? Math.max(0, task.responseTimeNs() - computes) : 0;
        suspending.add(new long[] {method.periodNs(), released + suspended, computes});
      }
      final long bySuspension = suspendingBounded ? busyPeriod(onceComputing, suspending) : -1;
      final long byWaiting = waiting.isEmpty() ? -1 : busyPeriod(onceWaiting, waitsExecute);
      if (bySuspension < 0 || byWaiting < 0) {
        return Math.max(bySuspension, byWaiting);
      }
      return Math.min(bySuspension, byWaiting);
    }

    /**
     * The longest busy period of work {@code rows} ({period, jitter, work}) and {@code once}, in
     * which 1 ns of the hub's own is done; -1 where their load is 1 or more.
     */
    private static long busyPeriod(long once, List<long[]> rows) {
      double load = 0;
      for (long[] row : rows) {
        load += (double) row[2] / row[0];
      }
      if (load >= 1.0) {
        return -1;
      }
      try {
        final long own = Math.addExact(1, once);
        long busy = own;
        for (long[] row : rows) {
          busy = Math.addExact(busy, row[2]);
        }
        for (int iteration = 0; iteration < 100_000; iteration++) {
          long next = own;
          for (long[] row : rows) {
            final long arrivals = SchedulingAnalysis.ceilDiv(Math.addExact(busy, row[1]), row[0]);
            next = Math.addExact(next, Math.multiplyExact(arrivals, row[2]));
          }
          if (next == busy) {
            return busy;
          }
          busy = next;
        }
      } catch (ArithmeticException beyond64Bits) {
        return -1;
      }
      return -1;
    }

    /**
     * Whether {@code method}'s work may wait, with the processor idle, while {@code waiting} waits
     * for a reply: it is that method, shares its lane (one per core and band, but a method of its
     * own each under preemptive EDF), or uses a segment of it.
     */
    private boolean holdsBack(Node node, Method waiting, Method method) {
      if (waiting == method) {
        return true;
      }
      final TaskReport waiter = tasks.get(waiting.name());
      final TaskReport task = tasks.get(method.name());
      final boolean sameLane =
          !node.strategy().preemptsByDeadline()
              && waiter.core() == task.core()
              && waiter.band() == task.band();
      final Set<String> held = segmentsOf(waiting);
      return sameLane || segmentsOf(method).stream().anyMatch(held::contains);
    }

    private static Set<String> segmentsOf(Method method) {
      return SchedulingAnalysis.segmentsOf(
          method.deployment().instance(),
          method.spm().map(Spm::uses).orElseGet(() -> method.svm().orElseThrow().uses()));
    }

    /** Every method deployed on {@code node}. */
    private static List<Method> methodsOf(Node node) {
      final List<Method> methods = new ArrayList<>();
      for (Deployment deployment : node.deployments()) {
        for (Spm spm : deployment.tmo().spms()) {
          methods.add(new Method(node, deployment, Optional.of(spm), Optional.empty()));
        }
        for (Svm svm : deployment.tmo().svms()) {
          methods.add(new Method(node, deployment, Optional.empty(), Optional.of(svm)));
        }
      }
      return methods;
    }

    /** The method completes between its activation and the latest activation plus its response. */
    private Window completes(Method method, Window activation) {
      final long response = response(method);
      if (!activation.bounded() || response < 0) {
        return new Window(activation.earliest(), -1);
      }
      return new Window(activation.earliest(), saturatedSum(activation.latest(), response));
    }

    /**
     * A time-triggered reader takes a sample that arrived at x at its next activation after x: its
     * start window opens at most one period later and it completes within its response after that,
     * so by x + period + response (the sampling delay of a periodic reader).
     */
    private Window read(Method reader, Window arrived) {
      final long response = response(reader);
      if (!arrived.bounded() || response < 0 || reader.periodNs() <= 0) {
        return new Window(arrived.earliest(), -1);
      }
      return new Window(
          arrived.earliest(),
          saturatedSum(saturatedSum(arrived.latest(), reader.periodNs()), response));
    }

    /**
     * The oldest a sample may be when the reader takes it, against the channel's validity. From a
     * periodic SpM that publishes once per period, the newest sample at any instant left at most a
     * period plus its sending window plus the network's worst delay ago. From a service method (no
     * next sample is due), the sample is as old as its network delay plus the reader's sampling
     * delay when first read.
     */
    private ChainReport.Limit validity(
        Publish publish, Window activation, Window published, Window arrived) {
      final Channel channel = publish.channel();
      final long networkDelay =
          arrived.bounded() && published.bounded() ? arrived.latest() - published.latest() : -1;
      final long readerResponse = response(publish.reader());
      final Method publisher = publish.publisher();
      long age = -1;
      if (networkDelay >= 0 && publisher.spm().isPresent() && publisher.periodNs() > 0) {
        // Every read, not only the first, must find the newest sample valid: a reader faster
        // than the publisher takes one sample again and again, and the runtime drops it once
        // past its validity, so the reader's own sampling delay bounds nothing here.
        age =
            saturatedSum(
                saturatedSum(publisher.periodNs(), published.latest() - activation.earliest()),
                networkDelay);
      } else if (networkDelay >= 0 && readerResponse >= 0 && publish.reader().periodNs() > 0) {
        age = saturatedSum(saturatedSum(networkDelay, publish.reader().periodNs()), readerResponse);
      }
      final boolean meets = age >= 0 && (channel.validityNs() == 0 || age <= channel.validityNs());
      return new ChainReport.Limit(
          ChainReport.LimitKind.CHANNEL_VALIDITY,
          publish.reader().deployment().instance(),
          publish.reader().methodName(),
          channel.name(),
          age,
          channel.validityNs(),
          meets,
          publish.reader().spm().map(Spm::source).orElse(channel.source()));
    }

    /**
     * A message from {@code from}'s node to {@code to}'s, sent in {@code sent}: on one node at
     * once; across a network after its latency and the transmission of its smallest frame at the
     * earliest (a frame has not arrived before its last bit), after latency + jitter + queueing and
     * transmission of its largest at the latest. Records the jitter of its sending for the next
     * iteration.
     */
    private Window network(
        List<ChainReport.Hop> hops, String what, String key, Method from, Method to, Window sent) {
      if (from.node().name().equals(to.node().name())) {
        return sent;
      }
      final Optional<Network> link = topology.link(from.node(), to.node());
      if (link.isEmpty()) {
        final Window none = new Window(sent.earliest(), -1);
        hops.add(new ChainReport.Hop(ChainReport.HopKind.NETWORK, what, "no path", 0, -1, 0, 0));
        return none;
      }
      final Network network = link.get();
      final long[] onLink = queueing(key);
      if (sent.bounded()) {
        messageJitter.merge(key, sent.latest() - sent.earliest(), Math::max);
      }
      final Stream stream = streams.get(key);
      final long earliest =
          saturatedSum(
              saturatedSum(sent.earliest(), network.latencyNs()),
              stream == null ? 0 : stream.leastTransmissionNs());
      final long latest =
          sent.bounded() && onLink[1] >= 0
              ? saturatedSum(
                  saturatedSum(sent.latest(), network.latencyNs() + network.jitterNs()),
                  saturatedSum(onLink[0], onLink[1]))
              : -1;
      hops.add(
          new ChainReport.Hop(
              ChainReport.HopKind.NETWORK,
              what,
              network.name(),
              earliest,
              latest,
              onLink[0],
              Math.max(0, onLink[1])));
      return new Window(earliest, latest);
    }
  }
}
