package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Channel;
import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.Reliability;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.dsl.types.Bounds;
import dev.kairos.dsl.units.Quantities;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EStructuralFeature;
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

  /**
   * A channel's quality of service belongs to the one stream, so every declaration spells the same
   * (an option left out is its default: reliable, depth 1, no validity, fan-out 1).
   */
  @Check
  public void checkQosAgrees(Channel channel) {
    if (channel.getName() == null) {
      return;
    }
    final Channel first = ModelIndex.of(channel, getContext()).firstChannel.get(channel.getName());
    if (first == null || first == channel) {
      return;
    }
    final Optional<String> mine = qos(channel);
    final Optional<String> theirs = qos(first);
    if (mine.isPresent() && theirs.isPresent() && !mine.get().equals(theirs.get())) {
      final Tmo owner = EcoreUtil2.getContainerOfType(first, Tmo.class);
      error(
          "channel '"
              + channel.getName()
              + "' is "
              + mine.get()
              + " here but "
              + theirs.get()
              + (owner == null ? "" : " in TMO " + owner.getName())
              + " ("
              + where(first)
              + "); every declaration of a channel spells the same quality of service",
          Literals.CHANNEL__NAME,
          IssueCodes.CHANNEL_QOS_MISMATCH);
    }
  }

  /** History depth and fan-out count samples and readers: at least one; validity is a time. */
  @Check
  public void checkQosRange(Channel channel) {
    if (isSet(channel, Literals.CHANNEL__DEPTH) && channel.getDepth() < 1) {
      error(
          "a channel's depth counts the samples each reader keeps: at least 1",
          Literals.CHANNEL__DEPTH,
          IssueCodes.CHANNEL_QOS_RANGE);
    }
    if (isSet(channel, Literals.CHANNEL__FAN_OUT) && channel.getFanOut() < 1) {
      error(
          "a channel's fan-out bounds how many TMOs read it: at least 1",
          Literals.CHANNEL__FAN_OUT,
          IssueCodes.CHANNEL_QOS_RANGE);
    }
    if (channel.getValidity() != null) {
      try {
        if (Quantities.nanoseconds(channel.getValidity()) <= 0) {
          error(
              "a sample's validity must be longer than zero",
              Literals.CHANNEL__VALIDITY,
              IssueCodes.CHANNEL_QOS_RANGE);
        }
      } catch (Quantities.QuantityException e) {
        // reported where durations are checked
      }
    }
  }

  /**
   * A method names each channel once in its `publishes`, and once in its `reads`; and not in both:
   * what a method publishes it already holds (the generated view lends it one port per channel).
   */
  @Check
  public void checkChannelUses(Method method) {
    duplicates(method.getPublishes(), Literals.METHOD__PUBLISHES, "publishes");
    duplicates(method.getReads(), Literals.METHOD__READS, "reads");
    for (int i = 0; i < method.getReads().size(); i++) {
      final Channel channel = method.getReads().get(i);
      if (channel != null && !channel.eIsProxy() && method.getPublishes().contains(channel)) {
        error(
            "method '"
                + method.getName()
                + "' both publishes and reads channel '"
                + channel.getName()
                + "': what it publishes it already has; read the channel in another method",
            Literals.METHOD__READS,
            i,
            IssueCodes.CHANNEL_PUBLISHED_AND_READ);
      }
    }
  }

  /**
   * A channel read where nothing publishes it never delivers a sample; one published where nothing
   * reads it sends every sample to nobody.
   */
  @Check
  public void checkChannelHasBothEnds(Method method) {
    final ModelIndex index = ModelIndex.of(method, getContext());
    warnUnmatched(
        method.getReads(),
        index.publishedChannels,
        Literals.METHOD__READS,
        IssueCodes.CHANNEL_NO_PUBLISHER,
        name ->
            "no method of any TMO publishes channel '"
                + name
                + "', so this method never reads a sample: add `publishes "
                + name
                + "` to the method that produces it");
    warnUnmatched(
        method.getPublishes(),
        index.readChannels,
        Literals.METHOD__PUBLISHES,
        IssueCodes.CHANNEL_NO_READER,
        name ->
            "no method of any TMO reads channel '"
                + name
                + "', so what this method publishes reaches nobody: add `reads "
                + name
                + "` to the method that needs it, or stop publishing it");
  }

  /** A warning on each of `clause`'s channels that no method of any TMO names in `otherEnd`. */
  private void warnUnmatched(
      List<Channel> clause,
      Set<String> otherEnd,
      EReference feature,
      String code,
      java.util.function.Function<String, String> message) {
    for (int i = 0; i < clause.size(); i++) {
      final Channel channel = clause.get(i);
      if (channel != null
          && !channel.eIsProxy()
          && channel.getName() != null
          && !otherEnd.contains(channel.getName())) {
        warning(message.apply(channel.getName()), feature, i, code);
      }
    }
  }

  /**
   * A channel's fan-out bounds the TMO instances that read it, in the whole system: each deployment
   * of a TMO with a method that reads the channel counts once; those beyond the fan-out are errors,
   * at their `deploy`.
   */
  @Check
  public void checkFanOut(Deployment deployment) {
    final Tmo tmo = deployment.getTmo();
    if (tmo == null || tmo.eIsProxy()) {
      return;
    }
    final ModelIndex index = ModelIndex.of(deployment, getContext());
    for (String name : ModelIndex.channelsRead(tmo)) {
      final Channel declared = index.firstChannel.get(name);
      final List<Deployment> readers = index.channelReaders.getOrDefault(name, List.of());
      final int position = readers.indexOf(deployment);
      if (declared == null || position < 0) {
        continue;
      }
      final int fanOut = isSet(declared, Literals.CHANNEL__FAN_OUT) ? declared.getFanOut() : 1;
      if (fanOut >= 1 && position >= fanOut) {
        final List<String> earlier = new ArrayList<>();
        for (Deployment reader : readers.subList(0, fanOut)) {
          earlier.add(reader.getName());
        }
        error(
            "channel '"
                + name
                + "' has fan-out "
                + fanOut
                + ", and "
                + deployment.getName()
                + " would be reader "
                + (position + 1)
                + " of it (after "
                + String.join(", ", earlier)
                + "): raise the channel's fan-out in every declaration, or deploy fewer readers",
            deployment,
            Literals.DEPLOYMENT__NAME,
            IssueCodes.CHANNEL_FAN_OUT_EXCEEDED);
      }
    }
  }

  /**
   * A channel no method of its TMO publishes or reads is dead weight: the generated code lends a
   * method the channels of its `publishes` and `reads`, and the analysis follows those.
   */
  @Check
  public void checkChannelsUsed(Tmo tmo) {
    if (tmo.getEac() == null) {
      return;
    }
    final Set<Channel> used = new HashSet<>();
    for (Method method : tmo.getMethods()) {
      used.addAll(method.getPublishes());
      used.addAll(method.getReads());
    }
    for (Channel channel : tmo.getEac().getChannels()) {
      if (!used.contains(channel)) {
        warning(
            "no method publishes or reads channel '"
                + channel.getName()
                + "': add `publishes "
                + channel.getName()
                + "` or `reads "
                + channel.getName()
                + "` to the methods that use it",
            channel,
            Literals.CHANNEL__NAME,
            IssueCodes.CHANNEL_NOT_USED);
      }
    }
  }

  private void duplicates(List<Channel> channels, EReference feature, String clause) {
    final Set<Channel> seen = new HashSet<>();
    for (int i = 0; i < channels.size(); i++) {
      final Channel channel = channels.get(i);
      if (channel != null && !channel.eIsProxy() && !seen.add(channel)) {
        error(
            "channel '" + channel.getName() + "' is named twice in this method's " + clause,
            feature,
            i,
            IssueCodes.DUPLICATE_CHANNEL_USE);
      }
    }
  }

  /** The quality of service as it reads in a message; empty while a duration is malformed. */
  private static Optional<String> qos(Channel channel) {
    final StringBuilder text = new StringBuilder();
    text.append(channel.getReliability() == Reliability.BEST_EFFORT ? "best-effort" : "reliable");
    text.append(", depth ")
        .append(isSet(channel, Literals.CHANNEL__DEPTH) ? channel.getDepth() : 1);
    if (channel.getValidity() != null) {
      try {
        text.append(", validity ")
            .append(Quantities.formatNanos(Quantities.nanoseconds(channel.getValidity())));
      } catch (Quantities.QuantityException e) {
        return Optional.empty();
      }
    }
    text.append(", fan-out ")
        .append(isSet(channel, Literals.CHANNEL__FAN_OUT) ? channel.getFanOut() : 1);
    return Optional.of(text.toString());
  }

  /** Whether the option was written (an INT left out reads 0, as a written 0 would). */
  private static boolean isSet(Channel channel, EStructuralFeature feature) {
    return !NodeModelUtils.findNodesForFeature(channel, feature).isEmpty();
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
  static TypeRef canonical(TypeRef type) {
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

  /** {@code file:line} of a declaration, for messages that point at another place. */
  static String where(EObject declaration) {
    final INode node = NodeModelUtils.getNode(declaration);
    final String file =
        declaration.eResource() == null ? "" : declaration.eResource().getURI().lastSegment();
    return node == null ? file : file + ":" + node.getStartLine();
  }
}
