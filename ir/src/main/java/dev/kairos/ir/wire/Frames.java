package dev.kairos.ir.wire;

import dev.kairos.ir.RuntimeCapacities;

/**
 * The ORB's frames as far as time and space go (docs/orb.md#frames): every message is a fixed
 * header and a body of at most the runtime's body capacity.
 */
public final class Frames {
  /**
   * Bytes of a frame's header ({@code kairos::orb::kHeaderSize} in the runtime's frame.hpp; a test
   * reads it there, so the two cannot drift apart).
   */
  public static final int HEADER_BYTES = 32;

  /**
   * Bytes of the header before a channel sample's body where the node's hub sends it itself (sim,
   * UDP): {@code kairos::channel::kSampleHeaderSize} in the runtime's hub.hpp, which a test reads
   * too. Smaller than a frame's: the least a sample can put on a link.
   */
  public static final int SAMPLE_HEADER_BYTES = 16;

  /**
   * Bytes of the largest body the ORB carries: {@code body} of runtime-cpp/capacities.properties,
   * which the runtime's {@code kairos::orb::kMaxBody} is made from.
   */
  public static final long BODY_CAPACITY = RuntimeCapacities.BODY;

  private static final long NANOSECONDS_PER_SECOND = 1_000_000_000L;

  private Frames() {}

  /**
   * The time a frame with a body of `bodyBytes` takes onto a link of `bitsPerSecond`, rounded up to
   * whole nanoseconds as the simulated network does; 0 without a bandwidth (0 bits per second). A
   * size too large for 64 bits of bit-nanoseconds gives {@link Long#MAX_VALUE}.
   */
  public static long serialisationNs(long bodyBytes, long bitsPerSecond) {
    return serialisationNs(bodyBytes, HEADER_BYTES, bitsPerSecond);
  }

  /** As {@link #serialisationNs(long, long)}, with a header of {@code headerBytes}. */
  public static long serialisationNs(long bodyBytes, int headerBytes, long bitsPerSecond) {
    if (bitsPerSecond <= 0) {
      return 0;
    }
    final long bytes = bodyBytes > Long.MAX_VALUE - headerBytes ? -1 : bodyBytes + headerBytes;
    if (bytes < 0 || bytes > Long.MAX_VALUE / (8 * NANOSECONDS_PER_SECOND)) {
      return Long.MAX_VALUE;
    }
    final long bitNanoseconds = bytes * 8 * NANOSECONDS_PER_SECOND;
    return bitNanoseconds / bitsPerSecond + (bitNanoseconds % bitsPerSecond == 0 ? 0 : 1);
  }
}
