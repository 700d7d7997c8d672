package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Bandwidth;
import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.Hardware;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Network;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.OperatingSystem;
import dev.kairos.dsl.kairos.SystemDecl;
import dev.kairos.dsl.units.Quantities;
import dev.kairos.dsl.units.Quantities.QuantityException;
import dev.kairos.ir.RuntimeCapacities;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.validation.Check;

/** Hardware, nodes, networks and systems: well-formed endpoints and no node listed twice. */
public class PlatformValidator extends ConcernValidator {
  private static final Pattern ENDPOINT =
      Pattern.compile(
          "uds:/.+|(?:tcp|udp):([A-Za-z0-9.\\-]+):([1-9][0-9]{0,4})|shm:[A-Za-z0-9_\\-]+");

  @Check
  public void checkCores(Hardware hardware) {
    if (!org.eclipse.xtext.nodemodel.util.NodeModelUtils.findNodesForFeature(
                hardware, Literals.HARDWARE__CORES)
            .isEmpty()
        && hardware.getCores() <= 0) {
      error("a machine has at least 1 core", Literals.HARDWARE__CORES, IssueCodes.INVALID_CORES);
    }
  }

  /** A TMO pinned to a core names one its node's hardware has. */
  @Check
  public void checkCore(Deployment deployment) {
    if (!deployment.isPinned() || !(deployment.eContainer() instanceof Node node)) {
      return;
    }
    final int cores =
        node.getHardware() != null && node.getHardware().getCores() > 0
            ? node.getHardware().getCores()
            : 1;
    if (deployment.getCore() >= cores) {
      error(
          "core "
              + deployment.getCore()
              + " does not exist on node '"
              + node.getName()
              + "': its hardware has "
              + cores
              + (cores == 1 ? " core (core 0)" : " cores (0 to " + (cores - 1) + ")"),
          Literals.DEPLOYMENT__CORE,
          IssueCodes.CORE_OUT_OF_RANGE);
    }
  }

  /** A host name as DNS and an Ansible inventory accept it. */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252})");

  @Check
  public void checkHost(Node node) {
    final String host = node.getHost();
    if (host != null && !HOST.matcher(host).matches()) {
      error(
          "host '"
              + host
              + "' is not a host name: letters, digits, '.', '-' and '_', starting with a letter"
              + " or digit (the name of a host in the deployment's inventory)",
          Literals.NODE__HOST,
          IssueCodes.INVALID_HOST);
    }
  }

  @Check
  public void checkEndpoint(Node node) {
    final String endpoint = node.getEndpoint();
    if (endpoint == null) {
      return;
    }
    final var matcher = ENDPOINT.matcher(endpoint);
    if (!matcher.matches()
        || (matcher.group(2) != null && Integer.parseInt(matcher.group(2)) > 65535)) {
      error(
          "endpoint '"
              + endpoint
              + "' is not one of uds:/path, tcp:host:port, udp:host:port, shm:name",
          Literals.NODE__ENDPOINT,
          IssueCodes.INVALID_ENDPOINT);
      return;
    }
    final ModelIndex index = ModelIndex.of(node, getContext());
    final Node first = index.firstOnEndpoint.get(endpoint);
    if (first != null && first != node) {
      error(
          "node '" + first.getName() + "' already listens on " + endpoint,
          Literals.NODE__ENDPOINT,
          IssueCodes.DUPLICATE_ENDPOINT);
      return;
    }
    for (var earlier : index.firstOnEndpoint.entrySet()) {
      if (earlier.getValue() == node) {
        break; // only nodes before this one: the later of two is reported
      }
      final String shared = sharedPort(endpoint, earlier.getKey());
      if (shared != null) {
        error(
            "node '"
                + earlier.getValue().getName()
                + "' already listens on "
                + earlier.getKey()
                + ", and "
                + endpoint
                + " is the same socket: "
                + shared
                + "; give each node a port of its own",
            Literals.NODE__ENDPOINT,
            IssueCodes.DUPLICATE_ENDPOINT);
        return;
      }
    }
    if (endpoint.startsWith("udp:")) {
      checkBandPorts(index, node, endpoint, matcher.group(1), Integer.parseInt(matcher.group(2)));
    }
  }

  /**
   * Why two tcp: (or two udp:) endpoints written differently would bind the same port of this host,
   * or null when they would not: the same port where one host is the wildcard 0.0.0.0 (every
   * address), or both name the same address (`localhost` is 127.0.0.1).
   */
  static String sharedPort(String endpoint, String other) {
    final var a = ENDPOINT.matcher(endpoint);
    final var b = ENDPOINT.matcher(other);
    if (!a.matches()
        || !b.matches()
        || a.group(2) == null
        || b.group(2) == null
        || !endpoint.substring(0, 4).equals(other.substring(0, 4))
        || !a.group(2).equals(b.group(2))) {
      return null;
    }
    final String host = address(a.group(1));
    final String otherHost = address(b.group(1));
    if (host.equals("0.0.0.0") || otherHost.equals("0.0.0.0")) {
      return "0.0.0.0 takes port " + a.group(2) + " on every address of the host";
    }
    if (host.equals(otherHost)) {
      return "both are port " + a.group(2) + " of " + host;
    }
    return null;
  }

  /** A host as the address it names: `localhost` is the loopback address. */
  private static String address(String host) {
    return host.equalsIgnoreCase("localhost") ? "127.0.0.1" : host;
  }

  /**
   * A node listening on udp:host:P takes the oneways of band b on port P + b (docs/orb.md), and the
   * analysis numbers bands from 1 up to the runtime's bands per core: those ports must exist, and
   * be no other udp: node's on that host.
   */
  private void checkBandPorts(ModelIndex index, Node node, String endpoint, String host, int port) {
    final int bands = RuntimeCapacities.BANDS;
    if (port + bands > 65535) {
      error(
          "endpoint '"
              + endpoint
              + "' takes the oneways of band b on port "
              + port
              + " + b, for bands up to "
              + bands
              + ": its port can be at most "
              + (65535 - bands),
          Literals.NODE__ENDPOINT,
          IssueCodes.INVALID_ENDPOINT);
      return;
    }
    for (var earlier : index.firstOnEndpoint.entrySet()) {
      if (earlier.getValue() == node) {
        return; // only nodes before this one: the later of two overlapping nodes is reported
      }
      final var other = ENDPOINT.matcher(earlier.getKey());
      if (other.matches()
          && earlier.getKey().startsWith("udp:")
          && other.group(1).equals(host)
          && Math.abs(Integer.parseInt(other.group(2)) - port) < bands) {
        error(
            "the band ports of "
                + endpoint
                + " ("
                + (port + 1)
                + " to "
                + (port + bands)
                + ") overlap those of node '"
                + earlier.getValue().getName()
                + "' at "
                + earlier.getKey()
                + ": keep udp: ports of one host at least "
                + bands
                + " apart",
            Literals.NODE__ENDPOINT,
            IssueCodes.DUPLICATE_ENDPOINT);
        return;
      }
    }
  }

  /**
   * Each node builds an executable named after it, in one build of the system, so node names are
   * unique across packages and must differ in more than case.
   */
  @Check
  public void checkExecutableName(Node node) {
    if (node.getName() == null) {
      return;
    }
    final Model model = EcoreUtil2.getContainerOfType(node, Model.class);
    for (Node other :
        ModelIndex.of(node, getContext())
            .nodesByFoldedName
            .getOrDefault(node.getName().toLowerCase(Locale.ROOT), List.of())) {
      final Model otherModel = EcoreUtil2.getContainerOfType(other, Model.class);
      if (other == node
          || (other.getName().equals(node.getName())
              && java.util.Objects.equals(model.getName(), otherModel.getName()))) {
        continue; // the same node, or a duplicate name in one package (reported as such)
      }
      error(
          "nodes '"
              + ModelIndex.qualified(otherModel, other.getName())
              + "' and '"
              + ModelIndex.qualified(model, node.getName())
              + "' would build the same executable "
              + node.getName()
              + "; node names are unique in a system, whatever their package or case",
          Literals.NODE__NAME,
          IssueCodes.NAME_COLLISION);
      return;
    }
  }

  @Check
  public void checkBandwidth(Bandwidth bandwidth) {
    try {
      Quantities.bitsPerSecond(bandwidth);
    } catch (QuantityException e) {
      error(e.getMessage(), bandwidth, null, IssueCodes.INVALID_BANDWIDTH);
    }
  }

  /**
   * A system whose nodes all run on sim builds one more executable, named after the system, that
   * runs them in one process: no node may build an executable of that name.
   */
  @Check
  public void checkSystemExecutableName(SystemDecl system) {
    if (system.getName() == null
        || system.getNodes().isEmpty()
        || system.getNodes().stream()
            .anyMatch(n -> n == null || n.eIsProxy() || n.getOs() != OperatingSystem.SIM)) {
      return;
    }
    final Model model = EcoreUtil2.getContainerOfType(system, Model.class);
    for (Node node :
        ModelIndex.of(system, getContext())
            .nodesByFoldedName
            .getOrDefault(system.getName().toLowerCase(Locale.ROOT), List.of())) {
      final Model nodeModel = EcoreUtil2.getContainerOfType(node, Model.class);
      if (node.getName().equals(system.getName())
          && java.util.Objects.equals(model.getName(), nodeModel.getName())) {
        continue; // a duplicate name in one package, reported as such
      }
      error(
          "system '"
              + system.getName()
              + "' runs its sim nodes as one executable of its name, which node '"
              + ModelIndex.qualified(nodeModel, node.getName())
              + "' builds too; system and node names differ in more than case",
          Literals.SYSTEM_DECL__NAME,
          IssueCodes.NAME_COLLISION);
      return;
    }
  }

  @Check
  public void checkNetwork(Network network) {
    checkListedOnce(network.getNodes(), Literals.NETWORK__NODES);
    if (network.getSecurity() == dev.kairos.dsl.kairos.NetworkSecurity.NONE) {
      final List<String> open =
          network.getNodes().stream()
              .filter(n -> !n.eIsProxy() && n.getEndpoint() != null)
              .filter(n -> n.getEndpoint().startsWith("tcp:"))
              .map(Node::getName)
              .toList();
      if (!open.isEmpty()) {
        warning(
            "network '"
                + network.getName()
                + "' is not authenticated (security none): anyone who reaches "
                + String.join(", ", open)
                + " over tcp: may call as any node of the model; without it each connection"
                + " runs TLS 1.3 with the nodes' keys (kairos keys)",
            Literals.NETWORK__SECURITY,
            IssueCodes.UNAUTHENTICATED_NETWORK);
      }
    }
  }

  @Check
  public void checkSystem(SystemDecl system) {
    checkListedOnce(system.getNodes(), Literals.SYSTEM_DECL__NODES);
    final Node master = system.getClockMaster();
    if (master != null && !master.eIsProxy() && !system.getNodes().contains(master)) {
      error(
          "the clock-sync master '" + master.getName() + "' is not one of the system's nodes",
          Literals.SYSTEM_DECL__CLOCK_MASTER,
          IssueCodes.CLOCK_MASTER_NOT_IN_SYSTEM);
    } else if (master != null && !master.eIsProxy() && system.getNodes().size() > 1) {
      checkClockMasterReachable(system, master);
    }
    checkClockPeriod(system);
    checkSynchronisedOnce(system);
  }

  /** Followers exchange two-way messages with the master: it listens, and not on UDP. */
  private void checkClockMasterReachable(SystemDecl system, Node master) {
    final String endpoint = master.getEndpoint();
    if (endpoint == null) {
      error(
          "the clock-sync master '"
              + master.getName()
              + "' has no endpoint: the other nodes of system '"
              + system.getName()
              + "' could not reach it (give it one, e.g. endpoint \"tcp:127.0.0.1:7001\")",
          Literals.SYSTEM_DECL__CLOCK_MASTER,
          IssueCodes.CLOCK_MASTER_UNREACHABLE);
    } else if (endpoint.startsWith("udp:")) {
      error(
          "the clock-sync master '"
              + master.getName()
              + "' listens on "
              + endpoint
              + ", which carries oneways only: clock synchronisation needs two-way exchanges"
              + " (uds:, tcp: or shm:)",
          Literals.SYSTEM_DECL__CLOCK_MASTER,
          IssueCodes.CLOCK_MASTER_UNREACHABLE);
    }
  }

  private void checkClockPeriod(SystemDecl system) {
    if (system.getClockPeriod() == null) {
      return;
    }
    try {
      if (Quantities.nanoseconds(system.getClockPeriod()) == 0) {
        error(
            "a clock-sync period is longer than 0 (a round of exchanges each period)",
            Literals.SYSTEM_DECL__CLOCK_PERIOD,
            IssueCodes.INVALID_CLOCK_PERIOD);
      }
    } catch (QuantityException e) {
      // reported where the duration is written (TimingValidator)
    }
  }

  /** A node keeps its global time on one master: it is in at most one clock-synced system. */
  private void checkSynchronisedOnce(SystemDecl system) {
    if (system.getClockMaster() == null) {
      return;
    }
    for (SystemDecl other :
        EcoreUtil2.getAllContentsOfType(EcoreUtil2.getRootContainer(system), SystemDecl.class)) {
      if (other == system) {
        return; // only systems before this one: the later of two is reported
      }
      if (other.getClockMaster() == null) {
        continue;
      }
      for (Node node : system.getNodes()) {
        if (node != null && !node.eIsProxy() && other.getNodes().contains(node)) {
          error(
              "node '"
                  + node.getName()
                  + "' is synchronised by system '"
                  + other.getName()
                  + "' already: a node keeps its global time on one clock-sync master",
              Literals.SYSTEM_DECL__CLOCK_MASTER,
              IssueCodes.CLOCK_SYNCED_TWICE);
          return;
        }
      }
    }
  }

  private void checkListedOnce(List<Node> nodes, EReference feature) {
    final Set<Node> seen = new HashSet<>();
    for (int i = 0; i < nodes.size(); i++) {
      final Node node = nodes.get(i);
      if (node != null && !node.eIsProxy() && !seen.add(node)) {
        error(
            "node '" + node.getName() + "' is listed twice", feature, i, IssueCodes.DUPLICATE_NODE);
      }
    }
  }
}
