package dev.kairos.timing;

import static dev.kairos.timing.EndToEndAnalysis.saturatedSum;

import dev.kairos.ir.Platform;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.wire.Frames;
import dev.kairos.timing.ChainReport.Subject;
import dev.kairos.timing.ChainTopology.Call;
import dev.kairos.timing.ChainTopology.Method;
import dev.kairos.timing.ChainTopology.Publish;
import dev.kairos.timing.ChainTopology.Release;
import dev.kairos.timing.ChainTopology.Return;
import dev.kairos.timing.ChainTopology.Step;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One pass over the chains with the nodes' reports of this iteration and the messages' jitters of
 * the last: the chains' bounds, and the jitters for the next iteration.
 */
final class ChainPass {
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

  private final ChainTopology topology;
  private final Map<String, TaskReport> tasks = new HashMap<>();
  private final Map<String, Long> lastMessageJitter;
  private final Map<String, Long> requestJitter;
  private final HubWait hubWait;
  private final Map<String, Stream> streams = new LinkedHashMap<>();
  final Map<String, Long> serviceJitter = new HashMap<>();
  final Map<String, Long> messageJitter = new HashMap<>();

  ChainPass(
      ChainTopology topology,
      List<List<Step>> paths,
      List<NodePlan> nodes,
      Map<String, Long> requestJitter,
      Map<String, Long> lastMessageJitter) {
    this.topology = topology;
    this.requestJitter = requestJitter;
    this.lastMessageJitter = lastMessageJitter;
    for (NodePlan node : nodes) {
      node.tasks().forEach(t -> tasks.putIfAbsent(t.name(), t));
    }
    this.hubWait = new HubWait(tasks, requestJitter);
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
   * A stream's frames: its largest as a frame of the ORB (the most a message puts on the link), its
   * smallest with {@code leastHeader}, the header it carries at the least (a frame's for a request
   * or a reply; a channel sample's, shorter, where the hub sends the sample itself).
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
   * included: every other stream's frames may go first, as many as arrive in the window with their
   * jitter (non-preemptive, first in first out: w = sum over the others of (floor((w + J) / T) + 1)
   * C, then + its own C); -1 when the network's load does not let w settle.
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
    hops.add(hop(ChainReport.HopKind.RELEASE, Subject.of(source.name()), source, current, 0, 0));
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
                Subject.of(call.caller().name(), call.gate().name()),
                call.caller(),
                sent,
                0,
                0));
        final Window arrived =
            network(
                hops,
                Subject.carrying(
                    ChainReport.Message.REQUEST,
                    call.gate().name(),
                    call.caller().deployment().instance()),
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
                  Subject.of(back.callee().name()),
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
                    Subject.carrying(
                        ChainReport.Message.REPLY,
                        back.gate().name(),
                        back.caller().deployment().instance()),
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
                new Subject(
                    back.caller().name(), back.gate().name(), "", ChainReport.Message.NONE, oneway),
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
                Subject.of(publish.publisher().name(), publish.channel().name()),
                publish.publisher(),
                published,
                0,
                0));
        final Window arrived =
            network(
                hops,
                Subject.carrying(
                    ChainReport.Message.SAMPLE,
                    publish.channel().name(),
                    publish.reader().deployment().instance()),
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
                Subject.carrying(
                    ChainReport.Message.NONE,
                    publish.channel().name(),
                    publish.reader().deployment().instance()),
                publish.reader(),
                delivered,
                0,
                0));
        completed = read(publish.reader(), delivered);
        hops.add(
            hop(
                ChainReport.HopKind.READ,
                Subject.of(publish.reader().name(), publish.channel().name()),
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
      Subject subject,
      Method where,
      Window window,
      long transmission,
      long queueing) {
    return new ChainReport.Hop(
        kind,
        subject,
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
   * When a method activated in {@code activation} sends (a request or a sample) that it then waits
   * {@code waitAfter} for, at most, before it completes: at once at the earliest; at the latest by
   * its response less that wait, which the analysis counts as execution after the send (had the
   * wait been that long, the method would still have completed within its response). Only that
   * wait: the method may have waited for its other gates' replies before it sent, and a sample it
   * may publish after all of them, as it completes.
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
   * channel transport the probe measured on the reader's hardware, at its p99.9 (nothing without a
   * platform file, or from a probe built without Cyclone DDS). On one node, or on sim, the hub
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
    final long wait = hubWait.of(node);
    if (!window.bounded() || wait < 0) {
      return new Window(window.earliest(), -1);
    }
    return new Window(window.earliest(), saturatedSum(window.latest(), wait));
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
   * start window opens at most one period later and it completes within its response after that, so
   * by x + period + response (the sampling delay of a periodic reader).
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
   * next sample is due), the sample is as old as its network delay plus the reader's sampling delay
   * when first read.
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
   * A message from {@code from}'s node to {@code to}'s, sent in {@code sent}: on one node at once;
   * across a network after its latency and the transmission of its smallest frame at the earliest
   * (a frame has not arrived before its last bit), after latency + jitter + queueing and
   * transmission of its largest at the latest. Records the jitter of its sending for the next
   * iteration.
   */
  private Window network(
      List<ChainReport.Hop> hops, Subject what, String key, Method from, Method to, Window sent) {
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
