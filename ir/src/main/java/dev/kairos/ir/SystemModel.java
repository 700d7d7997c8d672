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
                    new Node(
                        node.name(),
                        node.os(),
                        node.strategy(),
                        node.hardware(),
                        node.endpoint(),
                        node.deployments().stream()
                            .map(
                                d ->
                                    new Platform.Deployment(
                                        d.instance(),
                                        replaced.computeIfAbsent(d.tmo(), replace),
                                        d.core(),
                                        d.source()))
                            .toList(),
                        node.source()))
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
}
