package dev.kairos.ir;

import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.Operation;
import java.util.List;
import java.util.Optional;

/** TMO classes: object data stores and their spontaneous and service methods. */
public final class Tmos {
  private Tmos() {}

  public enum Criticality {
    HARD,
    SOFT
  }

  public enum Access {
    READ,
    WRITE
  }

  public record Segment(String name, List<Field> fields, SourceRef source) {}

  public record SegmentAccess(String segment, Access access) {}

  /** How a method uses a channel of its TMO's eac. */
  public enum ChannelAccess {
    PUBLISH,
    READ
  }

  public record ChannelUse(String channel, ChannelAccess access) {}

  /**
   * What spontaneous and service methods have alike, where the analyses treat them alike: both run
   * on the lanes of their node's bands, hold their segments while they run and call gates.
   */
  public sealed interface Method permits Spm, Svm {
    String name();

    long wcetNs();

    Criticality criticality();

    int importance();

    List<SegmentAccess> uses();

    List<String> calls();

    List<ChannelUse> channelUses();

    SourceRef source();

    /** An SpM's period, an SvM's minimum inter-arrival time (0: one-shot, or no max-rate). */
    long periodNs();

    /**
     * How long an activation has from when it may start: an SpM from its window's opening to its
     * deadline, a service request its GCT from its arrival.
     */
    long relativeDeadlineNs();

    /** Whether it is a service method. */
    boolean service();
  }

  /** Marks `to forever` in {@link Spm#lastReleaseNs()}. */
  public static final long FOREVER = -1;

  /**
   * A spontaneous method. Times are nanoseconds; window and deadline offsets are relative to each
   * release t. A one-shot method has period 0 and a single release at 0. {@code calls} names the
   * gates of its TMO it calls.
   */
  public record Spm(
      String name,
      long firstReleaseNs,
      long lastReleaseNs,
      long periodNs,
      long windowOpenNs,
      long windowCloseNs,
      long deadlineNs,
      long wcetNs,
      Criticality criticality,
      int importance,
      List<SegmentAccess> uses,
      List<String> calls,
      List<ChannelUse> channelUses,
      SourceRef source)
      implements Method {
    /** A method that uses no channel. */
    public Spm(
        String name,
        long firstReleaseNs,
        long lastReleaseNs,
        long periodNs,
        long windowOpenNs,
        long windowCloseNs,
        long deadlineNs,
        long wcetNs,
        Criticality criticality,
        int importance,
        List<SegmentAccess> uses,
        List<String> calls,
        SourceRef source) {
      this(
          name,
          firstReleaseNs,
          lastReleaseNs,
          periodNs,
          windowOpenNs,
          windowCloseNs,
          deadlineNs,
          wcetNs,
          criticality,
          importance,
          uses,
          calls,
          List.of(),
          source);
    }

    /** A method that calls no gate. */
    public Spm(
        String name,
        long firstReleaseNs,
        long lastReleaseNs,
        long periodNs,
        long windowOpenNs,
        long windowCloseNs,
        long deadlineNs,
        long wcetNs,
        Criticality criticality,
        int importance,
        List<SegmentAccess> uses,
        SourceRef source) {
      this(
          name,
          firstReleaseNs,
          lastReleaseNs,
          periodNs,
          windowOpenNs,
          windowCloseNs,
          deadlineNs,
          wcetNs,
          criticality,
          importance,
          uses,
          List.of(),
          source);
    }

    public boolean periodic() {
      return periodNs > 0;
    }

    @Override
    public long relativeDeadlineNs() {
      return deadlineNs - windowOpenNs;
    }

    @Override
    public boolean service() {
      return false;
    }

    /** The same method with another deadline (finish-by t + deadlineNs). */
    public Spm withDeadline(long deadline) {
      return with(deadline, wcetNs);
    }

    /** The same method with another WCET (calibration with measured figures). */
    public Spm withWcet(long wcet) {
      return with(deadlineNs, wcet);
    }

    private Spm with(long deadline, long wcet) {
      return new Spm(
          name,
          firstReleaseNs,
          lastReleaseNs,
          periodNs,
          windowOpenNs,
          windowCloseNs,
          deadline,
          wcet,
          criticality,
          importance,
          uses,
          calls,
          channelUses,
          source);
    }
  }

  /**
   * A service method. minInterArrivalNs comes from max-rate (0 when no rate is given); the
   * signature is the interface operation the method serves, if any.
   */
  public record Svm(
      String name,
      long gctNs,
      long wcetNs,
      Criticality criticality,
      int importance,
      long minInterArrivalNs,
      List<SegmentAccess> uses,
      List<String> calls,
      List<ChannelUse> channelUses,
      Optional<Operation> signature,
      SourceRef source)
      implements Method {
    /** A method that uses no channel. */
    public Svm(
        String name,
        long gctNs,
        long wcetNs,
        Criticality criticality,
        int importance,
        long minInterArrivalNs,
        List<SegmentAccess> uses,
        List<String> calls,
        Optional<Operation> signature,
        SourceRef source) {
      this(
          name,
          gctNs,
          wcetNs,
          criticality,
          importance,
          minInterArrivalNs,
          uses,
          calls,
          List.of(),
          signature,
          source);
    }

    /** A method that calls no gate. */
    public Svm(
        String name,
        long gctNs,
        long wcetNs,
        Criticality criticality,
        int importance,
        long minInterArrivalNs,
        List<SegmentAccess> uses,
        Optional<Operation> signature,
        SourceRef source) {
      this(
          name,
          gctNs,
          wcetNs,
          criticality,
          importance,
          minInterArrivalNs,
          uses,
          List.of(),
          signature,
          source);
    }

    @Override
    public long periodNs() {
      return minInterArrivalNs;
    }

    @Override
    public long relativeDeadlineNs() {
      return gctNs;
    }

    @Override
    public boolean service() {
      return true;
    }

    /** The same method with another guaranteed completion time. */
    public Svm withGct(long gct) {
      return with(gct, wcetNs);
    }

    /** The same method with another WCET (calibration with measured figures). */
    public Svm withWcet(long wcet) {
      return with(gctNs, wcet);
    }

    private Svm with(long gct, long wcet) {
      return new Svm(
          name,
          gct,
          wcet,
          criticality,
          importance,
          minInterArrivalNs,
          uses,
          calls,
          channelUses,
          signature,
          source);
    }
  }

  /**
   * A remote call path; calleeTmo is qualified by its package (`avionics.SensorTMO`). oneway: the
   * operation it calls is `oneway`, so a call waits for no reply, whatever the gate's form.
   */
  public record Gate(
      String name,
      String calleeTmo,
      String calleeMethod,
      boolean nonBlocking,
      long deadlineNs,
      SourceRef source,
      boolean oneway) {
    /** A gate to an operation that is answered. */
    public Gate(
        String name,
        String calleeTmo,
        String calleeMethod,
        boolean nonBlocking,
        long deadlineNs,
        SourceRef source) {
      this(name, calleeTmo, calleeMethod, nonBlocking, deadlineNs, source, false);
    }

    /** Whether a call through it blocks its caller until the reply or the deadline. */
    public boolean waitsForReply() {
      return !nonBlocking && !oneway;
    }

    /** How long a call through it may block its caller: its deadline if it waits, else 0. */
    public long replyWaitNs() {
      return waitsForReply() ? deadlineNs : 0;
    }
  }

  /** Whether a channel's samples are resent until every reader has them, or sent once. */
  public enum Reliability {
    RELIABLE,
    BEST_EFFORT
  }

  /**
   * A real-time multicast channel as one TMO declares it (every declaration of a channel agrees on
   * its payload and quality of service). depth: samples each reader keeps; validityNs: how long a
   * sample stays valid after it is published, 0 for always; fanOut: the most TMOs that read it.
   */
  public record Channel(
      String name,
      TypeUse type,
      Reliability reliability,
      int depth,
      long validityNs,
      int fanOut,
      SourceRef source) {
    /** A channel with the default quality of service: reliable, depth 1, always valid, 1 reader. */
    public Channel(String name, TypeUse type, SourceRef source) {
      this(name, type, Reliability.RELIABLE, 1, 0, 1, source);
    }
  }

  public record TmoClass(
      List<String> namespace,
      String name,
      List<String> interfaces,
      List<Segment> segments,
      List<Spm> spms,
      List<Svm> svms,
      List<Gate> gates,
      List<Channel> channels,
      SourceRef source) {
    /** The name gates call this class by: its package, then its name (`avionics.SensorTMO`). */
    public String qualifiedName() {
      return namespace.isEmpty() ? name : String.join(".", namespace) + "." + name;
    }

    /** The same class with other spontaneous and service methods. */
    public TmoClass withMethods(List<Spm> replacedSpms, List<Svm> replacedSvms) {
      return new TmoClass(
          namespace,
          name,
          interfaces,
          segments,
          List.copyOf(replacedSpms),
          List.copyOf(replacedSvms),
          gates,
          channels,
          source);
    }

    /** Its SpMs, then its SvMs, in the order the model declares them. */
    public List<Method> methods() {
      final List<Method> methods = new java.util.ArrayList<>(spms);
      methods.addAll(svms);
      return methods;
    }

    /** The service method of that name, if the class has one. */
    public Optional<Svm> svm(String methodName) {
      return svms.stream().filter(s -> s.name().equals(methodName)).findFirst();
    }

    /**
     * How long a method that calls `calls` may wait on them: each call through a blocking gate
     * blocks its caller until its reply or its gate's deadline, so the sum of those deadlines. A
     * non-blocking gate's call does not wait: its reply is collected later, without blocking; nor
     * does a call of a oneway operation, which has no reply.
     */
    public long callWaitNs(List<String> calls) {
      long wait = 0;
      for (Gate gate : waitingGates(calls)) {
        wait += gate.replyWaitNs();
      }
      return wait;
    }

    /** The gates of `calls` whose calls wait for their replies. */
    public List<Gate> waitingGates(List<String> calls) {
      return gates.stream().filter(g -> calls.contains(g.name()) && g.waitsForReply()).toList();
    }
  }
}
