package dev.kairos.timing;

import dev.kairos.ir.Platform;
import dev.kairos.ir.Platform.Node;
import java.util.Optional;

/**
 * What the platform file of a node's hardware (measured by {@code kairos probe}) charges to every
 * job the analysis considers, in the standard way (Burns and Wellings, <i>Real-Time Systems and
 * Programming Languages</i>, 4th ed., §11.14 "Incorporating system overheads"; Audsley, Burns,
 * Richardson, Tindell and Wellings, "Applying new scheduling theory to static priority pre-emptive
 * scheduling", Software Engineering Journal 8(5), 1993):
 *
 * <ul>
 *   <li>each job's computation C becomes C + 2·cs + k·lock + m·call: a context switch to it and one
 *       away from it (a preempting job's own two switches cover the preemption), one lock and
 *       unlock of a priority-ceiling mutex for each of the k ODS segments it uses, and the ORB's
 *       cost of a two-way call for each of the m messages it handles: a service method handles its
 *       request, and every method each call it makes through a gate. The probe measures a call with
 *       both its ends on one CPU, so each end is charged the whole of it: safe, at a few
 *       microseconds of pessimism per call;
 *   <li>an SpM is released up to J late, J being the largest release lateness measured (timer,
 *       hand-over to the lane, the lane's own timer): J enters the interference it causes as
 *       release jitter, ⌈(w + J)/T⌉, and its own response, R = J + w; the EDF demand test takes J
 *       off its deadline. A service request arrives by message, not by timer, but one admitted to a
 *       sleeping lane starts only once the lane is woken: its release jitter is the largest
 *       dispatch handoff measured (on top of what its chain passes on), charged in the same way;
 *   <li>a channel sample from another Linux node goes through Cyclone DDS, whose own time (the
 *       write, the receiving thread, the hand-over to the reader's listener) the probe measures on
 *       the reader's hardware: its p99.9 is added to the sample's delivery there, on top of the
 *       network's latency and jitter the model declares.
 * </ul>
 *
 * The release lateness and the handoff are charged at the largest value measured: they take in
 * whatever delayed a release, a stall of the machine included. The per-job costs are charged at
 * their p99.9: every job pays them, and the largest of thousands of switches on a shared or virtual
 * machine is such a stall (tens of milliseconds, seen here), which the release lateness already
 * charges once per release rather than twice per job. Without a platform file every term is zero,
 * which is the analysis's assumption of an ideal processor, and the report says so. A platform file
 * of a probe that measured neither the handoff nor the ORB call charges nothing for them, and one
 * of a probe without Cyclone DDS nothing for the channel transport.
 */
public record PlatformOverheads(
    long releaseJitterNs,
    long contextSwitchNs,
    long ceilingLockNs,
    long serviceJitterNs,
    long orbCallNs,
    long channelTransportNs) {
  /** Context switches charged to each job. */
  public static final int SWITCHES_PER_JOB = 2;

  public static final PlatformOverheads NONE = new PlatformOverheads(0, 0, 0, 0, 0, 0);

  /** The overheads the node's hardware platform file gives, or {@link #NONE}. */
  public static PlatformOverheads of(Node node) {
    return measured(node).map(PlatformOverheads::of).orElse(NONE);
  }

  /** The measured figures of the node's platform file, when it names one that could be read. */
  public static Optional<Platform.Overheads> measured(Node node) {
    return node.hardware().platform().flatMap(Platform.PlatformFile::overheads);
  }

  static PlatformOverheads of(Platform.Overheads measured) {
    return new PlatformOverheads(
        measured.releaseLatenessNs(),
        measured.contextSwitchP999Ns(),
        measured.ceilingLockP999Ns(),
        measured.dispatchHandoffNs(),
        measured.orbCallP999Ns(),
        measured.channelTransportP999Ns());
  }

  /**
   * A job's computation with its switches, the locks of its {@code segments} segments and the ORB's
   * cost of the {@code messages} calls it handles (its request, for a service method, and each call
   * it makes through a gate).
   */
  public long chargedNs(long wcetNs, int segments, int messages) {
    return Math.addExact(
        wcetNs,
        Math.addExact(
            Math.addExact(
                Math.multiplyExact(SWITCHES_PER_JOB, contextSwitchNs),
                Math.multiplyExact(segments, ceilingLockNs)),
            Math.multiplyExact(messages, orbCallNs)));
  }

  /**
   * A service method's release jitter: what the chains that request it pass on ({@code
   * chainJitterNs}) and the largest handoff to its sleeping lane.
   */
  public long requestJitterNs(long chainJitterNs) {
    return Math.addExact(chainJitterNs, serviceJitterNs);
  }

  /** The ORB messages a job of a method handles: its request if it serves one, and its calls. */
  public static int messages(boolean service, int calls) {
    return (service ? 1 : 0) + calls;
  }
}
