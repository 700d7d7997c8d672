package dev.kairos.generator.emit;

import dev.kairos.ir.Durations;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Direction;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.Types.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The remote-call parts of a servant base: the client stubs of the TMO's gates (one class per gate,
 * whose member is the callee's operation) and the skeletons of its service methods (one function
 * per SvM that unmarshals a request, runs the method and answers it). Both marshal with the
 * generated {@code <Interface>.cdr.hpp}; a service method that serves no interface operation takes
 * and gives an empty message.
 */
final class RemoteEmitter {
  private RemoteEmitter() {}

  private static final String EMPTY = "::kairos::orb::Empty";

  /** The C++ types of one operation's messages. */
  private record Messages(
      Optional<Operation> operation, String request, String reply, String exception) {

    static Messages of(SystemModel system, TmoClass tmo, Svm svm) {
      if (svm.signature().isEmpty()) {
        return new Messages(Optional.empty(), EMPTY, EMPTY, "::kairos::orb::NoException");
      }
      final Operation op = svm.signature().get();
      final Interface iface = RemoteCalls.interfaceOf(system, tmo, op).orElseThrow();
      final List<String> namespace = InterfaceCdrEmitter.namespace(iface);
      return new Messages(
          Optional.of(op),
          CppNames.qualified(namespace, InterfaceCdrEmitter.requestType(op)),
          op.oneway() ? EMPTY : CppNames.qualified(namespace, InterfaceCdrEmitter.replyType(op)),
          op.raises().isEmpty()
              ? "::kairos::orb::NoException"
              : CppNames.qualified(namespace, InterfaceCdrEmitter.exceptionType(op)));
    }

    boolean oneway() {
      return operation.map(Operation::oneway).orElse(false);
    }

    boolean raises() {
      return operation.map(op -> !op.raises().isEmpty()).orElse(false);
    }

    TypeUse result() {
      return operation.map(Operation::result).orElse(null);
    }

    List<Parameter> parameters() {
      return operation.map(Operation::parameters).orElse(List.of());
    }
  }

  /** The marshalling headers a TMO's base needs: its SvMs' interfaces and its gates' callees'. */
  static Set<String> includes(SystemModel system, TmoClass tmo) {
    final Set<String> headers = new LinkedHashSet<>();
    for (Svm svm : tmo.svms()) {
      svm.signature()
          .flatMap(op -> RemoteCalls.interfaceOf(system, tmo, op))
          .ifPresent(iface -> headers.add(FileLayout.interfaceCdr(iface)));
    }
    for (Gate gate : tmo.gates()) {
      callee(system, gate)
          .ifPresent(
              target ->
                  target
                      .svm()
                      .signature()
                      .flatMap(op -> RemoteCalls.interfaceOf(system, target.tmo(), op))
                      .ifPresent(iface -> headers.add(FileLayout.interfaceCdr(iface))));
    }
    return headers;
  }

  private record Callee(TmoClass tmo, Svm svm) {}

  private static Optional<Callee> callee(SystemModel system, Gate gate) {
    return RemoteCalls.calleeClass(system, gate)
        .flatMap(tmo -> tmo.svm(gate.calleeMethod()).map(svm -> new Callee(tmo, svm)));
  }

  static String gateClass(Gate gate) {
    return CppNames.typeName(gate.name()) + "Gate";
  }

  static String skeleton(Svm svm) {
    return "serve_" + svm.name();
  }

  // ------------------------------------------------------------------ client side: gates

  /** The gate classes, the Gates and GateTargets structs and bind_gates (public part). */
  static void gates(CodeWriter w, SystemModel system, TmoClass tmo) {
    if (tmo.gates().isEmpty()) {
      return;
    }
    for (Gate gate : tmo.gates()) {
      final Optional<Callee> callee = callee(system, gate);
      if (callee.isEmpty()) {
        continue; // validation rejects gates to nothing; nothing to call
      }
      gateClass(w, system, gate, callee.get());
    }
    for (MethodAccess method : MethodAccess.of(tmo)) {
      if (!method.hasGates()) {
        continue;
      }
      w.line(Banner.origin(method.source()));
      w.docComment(
          "$kind$ $name$ calls $gates$: the gates its body can call, e.g."
              + " `gates.$gate$.$callee$(...)`.",
          "kind",
          method.kind(),
          "name",
          method.name(),
          "gates",
          String.join(", ", method.calls()),
          "gate",
          method.calls().get(0),
          "callee",
          tmo.gates().stream()
              .filter(g -> g.name().equals(method.calls().get(0)))
              .findFirst()
              .map(Gate::calleeMethod)
              .orElse(""));
      w.open("struct $type$ {", "type", method.gatesType());
      for (String gate : method.calls()) {
        final Gate declared =
            tmo.gates().stream().filter(g -> g.name().equals(gate)).findFirst().orElseThrow();
        w.line("$class$& $name$;", "class", gateClass(declared), "name", gate);
      }
      w.close("};").blank();
    }
    w.line("/// The TMO's gates (its eac), lent to each method as its `calls` say.");
    w.open("struct Gates {");
    for (Gate gate : tmo.gates()) {
      w.line("$type$ $name$;", "type", gateClass(gate), "name", gate.name());
    }
    w.close("};").blank();
    w.line("/// Where each gate's calls go: set by the node's main at start-up.");
    w.open("struct GateTargets {");
    for (Gate gate : tmo.gates()) {
      w.line("::kairos::orb::Target $name${};", "name", gate.name());
    }
    w.close("};").blank();
    w.open("void bind_gates(::kairos::orb::Orb& orb, const GateTargets& targets) noexcept {");
    for (Gate gate : tmo.gates()) {
      w.line("gates_.$name$.bind(orb, targets.$name$);", "name", gate.name());
    }
    w.close("}");
    w.line("const Gates& gates() const noexcept { return gates_; }").blank();
  }

  private static void gateClass(CodeWriter w, SystemModel system, Gate gate, Callee callee) {
    final Messages messages = Messages.of(system, callee.tmo(), callee.svm());
    w.line(Banner.origin(gate.source()));
    w.docComment(
        "gate $gate$ -> $tmo$.$method$, result-return deadline $deadline$: the client stub.",
        "gate",
        gate.name(),
        "tmo",
        callee.tmo().name(),
        "method",
        callee.svm().name(),
        "deadline",
        Durations.format(gate.deadlineNs()));
    w.open("class $class$ final : public ::kairos::orb::Gate {", "class", gateClass(gate));
    w.outdented(" public:");
    w.line(
        "$class$() noexcept : Gate($name$, ::std::chrono::nanoseconds{$deadline$}, $oneway$) {}",
        "class",
        gateClass(gate),
        "name",
        CppNames.literal(gate.name()),
        "deadline",
        gate.deadlineNs(),
        "oneway",
        messages.oneway());
    fitChecks(w, messages);
    w.blank();
    final List<String> parameters = new ArrayList<>();
    final List<String> requestFields = new ArrayList<>();
    for (Parameter parameter : messages.parameters()) {
      parameters.add(
          CppNames.parameter(parameter.direction(), parameter.type()) + " " + parameter.name());
      if (parameter.direction() != Direction.OUT) {
        requestFields.add(parameter.name());
      }
    }
    final String request = messages.request() + "{" + String.join(", ", requestFields) + "}";
    if (messages.oneway()) {
      w.docComment(
          "Sends a oneway request to $method$ (not answered): kOk once it is sent.",
          "method",
          callee.svm().name());
      w.openParenthesized(
          "::kairos::orb::CallStatus " + callee.svm().name() + "(", parameters, ") noexcept {");
      w.line("return send($request$);", "request", request);
      w.close("}");
      w.close("};").blank();
      return;
    }
    final String resultType = resultType(messages);
    final List<Parameter> returned =
        messages.parameters().stream().filter(p -> p.direction() != Direction.IN).toList();
    if (gate.nonBlocking()) {
      nonBlockingCall(w, messages, callee, request, resultType, returned);
      w.close("};").blank();
      return;
    }
    w.docComment(
        "Calls $method$ and waits for its reply until the gate's deadline; the result says what"
            + " came back.",
        "method",
        callee.svm().name());
    w.openParenthesized(resultType + " " + callee.svm().name() + "(", parameters, ") noexcept {");
    w.line("$reply$ reply{};", "reply", messages.reply());
    w.line("$result$::Raised raised{};", "result", resultType);
    w.line(
        "const ::kairos::orb::CallStatus status = invoke<$exception$>($request$, reply, raised);",
        "exception",
        messages.exception(),
        "request",
        request);
    returnResult(w, messages, returned);
    w.close("}");
    w.close("};").blank();
  }

  /**
   * A non-blocking gate's operation starts the call and returns its handle; {@code poll} collects
   * it later, without blocking, from the same method (the call travels on its lane's connection).
   */
  private static void nonBlockingCall(
      CodeWriter w,
      Messages messages,
      Callee callee,
      String request,
      String resultType,
      List<Parameter> returned) {
    final List<String> inputs = new ArrayList<>();
    for (Parameter parameter : messages.parameters()) {
      if (parameter.direction() != Direction.OUT) {
        inputs.add(CppNames.parameter(Direction.IN, parameter.type()) + " " + parameter.name());
      }
    }
    w.docComment(
        "Starts a call of $method$ without waiting: collect it with poll() from the same method,"
            + " until the gate's deadline.",
        "method",
        callee.svm().name());
    w.openParenthesized(
        "::kairos::orb::PendingCall " + callee.svm().name() + "(", inputs, ") noexcept {");
    w.line("return start($request$);", "request", request);
    w.close("}");
    w.blank();
    final List<String> outputs = new ArrayList<>();
    outputs.add("::kairos::orb::PendingCall& pending");
    for (Parameter parameter : returned) {
      outputs.add(CppNames.type(parameter.type()) + "& " + parameter.name());
    }
    w.docComment(
        "The outcome of a call $method$() started: status() is kPending until its reply has come"
            + " or the deadline has passed; out and inout arguments are assigned when it is ok.",
        "method",
        callee.svm().name());
    w.openParenthesized(resultType + " poll(", outputs, ") noexcept {");
    w.line("$reply$ reply{};", "reply", messages.reply());
    w.line("$result$::Raised raised{};", "result", resultType);
    w.line(
        "const ::kairos::orb::CallStatus status = collect<$exception$>(pending, reply, raised);",
        "exception",
        messages.exception());
    returnResult(w, messages, returned);
    w.close("}");
  }

  /** Hands the caller its out and inout arguments (when the call is ok) and the Result. */
  private static void returnResult(CodeWriter w, Messages messages, List<Parameter> returned) {
    if (!returned.isEmpty()) {
      w.open("if (status == ::kairos::orb::CallStatus::kOk) {");
      for (Parameter parameter : returned) {
        w.line("$name$ = reply.$name$;", "name", parameter.name());
      }
      w.close("}");
    }
    w.line(
        "return {status, $value$, raised};",
        "value",
        messages.result() == null ? EMPTY + "{}" : "reply." + InterfaceCdrEmitter.RESULT_MEMBER);
  }

  /**
   * Compile-time checks that the operation's messages fit the ORB's preallocated message body: a
   * model whose messages could not travel fails to build, with the capacity to raise named.
   */
  private static void fitChecks(CodeWriter w, Messages messages) {
    if (messages.operation().isEmpty()) {
      return; // empty messages
    }
    final String name = messages.operation().get().name();
    final List<String> types = new ArrayList<>();
    types.add(messages.request());
    if (!messages.oneway()) {
      types.add(messages.reply());
    }
    if (messages.raises()) {
      types.add(messages.exception());
    }
    for (String type : types) {
      w.parenthesized(
          "static_assert(",
          List.of(
              type + "::kMaxSize <= ::kairos::orb::kMaxBody",
              "\"a message of " + name + " may not fit the ORB's body capacity\""),
          ");");
    }
  }

  private static String resultType(Messages messages) {
    final List<String> arguments = new ArrayList<>();
    arguments.add(messages.result() == null ? "void" : CppNames.type(messages.result()));
    messages
        .operation()
        .ifPresent(op -> op.raises().forEach(raised -> arguments.add(CppNames.type(raised))));
    return "::kairos::orb::Result<" + String.join(", ", arguments) + ">";
  }

  // ------------------------------------------------------------------ server side: skeletons

  /** serve_<svm>: the engine's ServiceHandler for one service method's remote requests. */
  static void skeletons(CodeWriter w, SystemModel system, TmoClass tmo) {
    for (Svm svm : tmo.svms()) {
      skeleton(w, system, tmo, svm);
    }
  }

  private static void skeleton(CodeWriter w, SystemModel system, TmoClass tmo, Svm svm) {
    final Messages messages = Messages.of(system, tmo, svm);
    w.line(Banner.origin(svm.source()));
    w.docComment(
        "Skeleton of svm $name$: runs on the engine's lane once the request is admitted, with the"
            + " method's segments locked; unmarshals the request, runs the method and answers it.",
        "name",
        svm.name());
    w.line("template <typename Servant>");
    w.open(
        "static void $skeleton$(void* servant, void* request) noexcept {",
        "skeleton",
        skeleton(svm));
    fitChecks(w, messages);
    w.line("auto& call = *static_cast<::kairos::orb::ServerRequest*>(request);");
    w.line("$request$ arguments{};", "request", messages.request());
    w.open("if (!::kairos::orb::unmarshal(call, arguments)) {");
    w.line("return;");
    w.close("}");
    final List<String> arguments = new ArrayList<>();
    for (Parameter parameter : messages.parameters()) {
      arguments.add(
          (parameter.direction() == Direction.OUT ? "reply." : "arguments.") + parameter.name());
    }
    final String run =
        "static_cast<Servant*>(servant)->"
            + MethodAccess.of(svm).entryPoint()
            + "("
            + String.join(", ", arguments)
            + ")";
    if (messages.oneway()) {
      w.line("$run$;", "run", run);
      w.line("call.complete(::kairos::orb::ReplyStatus::kOk, 0);");
      w.close("}").blank();
      return;
    }
    w.line("$reply$ reply{};", "reply", messages.reply());
    final String resultMember = "reply." + InterfaceCdrEmitter.RESULT_MEMBER;
    if (messages.raises()) {
      w.line("const auto outcome = $run$;", "run", run);
      w.open("if (outcome.raised()) {");
      w.line(
          "::kairos::orb::answer_exception(call, $exception${outcome.exception()});",
          "exception",
          messages.exception());
      w.line("return;");
      w.close("}");
      if (messages.result() != null) {
        w.line("$member$ = outcome.value();", "member", resultMember);
      }
    } else if (messages.result() != null) {
      w.line("$member$ = $run$;", "member", resultMember, "run", run);
    } else {
      w.line("$run$;", "run", run);
    }
    for (Parameter parameter : messages.parameters()) {
      if (parameter.direction() == Direction.INOUT) {
        w.line("reply.$name$ = arguments.$name$;", "name", parameter.name());
      }
    }
    w.line("::kairos::orb::answer(call, reply);");
    w.close("}").blank();
  }
}
