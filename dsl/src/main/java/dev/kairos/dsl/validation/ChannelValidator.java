package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Channel;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.dsl.types.Bounds;
import java.util.Optional;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.validation.Check;

/**
 * Real-time multicast channels: a channel is one system-wide stream named in every TMO that
 * publishes to it or subscribes to it, so all those declarations carry one payload type.
 */
public class ChannelValidator extends ConcernValidator {

  @Check
  public void checkPayloadAgrees(Channel channel) {
    if (channel.getName() == null || channel.getType() == null) {
      return;
    }
    final Channel first = ModelIndex.of(channel, getContext()).firstChannel.get(channel.getName());
    if (first == null || first == channel || first.getType() == null) {
      return;
    }
    final Optional<Boolean> same = sameType(first.getType(), channel.getType());
    if (same.isPresent() && !same.get()) {
      final Tmo owner = EcoreUtil2.getContainerOfType(first, Tmo.class);
      error(
          "channel '"
              + channel.getName()
              + "' carries "
              + text(channel.getType())
              + " here but "
              + text(first.getType())
              + (owner == null ? "" : " in TMO " + owner.getName())
              + " ("
              + where(first)
              + "); every declaration of a channel carries the same payload type",
          Literals.CHANNEL__TYPE,
          IssueCodes.CHANNEL_TYPE_MISMATCH);
    }
  }

  /** Whether two payloads are one type (typedefs see through); empty while a name is unknown. */
  static Optional<Boolean> sameType(TypeRef a, TypeRef b) {
    a = canonical(a);
    b = canonical(b);
    if (a == null || b == null) {
      return Optional.empty();
    }
    if (a instanceof PrimitiveTypeRef pa && b instanceof PrimitiveTypeRef pb) {
      return Optional.of(pa.getKind() == pb.getKind());
    }
    if (a instanceof StringTypeRef sa && b instanceof StringTypeRef sb) {
      final var boundA = Bounds.of(sa);
      final var boundB = Bounds.of(sb);
      return boundA.isEmpty() || boundB.isEmpty()
          ? Optional.empty()
          : Optional.of(boundA.equals(boundB));
    }
    if (a instanceof SequenceTypeRef sa && b instanceof SequenceTypeRef sb) {
      final var boundA = Bounds.of(sa);
      final var boundB = Bounds.of(sb);
      if (boundA.isEmpty() || boundB.isEmpty()) {
        return Optional.empty();
      }
      return boundA.equals(boundB)
          ? sameType(sa.getElementType(), sb.getElementType())
          : Optional.of(false);
    }
    if (a instanceof NamedTypeRef na && b instanceof NamedTypeRef nb) {
      return Optional.of(na.getType() == nb.getType());
    }
    return Optional.of(false);
  }

  /** The type a reference stands for, through typedefs without arrays; null while unresolved. */
  private static TypeRef canonical(TypeRef type) {
    for (int depth = 0; depth < 32 && type != null; depth++) {
      if (!(type instanceof NamedTypeRef named)) {
        return type;
      }
      final EObject declaration = named.getType();
      if (declaration == null || declaration.eIsProxy()) {
        return null;
      }
      if (!(declaration instanceof Typedef alias)
          || Bounds.written(alias, Literals.TYPEDEF__ARRAY_SIZE, alias.getArraySizeConstant())) {
        return type;
      }
      type = alias.getType();
    }
    return null; // a typedef cycle, reported as a recursive type
  }

  private static String text(TypeRef type) {
    final INode node = NodeModelUtils.getNode(type);
    return node == null ? "its type" : NodeModelUtils.getTokenText(node);
  }

  private static String where(EObject declaration) {
    final INode node = NodeModelUtils.getNode(declaration);
    final String file =
        declaration.eResource() == null ? "" : declaration.eResource().getURI().lastSegment();
    return node == null ? file : file + ":" + node.getStartLine();
  }
}
