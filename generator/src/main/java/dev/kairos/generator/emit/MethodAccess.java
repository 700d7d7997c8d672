package dev.kairos.generator.emit;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos.Access;
import dev.kairos.ir.Tmos.ChannelAccess;
import dev.kairos.ir.Tmos.ChannelUse;
import dev.kairos.ir.Tmos.Method;
import dev.kairos.ir.Tmos.SegmentAccess;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.Types.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What one method of a TMO may reach of its object data store, and how that is spelt in C++. A
 * method that uses segments gets a view type, {@code <Method>Access}, with one reference per
 * segment ({@code const} where it only reads) as its first parameter; the base's entry point {@code
 * run_<method>} builds that view from the private ODS. The segments are the ones its row of the
 * schedule table locks, so what a body can touch and what the engine locks are one list.
 *
 * <p>The names {@code <Method>Access} and {@code run_<method>} are kept free of collisions by the
 * language's name validation (TmoValidator).
 */
record MethodAccess(
    String kind,
    String name,
    List<SegmentAccess> uses,
    List<String> calls,
    List<ChannelUse> channelUses,
    Optional<Operation> operation,
    SourceRef source,
    String description) {

  /** The name of the view parameter, in declarations and starters. */
  static final String VIEW_PARAMETER = "ods";

  /** The name of the parameter that lends a method the gates it calls. */
  static final String GATES_PARAMETER = "gates";

  /** The private member of the servant base that holds the TMO's gates. */
  static final String GATES_MEMBER = "gates_";

  /** The name of the parameter that lends a method the channels it publishes and reads. */
  static final String CHANNELS_PARAMETER = "channels";

  /** The private member of the servant base that holds each method's channel ports. */
  static final String CHANNELS_MEMBER = "channels_";

  /** The private object data store member of the servant base. */
  static final String ODS_MEMBER = "ods_";

  static MethodAccess of(Method method) {
    return method instanceof Spm spm ? of(spm) : of((Svm) method);
  }

  static MethodAccess of(Spm spm) {
    return new MethodAccess(
        "spm",
        spm.name(),
        spm.uses(),
        spm.calls(),
        spm.channelUses(),
        Optional.empty(),
        spm.source(),
        Describe.spm(spm));
  }

  static MethodAccess of(Svm svm) {
    return new MethodAccess(
        "svm",
        svm.name(),
        svm.uses(),
        svm.calls(),
        svm.channelUses(),
        svm.signature(),
        svm.source(),
        Describe.svm(svm));
  }

  /** Every method of a TMO: its SpMs, then its SvMs, in model order. */
  static List<MethodAccess> of(TmoClass tmo) {
    return tmo.methods().stream().map(MethodAccess::of).toList();
  }

  /** Whether the method has a view: a method that uses no segment gets no parameter for them. */
  boolean hasView() {
    return !uses.isEmpty();
  }

  String viewType() {
    return CppNames.typeName(name) + "Access";
  }

  /** Whether the method calls gates: it is then lent them, in a {@code <Method>Gates} view. */
  boolean hasGates() {
    return !calls.isEmpty();
  }

  String gatesType() {
    return CppNames.typeName(name) + "Gates";
  }

  /**
   * Whether the method publishes or reads channels: it is then lent a publisher or reader of each,
   * in a {@code <Method>Channels} view.
   */
  boolean hasChannels() {
    return !channelUses.isEmpty();
  }

  String channelsType() {
    return CppNames.typeName(name) + "Channels";
  }

  /** The member of the base's channel ports that is this method's port of {@code channel}. */
  String channelPort(String channel) {
    return name + "_" + channel;
  }

  /** The method's clause as written in the model: "publishes track reads plan". */
  String channelsClause() {
    final List<String> parts = new ArrayList<>();
    for (ChannelUse use : channelUses) {
      parts.add((use.access() == ChannelAccess.PUBLISH ? "publishes " : "reads ") + use.channel());
    }
    return String.join(", ", parts);
  }

  String entryPoint() {
    return "run_" + name;
  }

  /** The method's clause as written in the model: "uses counters write, cfg read". */
  String usesClause() {
    final List<String> parts = new ArrayList<>();
    for (SegmentAccess use : uses) {
      parts.add(use.segment() + " " + use.access().name().toLowerCase(Locale.ROOT));
    }
    return "uses " + String.join(", ", parts);
  }

  /**
   * One member of the view: {@code const <Tmo>Ods::Seg& seg;} for a read, without const for a
   * write.
   */
  static String viewMember(TmoClass tmo, SegmentAccess use) {
    return (use.access() == Access.READ ? "const " : "")
        + ServantEmitter.odsType(tmo)
        + "::"
        + CppNames.typeName(use.segment())
        + "& "
        + use.segment()
        + ";";
  }

  /**
   * What the method returns: its operation's result, or, where the operation {@code raises}
   * exceptions, a {@code ::kairos::orb::Reply} of that result and those exceptions, so a body
   * raises one by returning it.
   */
  String result() {
    return operation.map(MethodAccess::resultOf).orElse("void");
  }

  static String resultOf(Operation op) {
    final String value = op.result() == null ? "void" : CppNames.type(op.result());
    if (op.raises().isEmpty()) {
      return value;
    }
    final List<String> arguments = new ArrayList<>();
    arguments.add(value);
    op.raises().forEach(raised -> arguments.add(CppNames.type(raised)));
    return "::kairos::orb::Reply<" + String.join(", ", arguments) + ">";
  }

  /** The interface operation's parameters, without the view. */
  List<Parameter> operationParameters() {
    return operation.map(Operation::parameters).orElse(List.of());
  }

  /**
   * The parameters of the method the user writes: the view first (where there is one), then the
   * operation's. With commentedNames the names are comments, as in starters' empty bodies.
   */
  List<String> parameters(boolean commentedNames) {
    final List<String> parameters = new ArrayList<>();
    if (hasView()) {
      parameters.add(viewType() + " " + name(VIEW_PARAMETER, commentedNames));
    }
    if (hasGates()) {
      parameters.add(gatesType() + " " + name(GATES_PARAMETER, commentedNames));
    }
    if (hasChannels()) {
      parameters.add(channelsType() + " " + name(CHANNELS_PARAMETER, commentedNames));
    }
    for (Parameter parameter : operationParameters()) {
      parameters.add(
          CppNames.parameter(parameter.direction(), parameter.type())
              + " "
              + name(parameter.name(), commentedNames));
    }
    return parameters;
  }

  /** {@code <result> <name>(<parameters>)} on one line: the method the user's class overrides. */
  String declaration(boolean commentedNames) {
    return result() + " " + name + "(" + String.join(", ", parameters(commentedNames)) + ")";
  }

  /** The entry point's parameters: the operation's, since the view is built inside. */
  List<String> entryParameters() {
    final List<String> parameters = new ArrayList<>();
    for (Parameter parameter : operationParameters()) {
      parameters.add(
          CppNames.parameter(parameter.direction(), parameter.type()) + " " + parameter.name());
    }
    return parameters;
  }

  /** The arguments with which the entry point calls the method: the view, then its parameters. */
  List<String> entryArguments() {
    final List<String> arguments = new ArrayList<>();
    if (hasView()) {
      final List<String> segments = new ArrayList<>();
      for (SegmentAccess use : uses) {
        segments.add(ODS_MEMBER + "." + use.segment());
      }
      arguments.add(viewType() + "{" + String.join(", ", segments) + "}");
    }
    if (hasGates()) {
      final List<String> gates = new ArrayList<>();
      for (String gate : calls) {
        gates.add(GATES_MEMBER + "." + gate);
      }
      arguments.add(gatesType() + "{" + String.join(", ", gates) + "}");
    }
    if (hasChannels()) {
      final List<String> ports = new ArrayList<>();
      for (ChannelUse use : channelUses) {
        ports.add(CHANNELS_MEMBER + "." + channelPort(use.channel()));
      }
      arguments.add(channelsType() + "{" + String.join(", ", ports) + "}");
    }
    operationParameters().forEach(parameter -> arguments.add(parameter.name()));
    return arguments;
  }

  /** How the entry point's statement begins: {@code return } unless the method returns void. */
  String entryStatement() {
    return result().equals("void") ? "" : "return ";
  }

  private static String name(String name, boolean commented) {
    return commented ? "/*" + name + "*/" : name;
  }
}
