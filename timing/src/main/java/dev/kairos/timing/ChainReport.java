package dev.kairos.timing;

import dev.kairos.ir.SourceRef;
import java.util.List;

/**
 * One end-to-end chain across nodes, as the holistic analysis bounds it: a time-triggered source,
 * the hops its activation causes on other nodes (remote calls and their replies, channel samples
 * and the methods that read them), the latest time each hop ends, and the limits the chain must
 * keep. Times are from the release of the source (the opening of its start window).
 *
 * @param name the path: methods joined by their gates and channels ({@code a.m -[gate g]-> b.s})
 * @param source the SpM the chain starts from ({@code instance.method})
 * @param periodNs the source's period; 0 for a one-shot SpM
 * @param hard whether every method on the chain is hard: only a hard chain's miss fails the system
 * @param boundNs the latest end of the chain's last hop, from the source's release; -1 when a hop
 *     on it has no bound
 * @param meets whether the chain is bounded and keeps every limit
 */
public record ChainReport(
    String name,
    String source,
    long periodNs,
    boolean hard,
    List<Hop> hops,
    long boundNs,
    List<Limit> limits,
    boolean meets,
    SourceRef sourceRef) {

  /** What a hop is. */
  public enum HopKind {
    /** The source SpM's release. */
    RELEASE,
    /** A method sends a request through a gate. */
    SEND,
    /** A method publishes a sample on a channel. */
    PUBLISH,
    /** A message crosses a network (a request, a reply or a sample). */
    NETWORK,
    /** A service method runs for a request and completes. */
    SERVE,
    /** A caller has its reply and completes. */
    RESUME,
    /** The reader's node's channel hub hands the sample to the reader's history. */
    DELIVER,
    /** A time-triggered reader takes the sample at its next release and completes. */
    READ
  }

  /** Which message a network hop carries. */
  public enum Message {
    /** Not a network hop. */
    NONE,
    /** A call's request, from its caller to the service method. */
    REQUEST,
    /** A call's reply, back to its caller. */
    REPLY,
    /** A channel's sample, from its publisher to a reader's node. */
    SAMPLE
  }

  /**
   * What a hop is about, as names, for a report to put in words: the method that acts ({@code
   * instance.method}; empty for a network or deliver hop), the gate or channel, the instance at the
   * end it concerns (a call's caller, a sample's reader; empty where none), the message a network
   * hop carries, and whether a resumed caller's call was a oneway.
   */
  public record Subject(
      String method, String element, String instance, Message message, boolean oneway) {
    public static Subject of(String method) {
      return new Subject(method, "", "", Message.NONE, false);
    }

    public static Subject of(String method, String element) {
      return new Subject(method, element, "", Message.NONE, false);
    }

    /** A hop no method takes: a message on a network, or a sample handed to a reader. */
    public static Subject carrying(Message message, String element, String instance) {
      return new Subject("", element, instance, message, false);
    }
  }

  /**
   * One hop: the earliest and latest time it ends, from the chain's release; their difference is
   * the jitter it passes on to the next hop.
   *
   * @param subject what it is about (a report words it)
   * @param where the node of a method, or the network of a message
   * @param transmissionNs for a network hop: the time the message's largest frame takes onto the
   *     link at its bandwidth (0 without one)
   * @param queueingNs for a network hop: the longest the frame may wait behind the other frames of
   *     chains on the same network
   */
  public record Hop(
      HopKind kind,
      Subject subject,
      String where,
      long earliestNs,
      long latestNs,
      long transmissionNs,
      long queueingNs) {
    public long jitterNs() {
      return latestNs < 0 ? -1 : latestNs - earliestNs;
    }
  }

  /** What a limit holds. */
  public enum LimitKind {
    /** A call's round trip, from its request to its reply, against the gate's deadline. */
    GATE_DEADLINE,
    /** The age of the sample a reader takes, against the channel's validity. */
    CHANNEL_VALIDITY
  }

  /**
   * A limit the chain must keep.
   *
   * @param instance the caller of the gate, or the reader of the channel
   * @param element the gate, or the reading method
   * @param channel the channel (for a validity limit), else empty
   * @param boundNs the analysed round trip or sample age; -1 when unbounded
   * @param limitNs the gate's deadline or the channel's validity
   */
  public record Limit(
      LimitKind kind,
      String instance,
      String element,
      String channel,
      long boundNs,
      long limitNs,
      boolean meets,
      SourceRef source) {}

  /** The hops' largest jitter passed on to a service method or a message. */
  public long largestJitterNs() {
    return hops.stream().mapToLong(Hop::jitterNs).max().orElse(0);
  }
}
