package dev.kairos.ir;

import dev.kairos.ir.Tmos.TmoClass;
import java.math.BigDecimal;
import java.util.List;

/** Where TMOs run: hardware, nodes and the deployments on them. */
public final class Platform {
  private Platform() {}

  public enum OperatingSystem {
    LINUX,
    SIM
  }

  /**
   * A node's dispatching strategy. {@code EDF} is textbook preemptive EDF (a job with an earlier
   * absolute deadline preempts, segments shared under the Stack Resource Policy); {@code NP_EDF} is
   * Kokyu's EDF queue: one band in deadline order, a started method never preempted by another.
   */
  public enum Strategy {
    RMS("rms"),
    EDF("edf"),
    MLF("mlf"),
    MUF("muf"),
    RMS_MLF("rms+mlf"),
    NP_EDF("np-edf");

    private final String keyword;

    Strategy(String keyword) {
      this.keyword = keyword;
    }

    /** The strategy as the language spells it ({@code scheduling rms+mlf}). */
    public String keyword() {
      return keyword;
    }

    /** Whether methods are dispatched in deadline order (preemptively or not). */
    public boolean earliestDeadlineFirst() {
      return this == EDF || this == NP_EDF;
    }

    /**
     * Whether a job with an earlier absolute deadline preempts one of the same band (the runtime's
     * {@code preempts_by_deadline}).
     */
    public boolean preemptsByDeadline() {
      return this == EDF;
    }
  }

  /** The reference machine when a node names no hardware: one core, speed 1.0. */
  public static final Hardware REFERENCE = new Hardware("reference", 1, BigDecimal.ONE);

  /**
   * A processor type. {@code platform} is the platform file its `platform` clause names (what
   * `kairos probe` measured on it), absent when the model names none.
   */
  public record Hardware(
      String name, int cores, BigDecimal speed, java.util.Optional<PlatformFile> platform) {
    public Hardware(String name, int cores, BigDecimal speed) {
      this(name, cores, speed, java.util.Optional.empty());
    }

    Hardware withAuthenticatedCalls() {
      return new Hardware(name, cores, speed, platform.map(PlatformFile::withAuthenticatedCalls));
    }
  }

  /**
   * A platform file as the model names it: its overheads when it could be read, else why not
   * (reported as kairos.platform-file at the clause).
   */
  public record PlatformFile(
      String path, SourceRef source, java.util.Optional<Overheads> overheads, String problem) {
    PlatformFile withAuthenticatedCalls() {
      return new PlatformFile(
          path, source, overheads.map(Overheads::withAuthenticatedCalls), problem);
    }
  }

  /**
   * What `kairos probe` measured on a machine (nanoseconds: the largest of each distribution, and
   * the p99.9 of the per-job costs), and when, by what, on which CPU, with which scheduling. The
   * dispatch handoff and the ORB call are 0 in files of probes that did not measure them yet, and
   * the ORB call under TLS (over loopback tcp:) in those of probes that could not make its keys.
   */
  public record Overheads(
      String measuredAt,
      String measuredBy,
      String cpuModel,
      String scheduling,
      long releaseLatenessNs,
      long contextSwitchNs,
      long ceilingLockNs,
      long contextSwitchP999Ns,
      long ceilingLockP999Ns,
      long dispatchHandoffNs,
      long orbCallNs,
      long orbCallP999Ns,
      long channelTransportNs,
      long channelTransportP999Ns,
      long orbCallTlsNs,
      long orbCallTlsP999Ns) {
    /**
     * The figures for a node whose calls run TLS 1.3 (its tcp: endpoint, or a callee's, is
     * authenticated): each ORB message is charged the call measured under TLS where the probe
     * measured it, and never less than the call in the clear.
     */
    public Overheads withAuthenticatedCalls() {
      return new Overheads(
          measuredAt,
          measuredBy,
          cpuModel,
          scheduling,
          releaseLatenessNs,
          contextSwitchNs,
          ceilingLockNs,
          contextSwitchP999Ns,
          ceilingLockP999Ns,
          dispatchHandoffNs,
          Math.max(orbCallNs, orbCallTlsNs),
          Math.max(orbCallP999Ns, orbCallTlsP999Ns),
          channelTransportNs,
          channelTransportP999Ns,
          orbCallTlsNs,
          orbCallTlsP999Ns);
    }
  }

  /**
   * A TMO deployed on a node, on the core the model names ({@code core >= 0}) or, with {@link
   * #UNPLACED}, on one the analysis chooses.
   */
  public record Deployment(String instance, TmoClass tmo, int core, SourceRef source) {
    public static final int UNPLACED = -1;

    public Deployment(String instance, TmoClass tmo, SourceRef source) {
      this(instance, tmo, UNPLACED, source);
    }

    /** The same deployment of another class (the same class with changed methods). */
    public Deployment withTmo(TmoClass replaced) {
      return new Deployment(instance, replaced, core, source);
    }

    public boolean pinned() {
      return core >= 0;
    }
  }

  /**
   * A network and the nodes it connects; times in nanoseconds, the bandwidth in bits per second
   * ({@link #UNLIMITED} when the model gives none); {@code authenticated} unless it says {@code
   * security none}: its nodes' tcp: connections then run TLS 1.3 with mutual authentication.
   */
  public record Network(
      String name,
      long latencyNs,
      long jitterNs,
      long bitsPerSecond,
      List<String> nodes,
      boolean authenticated,
      SourceRef source) {
    public static final long UNLIMITED = 0;
  }

  /**
   * A {@code system}: the nodes that make one distributed system, in the model's order, and its
   * clock synchronisation ({@code null} when it has none).
   */
  public record DistributedSystem(
      String name, List<String> nodes, ClockSync clockSync, SourceRef source) {
    public DistributedSystem(String name, List<String> nodes, SourceRef source) {
      this(name, nodes, null, source);
    }
  }

  /**
   * A system's {@code clock-sync master M period P}: every other node of the system keeps its
   * global time on node {@code master}'s, with a round of exchanges every {@code periodNs}.
   */
  public record ClockSync(String master, long periodNs, SourceRef source) {}

  /**
   * A node: {@code host} is the machine it runs on when deployed, a host of the deployment's
   * inventory ("" where the model names none: kairos run starts it on this host).
   */
  public record Node(
      String name,
      OperatingSystem os,
      Strategy strategy,
      Hardware hardware,
      String endpoint,
      String host,
      List<Deployment> deployments,
      SourceRef source) {
    /** A node the model places on no host. */
    public Node(
        String name,
        OperatingSystem os,
        Strategy strategy,
        Hardware hardware,
        String endpoint,
        List<Deployment> deployments,
        SourceRef source) {
      this(name, os, strategy, hardware, endpoint, "", deployments, source);
    }

    /** The same node with other deployments (a core's share of them, or changed classes). */
    public Node withDeployments(List<Deployment> replaced) {
      return new Node(name, os, strategy, hardware, endpoint, host, List.copyOf(replaced), source);
    }

    /** The same node, its ORB messages charged as calls under TLS (Overheads). */
    public Node withAuthenticatedCalls() {
      return new Node(
          name,
          os,
          strategy,
          hardware.withAuthenticatedCalls(),
          endpoint,
          host,
          deployments,
          source);
    }
  }
}
