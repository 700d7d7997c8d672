package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.Interface;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Network;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Operation;
import dev.kairos.dsl.kairos.Segment;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.units.Quantities;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.validation.Check;

/**
 * TMOs as a whole: interfaces fully served, segments used once per method, names that stay distinct
 * in generated C++ (classes, segment types, and each method's entry point and segment view),
 * service methods that the basic concurrency constraint leaves room for, and remote calls whose
 * deadlines cover the trip (and that travel as oneways where the callee listens on UDP).
 */
public class TmoValidator extends ConcernValidator {

  @Check
  public void checkInterfacesServed(Tmo tmo) {
    final Set<String> served = new HashSet<>();
    for (Method method : tmo.getMethods()) {
      if (method instanceof Svm svm) {
        served.add(svm.getName());
      }
    }
    for (int i = 0; i < tmo.getInterfaces().size(); i++) {
      final Interface iface = tmo.getInterfaces().get(i);
      if (iface == null || iface.eIsProxy()) {
        continue;
      }
      for (Operation operation : iface.getOperations()) {
        if (!served.contains(operation.getName())) {
          error(
              "TMO '"
                  + tmo.getName()
                  + "' implements "
                  + iface.getName()
                  + " but has no svm '"
                  + operation.getName()
                  + "' to serve that operation",
              Literals.TMO__INTERFACES,
              i,
              IssueCodes.OPERATION_WITHOUT_SVM);
        }
      }
    }
  }

  @Check
  public void checkSegmentUses(Method method) {
    final Set<Segment> seen = new HashSet<>();
    for (int i = 0; i < method.getUses().size(); i++) {
      final Segment segment = method.getUses().get(i).getSegment();
      if (segment != null && !segment.eIsProxy() && !seen.add(segment)) {
        error(
            "segment '" + segment.getName() + "' is used twice by this method",
            Literals.METHOD__USES,
            i,
            IssueCodes.DUPLICATE_SEGMENT_USE);
      }
    }
  }

  @Check
  public void checkGateCalls(Method method) {
    final Set<Gate> seen = new HashSet<>();
    for (int i = 0; i < method.getCalls().size(); i++) {
      final Gate gate = method.getCalls().get(i);
      if (gate != null && !gate.eIsProxy() && !seen.add(gate)) {
        error(
            "gate '" + gate.getName() + "' is named twice in this method's calls",
            Literals.METHOD__CALLS,
            i,
            IssueCodes.DUPLICATE_GATE_CALL);
      }
    }
  }

  /**
   * A gate that no method declares it calls can be called by none: the generated code lends each
   * method the gates of its `calls`, and the analysis charges their waits to those methods.
   */
  @Check
  public void checkGatesCalled(Tmo tmo) {
    if (tmo.getEac() == null) {
      return;
    }
    final Set<Gate> called = new HashSet<>();
    for (Method method : tmo.getMethods()) {
      called.addAll(method.getCalls());
    }
    for (Gate gate : tmo.getEac().getGates()) {
      if (!called.contains(gate)) {
        warning(
            "no method calls gate '"
                + gate.getName()
                + "': add `calls "
                + gate.getName()
                + "` to the methods that call it",
            gate,
            Literals.GATE__NAME,
            IssueCodes.GATE_NOT_CALLED);
      }
    }
  }

  /** Generated C++ adds names: <Tmo>Base, <Tmo>Ods, and a capitalised type per segment. */
  @Check
  public void checkGeneratedNamesDistinct(Tmo tmo) {
    if (tmo.getOds() != null) {
      final Map<String, Segment> types = new HashMap<>();
      for (Segment segment : tmo.getOds().getSegments()) {
        if (segment.getName() == null || segment.getName().isEmpty()) {
          continue;
        }
        final String type =
            Character.toUpperCase(segment.getName().charAt(0)) + segment.getName().substring(1);
        final Segment other = types.putIfAbsent(type, segment);
        if (other != null) {
          error(
              "segments '"
                  + other.getName()
                  + "' and '"
                  + segment.getName()
                  + "' both become the C++ type "
                  + type,
              segment,
              Literals.SEGMENT__NAME,
              IssueCodes.NAME_COLLISION);
        }
      }
    }
    if (tmo.getName() == null) {
      return;
    }
    final ModelIndex index = ModelIndex.of(tmo, getContext());
    final Model model = EcoreUtil2.getContainerOfType(tmo, Model.class);
    for (String generated : List.of(tmo.getName() + "Base", tmo.getName() + "Ods")) {
      if (model != null && index.topLevel.containsKey(ModelIndex.qualified(model, generated))) {
        error(
            "'" + generated + "' collides with a class generated for TMO '" + tmo.getName() + "'",
            Literals.TMO__NAME,
            IssueCodes.NAME_COLLISION);
      }
    }
    if (model == null) {
      return;
    }
    final String qualifiedName = ModelIndex.qualified(model, tmo.getName());
    for (Tmo otherTmo :
        index.tmosByFoldedName.getOrDefault(qualifiedName.toLowerCase(Locale.ROOT), List.of())) {
      final Model otherModel = EcoreUtil2.getContainerOfType(otherTmo, Model.class);
      final String otherName = ModelIndex.qualified(otherModel, otherTmo.getName());
      if (!otherName.equals(qualifiedName)) {
        error(
            "TMOs '"
                + otherName
                + "' and '"
                + qualifiedName
                + "' differ only in case, so their generated files ("
                + qualifiedName.replace('.', '/')
                + ".base.hpp) collide where file names ignore case",
            Literals.TMO__NAME,
            IssueCodes.NAME_COLLISION);
      }
    }
  }

  /**
   * The servant base declares the miss handler and the node programs' way in ({@code EntryPoints})
   * and, per method, the method itself, its engine entry point {@code run_<method>} and, for a
   * method that uses segments, its view type {@code <Method>Access} (its parameter, {@code ods}, is
   * a keyword and so no operation's parameter name); none of these may name the same member twice.
   * (The spelling is the generator's MethodAccess.)
   */
  @Check
  public void checkMethodMembersDistinct(Tmo tmo) {
    final Map<String, String> members = new HashMap<>();
    members.put("on_deadline_miss", "the miss handler on_deadline_miss");
    members.put("EntryPoints", "the node programs' way in, EntryPoints,");
    for (Method method : tmo.getMethods()) {
      final String name = method.getName();
      if (name == null || name.isEmpty()) {
        continue;
      }
      final String kind = method instanceof Svm ? "svm" : "spm";
      final Map<String, String> generated = new LinkedHashMap<>();
      generated.put(name, kind + " '" + name + "'");
      generated.put(
          "run_" + name, "the entry point run_" + name + " of " + kind + " '" + name + "'");
      if (!method.getUses().isEmpty()) {
        final String view = Character.toUpperCase(name.charAt(0)) + name.substring(1) + "Access";
        generated.put(view, "the view type " + view + " of " + kind + " '" + name + "'");
      }
      for (Map.Entry<String, String> member : generated.entrySet()) {
        final String other = members.putIfAbsent(member.getKey(), member.getValue());
        if (other != null && member.getKey().equals(name) && other.endsWith(" '" + name + "'")) {
          break; // two methods of one name: reported as a duplicate name
        }
        if (other != null) {
          error(
              other
                  + " and "
                  + member.getValue()
                  + " are both named "
                  + member.getKey()
                  + " in the C++ base class of TMO '"
                  + tmo.getName()
                  + "'",
              method,
              Literals.METHOD__NAME,
              IssueCodes.NAME_COLLISION);
          break;
        }
      }
    }
  }

  /**
   * A gate's result-return deadline covers the network both ways (latency plus jitter) and the
   * callee's guaranteed completion time; and the callee must be deployed somewhere.
   */
  @Check
  public void checkGate(Gate gate) {
    final Tmo callee = gate.getCallee();
    final Svm method = gate.getMethod();
    if (callee == null || callee.eIsProxy() || method == null || method.eIsProxy()) {
      return;
    }
    final ModelIndex index = ModelIndex.of(gate, getContext());
    final Map<Tmo, Node> placement = index.placement;
    final Node calleeNode = placement.get(callee);
    if (calleeNode == null) {
      error(
          "the callee TMO '" + callee.getName() + "' is not deployed on any node",
          Literals.GATE__CALLEE,
          IssueCodes.CALLEE_NOT_DEPLOYED);
      return;
    }
    if (calleeNode.getEndpoint() == null
        && calleeNode.getOs() != dev.kairos.dsl.kairos.OperatingSystem.SIM) {
      // Calls reach a node through its endpoint; without one, nothing could answer this gate.
      error(
          "node '"
              + calleeNode.getName()
              + "', where the callee TMO '"
              + callee.getName()
              + "' runs, has no endpoint: give it one (e.g. endpoint \"tcp:127.0.0.1:7002\")",
          Literals.GATE__CALLEE,
          IssueCodes.CALLEE_WITHOUT_ENDPOINT);
      return;
    }
    final Tmo caller = EcoreUtil2.getContainerOfType(gate, Tmo.class);
    final Node callerNode = placement.get(caller);
    final OptionalLong deadline = TimingValidator.nanos(gate.getDeadline());
    final OptionalLong gct = TimingValidator.nanos(method.getGct());
    if (callerNode == null || deadline.isEmpty() || gct.isEmpty()) {
      return;
    }
    long network = 0;
    if (callerNode != calleeNode) {
      final Network link = linkBetween(index, callerNode, calleeNode);
      if (link == null) {
        error(
            "no network connects node '"
                + callerNode.getName()
                + "' (caller) and node '"
                + calleeNode.getName()
                + "' (callee)",
            Literals.GATE__CALLEE,
            IssueCodes.NO_NETWORK_PATH);
        return;
      }
      final long latency = TimingValidator.nanos(link.getLatency()).orElse(0);
      final long jitter = TimingValidator.nanos(link.getJitter()).orElse(0);
      network = 2 * (latency + jitter);
    }
    final long needed = network + gct.getAsLong();
    if (deadline.getAsLong() < needed) {
      error(
          "the result-return deadline "
              + Quantities.text(gate.getDeadline())
              + " is shorter than the round trip it covers: "
              + Quantities.formatNanos(network)
              + " of network (latency + jitter, both ways) + "
              + Quantities.text(method.getGct())
              + " GCT of "
              + callee.getName()
              + "."
              + method.getName()
              + " = "
              + Quantities.formatNanos(needed),
          Literals.GATE__DEADLINE,
          IssueCodes.GATE_DEADLINE_TOO_SHORT);
    }
  }

  /**
   * A node listening on udp: takes oneways only, one datagram each, and sends nothing back
   * (docs/orb.md): a gate to it must call a oneway operation that raises nothing.
   */
  @Check
  public void checkGateOverUdp(Gate gate) {
    final Tmo callee = gate.getCallee();
    final Svm method = gate.getMethod();
    if (callee == null
        || callee.eIsProxy()
        || method == null
        || method.eIsProxy()
        || method.getName() == null) {
      return;
    }
    final Node calleeNode = ModelIndex.of(gate, getContext()).placement.get(callee);
    if (calleeNode == null
        || calleeNode.getEndpoint() == null
        || !calleeNode.getEndpoint().startsWith("udp:")) {
      return;
    }
    final Operation operation = operationOf(callee, method.getName());
    final String why;
    if (operation == null) {
      why = "serves no interface operation, so it is called two-way";
    } else if (!operation.isOneway()) {
      why = "is a two-way operation";
    } else if (!operation.getRaises().isEmpty()) {
      why = "raises exceptions, which no reply could carry back";
    } else {
      return;
    }
    error(
        "gate '"
            + gate.getName()
            + "' calls "
            + callee.getName()
            + "."
            + method.getName()
            + ", which "
            + why
            + ", but node '"
            + calleeNode.getName()
            + "' listens on "
            + calleeNode.getEndpoint()
            + ": UDP carries oneway operations only (make it a oneway without raises, or give"
            + " the node a uds:, tcp: or shm: endpoint)",
        Literals.GATE__METHOD,
        IssueCodes.TWO_WAY_OVER_UDP);
  }

  /**
   * The operation a service method named `name` serves among the interfaces `tmo` implements (the
   * last of that name, as the generator takes it), or null.
   */
  private static Operation operationOf(Tmo tmo, String name) {
    Operation served = null;
    for (Interface iface : tmo.getInterfaces()) {
      if (iface == null || iface.eIsProxy()) {
        continue;
      }
      for (Operation operation : iface.getOperations()) {
        if (name.equals(operation.getName())) {
          served = operation;
        }
      }
    }
    return served;
  }

  private static Network linkBetween(ModelIndex index, Node a, Node b) {
    for (Network network : index.networks) {
      if (network.getNodes().contains(a) && network.getNodes().contains(b)) {
        return network;
      }
    }
    return null;
  }
}
