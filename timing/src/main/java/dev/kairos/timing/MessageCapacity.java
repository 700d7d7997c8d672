package dev.kairos.timing;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.wire.Frames;
import dev.kairos.ir.wire.MaxEncodedSize;
import dev.kairos.ir.wire.OperationMessages;
import java.util.ArrayList;
import java.util.List;

/**
 * Messages the ORB could not carry: a request, reply or exception of an interface operation whose
 * largest encoding exceeds the runtime's message body capacity ({@link Frames#BODY_CAPACITY}). The
 * ORB preallocates every buffer at that size, so such a message could never be sent; the model is
 * refused before any code is generated rather than when the generated code is compiled.
 */
public final class MessageCapacity {
  /** The diagnostic code of an operation with a message larger than the ORB carries. */
  public static final String MESSAGE_TOO_LARGE = "kairos.message-too-large";

  private MessageCapacity() {}

  /**
   * One message of an operation that may not fit.
   *
   * @param message "request", "reply" or "exception"
   * @param maxBytes the most bytes its body can take (Long.MAX_VALUE: beyond 64 bits)
   */
  public record Oversized(
      Interface iface, Operation operation, String message, long maxBytes, long capacityBytes) {

    /** Where the operation is written. */
    public SourceRef source() {
      return operation.source();
    }
  }

  /** Every message of every operation of the model that exceeds the ORB's body capacity. */
  public static List<Oversized> check(SystemModel system) {
    final OperationMessages messages = new OperationMessages(new MaxEncodedSize(system));
    final List<Oversized> oversized = new ArrayList<>();
    for (Interface iface : system.interfaces()) {
      for (Operation operation : iface.operations()) {
        exceeds(oversized, iface, operation, "request", messages.requestBytes(operation));
        exceeds(oversized, iface, operation, "reply", messages.replyBytes(operation));
        exceeds(oversized, iface, operation, "exception", messages.exceptionBytes(operation));
      }
    }
    return oversized;
  }

  private static void exceeds(
      List<Oversized> oversized, Interface iface, Operation operation, String message, long bytes) {
    if (bytes > Frames.BODY_CAPACITY) {
      oversized.add(new Oversized(iface, operation, message, bytes, Frames.BODY_CAPACITY));
    }
  }
}
