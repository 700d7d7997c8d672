package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.OperatingSystem;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.ChannelAccess;
import dev.kairos.ir.Tmos.TmoClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a model's RMMC channels run: the system-wide list of channels (a channel is one stream,
 * named alike in every TMO that declares it; its id is its place in that list, the same in every
 * node generated from the model), and on each node the methods that publish and read each channel
 * and the nodes its samples go to. Read only from the IR.
 */
final class ChannelPlan {
  private ChannelPlan() {}

  /** One channel of the system: its first declaration, its id and its topic. */
  record SystemChannel(int id, Channel channel, TmoClass declaredBy) {
    String name() {
      return channel.name();
    }

    /**
     * The system-wide name of the channel, the DDS topic that carries it: the package of its first
     * declaration and its name, joined by underscores ({@code avionics_track}).
     */
    String topic() {
      final List<String> parts = new ArrayList<>(declaredBy.namespace());
      parts.add(channel.name());
      return String.join("_", parts);
    }
  }

  /** A method of a deployed instance that publishes or reads a channel. */
  record Port(Deployment deployment, MethodAccess method, ChannelAccess access) {
    /** The port's member in its servant base (see {@link MethodAccess#channelPort}). */
    String member(String channel) {
      return method.channelPort(channel);
    }
  }

  /**
   * A channel on one node: its ports there and the other nodes its samples are sent to (those that
   * read it and that this node reaches over the simulated network).
   */
  record NodeChannel(
      SystemChannel channel, List<Port> publishers, List<Port> readers, List<Node> subscribers) {}

  /** Every channel of the model, in the order their first declarations appear. */
  static List<SystemChannel> channels(SystemModel system) {
    final Map<String, SystemChannel> channels = new LinkedHashMap<>();
    for (TmoClass tmo : system.tmos()) {
      for (Channel channel : tmo.channels()) {
        channels.computeIfAbsent(
            channel.name(), name -> new SystemChannel(channels.size(), channel, tmo));
      }
    }
    return List.copyOf(channels.values());
  }

  /** The channels the methods of {@code node}'s instances publish or read, in system order. */
  static List<NodeChannel> of(SystemModel system, Node node) {
    final List<NodeChannel> result = new ArrayList<>();
    for (SystemChannel channel : channels(system)) {
      // Each channel's ends are looked up once, then sorted by node.
      final List<SystemModel.ChannelEnd> allReaders =
          system.channelEnds(channel.name(), ChannelAccess.READ);
      final List<Port> publishers =
          ports(
              system.channelEnds(channel.name(), ChannelAccess.PUBLISH),
              node,
              ChannelAccess.PUBLISH);
      final List<Port> readers = ports(allReaders, node, ChannelAccess.READ);
      if (publishers.isEmpty() && readers.isEmpty()) {
        continue;
      }
      final List<Node> subscribers = new ArrayList<>();
      if (!publishers.isEmpty()) {
        for (Node other : system.nodes()) {
          if (!other.equals(node)
              && carriesBetween(node, other)
              && allReaders.stream().anyMatch(end -> end.node().equals(other))) {
            subscribers.add(other);
          }
        }
      }
      result.add(new NodeChannel(channel, publishers, readers, subscribers));
    }
    return result;
  }

  /** Whether some method of a TMO class publishes or reads a channel. */
  static boolean usesChannels(TmoClass tmo) {
    return MethodAccess.of(tmo).stream().anyMatch(MethodAccess::hasChannels);
  }

  /** The channel of that name a TMO declares. */
  static Optional<Channel> declared(TmoClass tmo, String name) {
    return tmo.channels().stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * Whether samples travel between two nodes as datagrams between their hubs: both on the sim
   * platform, in one process (on Linux, channels between nodes are DDS's part).
   */
  static boolean carriesBetween(Node from, Node to) {
    return from.os() == OperatingSystem.SIM && to.os() == OperatingSystem.SIM;
  }

  /** Whether a node receives samples from other nodes: it then listens on its channel endpoint. */
  static boolean receivesRemote(SystemModel system, Node node) {
    for (Node other : system.nodes()) {
      for (NodeChannel channel : of(system, other)) {
        if (channel.subscribers().contains(node)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Where a node's hub receives the channel samples other nodes send it, on the simulated network:
   * an address of its own per node of the model (its place among them), one port.
   */
  static String endpoint(SystemModel system, Node node) {
    final int index = system.nodes().indexOf(node) + 1;
    return "udp:127.77." + (index / 250) + "." + (index % 250 + 1) + ":7400";
  }

  /** The ends of a channel on {@code node}, as ports of its deployed instances. */
  private static List<Port> ports(
      List<SystemModel.ChannelEnd> ends, Node node, ChannelAccess access) {
    final List<Port> ports = new ArrayList<>();
    for (SystemModel.ChannelEnd end : ends) {
      if (end.node().equals(node)) {
        ports.add(new Port(end.deployment(), MethodAccess.of(end.method()), access));
      }
    }
    return ports;
  }
}
