package dev.kairos.ir;

import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.Types.Constant;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.List;
import java.util.Optional;

/**
 * The analysis IR: a whole, validated system as plain records. Analyses and emitters see only this,
 * never the EMF model it was lowered from. Types come in dependency order: every type is declared
 * after the types it contains.
 */
public record SystemModel(
    String modelName,
    List<TypeDeclaration> types,
    List<Constant> constants,
    List<Interface> interfaces,
    List<TmoClass> tmos,
    List<Node> nodes,
    List<Platform.Network> networks,
    List<Platform.DistributedSystem> systems) {

  /**
   * The same system with every TMO class replaced by {@code replace}'s answer, in the class list
   * and in every node's deployments alike (calibration swaps WCETs this way).
   */
  public SystemModel withTmos(java.util.function.UnaryOperator<TmoClass> replace) {
    final java.util.Map<TmoClass, TmoClass> replaced = new java.util.IdentityHashMap<>();
    tmos.forEach(tmo -> replaced.put(tmo, replace.apply(tmo)));
    final List<Node> movedNodes =
        nodes.stream()
            .map(
                node ->
                    node.withDeployments(
                        node.deployments().stream()
                            .map(d -> d.withTmo(replaced.computeIfAbsent(d.tmo(), replace)))
                            .toList()))
            .toList();
    return new SystemModel(
        modelName,
        types,
        constants,
        interfaces,
        tmos.stream().map(replaced::get).toList(),
        movedNodes,
        networks,
        systems);
  }

  /**
   * The system whose clock synchronisation node {@code node} takes part in: the first system with a
   * {@code clock-sync} that lists it (validation allows no node in two).
   */
  public Optional<Platform.DistributedSystem> clockSyncedSystemOf(String node) {
    return systems.stream()
        .filter(system -> system.clockSync() != null && system.nodes().contains(node))
        .findFirst();
  }

  /**
   * Whether node {@code node}'s tcp: endpoint takes only authenticated connections (TLS 1.3, a
   * certificate of the system's CA naming the caller): a tcp: endpoint does unless a network that
   * connects the node says {@code security none}. Other endpoints are never TLS: uds: and shm:
   * check the peer's user, udp: takes anonymous oneways; nor are sim nodes' (a simulated network).
   */
  public boolean authenticates(Node node) {
    return node.os() == Platform.OperatingSystem.LINUX
        && node.endpoint() != null
        && node.endpoint().startsWith("tcp:")
        && openNetworkOf(node).isEmpty();
  }

  /**
   * The same system, each node whose calls run TLS (its tcp: endpoint authenticated, or a gate of
   * it calling a node whose is) charged for its ORB messages as the platform file's call under TLS
   * ({@link Platform.Node#withAuthenticatedCalls}). Lowering gives the analyses this one.
   */
  public SystemModel withAuthenticatedCallsCharged() {
    final List<Node> charged =
        nodes.stream().map(n -> callsUnderTls(n) ? n.withAuthenticatedCalls() : n).toList();
    return new SystemModel(
        modelName, types, constants, interfaces, tmos, charged, networks, systems);
  }

  private boolean callsUnderTls(Node node) {
    if (authenticates(node)) {
      return true;
    }
    for (Platform.Deployment deployment : node.deployments()) {
      for (Tmos.Gate gate : deployment.tmo().gates()) {
        final Optional<Callee> callee = callee(gate);
        if (callee.isPresent()
            && callee.get().node() != node
            && callee.get().node().os() == node.os()
            && authenticates(callee.get().node())) {
          return true;
        }
      }
    }
    return false;
  }

  /** The first network connecting {@code node} that says {@code security none}. */
  public Optional<Platform.Network> openNetworkOf(Node node) {
    return networks.stream()
        .filter(network -> !network.authenticated() && network.nodes().contains(node.name()))
        .findFirst();
  }

  /** Where a gate's call goes: the node, the deployed instance and its service method. */
  public record Callee(Node node, Platform.Deployment deployment, Tmos.Svm svm) {}

  /**
   * The service method {@code gate} calls, where it is deployed: a gate names a TMO class and one
   * of its service methods, and validation lets a called class be deployed once. Empty when nothing
   * deployed serves it (validation reports that gate). Every part that follows a gate, the
   * analyses, the emitters and the diagrams, resolves it here.
   */
  public Optional<Callee> callee(Tmos.Gate gate) {
    for (Node node : nodes) {
      for (Platform.Deployment deployment : node.deployments()) {
        if (deployment.tmo().qualifiedName().equals(gate.calleeTmo())) {
          final Optional<Tmos.Svm> svm = deployment.tmo().svm(gate.calleeMethod());
          if (svm.isPresent()) {
            return Optional.of(new Callee(node, deployment, svm.get()));
          }
        }
      }
    }
    return Optional.empty();
  }

  /** A method of a deployed instance that publishes or reads a channel. */
  public record ChannelEnd(Node node, Platform.Deployment deployment, Tmos.Method method) {}

  /**
   * Every method of a deployed instance that uses channel {@code channel} the way {@code access}
   * says: by node, by deployment, SpMs before SvMs, each in model order. Every part that follows a
   * channel from its publishers to its readers, the chain analysis and the channel emitters, finds
   * its ends here.
   */
  public List<ChannelEnd> channelEnds(String channel, Tmos.ChannelAccess access) {
    final List<ChannelEnd> ends = new java.util.ArrayList<>();
    for (Node node : nodes) {
      for (Platform.Deployment deployment : node.deployments()) {
        for (Tmos.Method method : deployment.tmo().methods()) {
          for (Tmos.ChannelUse use : method.channelUses()) {
            if (use.channel().equals(channel) && use.access() == access) {
              ends.add(new ChannelEnd(node, deployment, method));
            }
          }
        }
      }
    }
    return List.copyOf(ends);
  }
}
