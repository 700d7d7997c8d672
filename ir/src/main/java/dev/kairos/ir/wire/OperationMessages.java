package dev.kairos.ir.wire;

import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Direction;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.Types.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the messages of an interface operation hold, in order (docs/marshalling.md), and the most
 * bytes each can take as a message body. Decided here once: the marshalling emitters write these
 * members, the analysis charges their sizes to a link and checks them against the ORB's capacity.
 *
 * <ul>
 *   <li>the request: its {@code in} and {@code inout} parameters, in declaration order;
 *   <li>the reply (none for a oneway): the result, then its {@code inout} and {@code out}
 *       parameters;
 *   <li>the exception (only where it {@code raises}): a uint32 index (0 = none), then the fields of
 *       the exception it names.
 * </ul>
 */
public final class OperationMessages {
  /** One member of a message: a parameter by its name, or the operation's result (no parameter). */
  public record Member(Optional<String> parameter, TypeUse type) {
    public boolean isResult() {
      return parameter.isEmpty();
    }
  }

  private final MaxEncodedSize sizes;

  public OperationMessages(MaxEncodedSize sizes) {
    this.sizes = sizes;
  }

  /** The members of the request of `operation`. */
  public static List<Member> request(Operation operation) {
    final List<Member> members = new ArrayList<>();
    for (Parameter parameter : operation.parameters()) {
      if (parameter.direction() != Direction.OUT) {
        members.add(new Member(Optional.of(parameter.name()), parameter.type()));
      }
    }
    return members;
  }

  /** The members of the reply of `operation` (a oneway has no reply: none). */
  public static List<Member> reply(Operation operation) {
    final List<Member> members = new ArrayList<>();
    if (operation.oneway()) {
      return members;
    }
    if (operation.result() != null) {
      members.add(new Member(Optional.empty(), operation.result()));
    }
    for (Parameter parameter : operation.parameters()) {
      if (parameter.direction() != Direction.IN) {
        members.add(new Member(Optional.of(parameter.name()), parameter.type()));
      }
    }
    return members;
  }

  /** The types of `members`, in their order: what a body holding them is made of. */
  public static List<TypeUse> types(List<Member> members) {
    return members.stream().map(Member::type).toList();
  }

  /** The most bytes of a body holding `members`. */
  public long body(List<Member> members) {
    return sizes.body(types(members));
  }

  /** The most bytes of the request's body. */
  public long requestBytes(Operation operation) {
    return body(request(operation));
  }

  /** The most bytes of the reply's body; 0 for a oneway, which has none. */
  public long replyBytes(Operation operation) {
    return operation.oneway() ? 0 : body(reply(operation));
  }

  /**
   * The most bytes of the exception's body: the index alone (4) or with the largest exception it
   * raises; 0 for an operation that raises nothing.
   */
  public long exceptionBytes(Operation operation) {
    if (operation.raises().isEmpty()) {
      return 0;
    }
    final TypeUse index = new TypeUse.Primitive(TypeUse.PrimitiveKind.UINT32);
    long largest = sizes.body(List.of(index));
    for (TypeUse.Named raised : operation.raises()) {
      largest = Math.max(largest, sizes.body(List.of(index, raised)));
    }
    return largest;
  }

  /** The most bytes of whatever answers a call: its reply or the exception it raises. */
  public long answerBytes(Operation operation) {
    return Math.max(replyBytes(operation), exceptionBytes(operation));
  }
}
