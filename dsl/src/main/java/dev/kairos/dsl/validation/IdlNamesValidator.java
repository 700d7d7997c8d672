package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Channel;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.EnumLiteral;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.OperatingSystem;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Struct;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.util.SimpleAttributeResolver;
import org.eclipse.xtext.validation.Check;

/**
 * A channel whose payload is a struct is carried by DDS, and its types are written as OMG IDL for
 * Cyclone's idlc (docs/channels.md). IDL names are case-insensitive, and an enum's literals belong
 * to its module, not to the enum: C++ accepts {@code enum Mode { IDLE }} beside {@code enum State {
 * IDLE }}, or a field {@code point} beside a field {@code Point}, and idlc refuses both. Each
 * channel is checked once, at its first declaration: an error where a Linux node deploys a TMO that
 * declares it (its build runs idlc), a warning where none does yet.
 */
public class IdlNamesValidator extends ConcernValidator {

  @Check
  public void checkIdlNames(Channel channel) {
    if (channel.getName() == null || !(channel.getType() instanceof NamedTypeRef)) {
      return;
    }
    final ModelIndex index = ModelIndex.of(channel, getContext());
    if (index.firstChannel.get(channel.getName()) != channel) {
      return;
    }
    final TypeRef payload = ChannelValidator.canonical(channel.getType());
    if (!(payload instanceof NamedTypeRef named) || !(named.getType() instanceof Struct)) {
      return; // not carried by DDS: no IDL is written for it
    }
    final Set<EObject> types = new LinkedHashSet<>();
    if (!reach(payload, types)) {
      return; // a sequence of strings or of sequences: not carried by DDS either
    }
    final String collision = firstCollision(types);
    if (collision == null) {
      return;
    }
    final String message =
        "channel '"
            + channel.getName()
            + "' is carried by DDS, whose IDL names are case-insensitive and give an enum's"
            + " literals to its whole package: "
            + collision
            + ", so idlc refuses channels.idl; rename one";
    if (onLinux(channel.getName(), index)) {
      error(message, Literals.CHANNEL__TYPE, IssueCodes.IDL_NAME_COLLISION);
    } else {
      warning(message, Literals.CHANNEL__TYPE, IssueCodes.IDL_NAME_COLLISION);
    }
  }

  /**
   * Adds every declaration {@code type} reaches to {@code types}, as DdsEmitter writes them; false
   * when one is a sequence whose elements are strings or sequences (DDS does not carry it).
   */
  private static boolean reach(TypeRef type, Set<EObject> types) {
    if (type instanceof SequenceTypeRef sequence) {
      final TypeRef element = ChannelValidator.canonical(sequence.getElementType());
      return !(element instanceof StringTypeRef || element instanceof SequenceTypeRef)
          && reach(sequence.getElementType(), types);
    }
    if (!(type instanceof NamedTypeRef named)
        || named.getType() == null
        || named.getType().eIsProxy()
        || !types.add(named.getType())) {
      return true;
    }
    if (named.getType() instanceof Struct struct) {
      for (Field field : struct.getFields()) {
        if (!reach(field.getType(), types)) {
          return false;
        }
      }
    } else if (named.getType() instanceof Typedef alias) {
      return reach(alias.getType(), types);
    }
    return true;
  }

  /** The first pair of names IDL would take for one, described; null when there is none. */
  private static String firstCollision(Set<EObject> types) {
    // Per module: its own name, then each type's name and each enum literal, folded to lower case.
    final Map<String, EObject> declared = new HashMap<>();
    for (EObject type : types) {
      final List<String> module = moduleOf(type);
      final String scope = String.join("::", module);
      if (!module.isEmpty()) {
        final String enclosing = module.get(module.size() - 1);
        if (fold(nameOf(type)).equals(fold(enclosing))) {
          return describe(type) + " and its package's module '" + enclosing + "' collide";
        }
      }
      final String clash = declare(declared, scope, type);
      if (clash != null) {
        return clash;
      }
      if (type instanceof EnumDecl enumeration) {
        for (EnumLiteral literal : enumeration.getLiterals()) {
          final String literalClash = declare(declared, scope, literal);
          if (literalClash != null) {
            return literalClash;
          }
        }
      }
      if (type instanceof Struct struct) {
        final Map<String, Field> members = new HashMap<>();
        for (Field field : struct.getFields()) {
          if (fold(field.getName()).equals(fold(struct.getName()))) {
            return describe(field) + " and " + describe(struct) + " collide";
          }
          final Field earlier = members.putIfAbsent(fold(field.getName()), field);
          if (earlier != null) {
            return describe(earlier) + " and " + describe(field) + " collide";
          }
        }
      }
    }
    return null;
  }

  private static String declare(Map<String, EObject> declared, String scope, EObject named) {
    final EObject earlier = declared.putIfAbsent(scope + "::" + fold(nameOf(named)), named);
    return earlier == null || earlier == named
        ? null
        : describe(earlier) + " and " + describe(named) + " collide";
  }

  /** Whether a Linux node deploys a TMO that declares the channel named {@code name}. */
  private static boolean onLinux(String name, ModelIndex index) {
    for (Map.Entry<Tmo, Node> placed : index.placement.entrySet()) {
      if (placed.getValue().getOs() == OperatingSystem.LINUX
          && placed.getKey().getEac() != null
          && placed.getKey().getEac().getChannels().stream()
              .anyMatch(c -> name.equals(c.getName()))) {
        return true;
      }
    }
    return false;
  }

  private static List<String> moduleOf(EObject type) {
    final Model model = EcoreUtil2.getContainerOfType(type, Model.class);
    return model == null || model.getName() == null
        ? List.of()
        : List.of(model.getName().split("\\."));
  }

  private static String nameOf(EObject element) {
    final String name = SimpleAttributeResolver.NAME_RESOLVER.apply(element);
    return name == null ? "" : name.startsWith("^") ? name.substring(1) : name;
  }

  private static String fold(String name) {
    return (name.startsWith("^") ? name.substring(1) : name).toLowerCase(Locale.ROOT);
  }

  /** {@code enum literal 'IDLE' of Mode (avionics.tmo:12)}, {@code struct 'Fix' (...)}. */
  private static String describe(EObject element) {
    final String of =
        element instanceof EnumLiteral || element instanceof Field
            ? " of " + nameOf(element.eContainer())
            : "";
    return DeclarationKinds.word(element)
        + " '"
        + nameOf(element)
        + "'"
        + of
        + " ("
        + ChannelValidator.where(element)
        + ")";
  }
}
