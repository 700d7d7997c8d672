package dev.kairos.generator.emit;

import dev.kairos.generator.emit.ChannelPlan.NodeChannel;
import dev.kairos.generator.emit.ChannelPlan.Port;
import dev.kairos.generator.emit.ChannelPlan.SystemChannel;
import dev.kairos.ir.Durations;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.OperatingSystem;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.ChannelAccess;
import dev.kairos.ir.Tmos.ChannelUse;
import dev.kairos.ir.Tmos.Reliability;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.TypeDeclaration;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The generated side of RMMC channels ({@code kairos/channel/channel.hpp} at run time). In a TMO's
 * servant base: a publisher or reader type per channel, a {@code <Method>Channels} view per method
 * that lends it exactly the channels of its {@code publishes} and {@code reads} (as {@code
 * <Method>Gates} lends gates), and the private ports behind those views, one per (method, channel).
 * In a node program: the node's channel table ({@code kChannels}, with each channel's system-wide
 * id and quality of service), a {@code NodeChannel} per channel, and the hub that drains publishers
 * and carries samples to the nodes that read them, started in {@code set_up} and stopped, with a
 * {@code channel} line per channel, in {@code finish}.
 */
final class ChannelEmitter {
  private ChannelEmitter() {}

  /** The private struct of a servant base that holds the ports. */
  private static final String PORTS_TYPE = "ChannelPorts";

  /** The EntryPoints member through which a node program reaches a base's ports. */
  private static final String PORTS_ENTRY = "channel_ports";

  static String publisherType(String channel) {
    return CppNames.typeName(channel) + "Publisher";
  }

  static String readerType(String channel) {
    return CppNames.typeName(channel) + "Reader";
  }

  /** What a declaration says, as the model writes it. */
  static String describe(Channel channel) {
    return "channel "
        + channel.name()
        + " : rmmc<"
        + typeText(channel.type())
        + "> "
        + channel.reliability().name().toLowerCase(Locale.ROOT).replace('_', '-')
        + " depth "
        + channel.depth()
        + (channel.validityNs() > 0 ? " validity " + Durations.format(channel.validityNs()) : "")
        + " fan-out "
        + channel.fanOut();
  }

  private static String typeText(TypeUse type) {
    if (type instanceof TypeUse.Named named) {
      return named.name();
    }
    if (type instanceof TypeUse.Primitive primitive) {
      return primitive.kind().name().toLowerCase(Locale.ROOT);
    }
    if (type instanceof TypeUse.BoundedString string) {
      return "string<" + string.bound() + ">";
    }
    if (type instanceof TypeUse.Sequence sequence) {
      return "sequence<" + typeText(sequence.element()) + ", " + sequence.bound() + ">";
    }
    return "?";
  }

  // ----- servant base -------------------------------------------------------------------------

  /** The include a servant base needs when its methods use channels. */
  static void includes(CodeWriter w, TmoClass tmo) {
    if (ChannelPlan.usesChannels(tmo)) {
      w.line("#include <kairos/channel/channel.hpp>");
    }
  }

  /** Public part of a servant base: the port types and each method's view. */
  static void views(CodeWriter w, TmoClass tmo) {
    if (!ChannelPlan.usesChannels(tmo)) {
      return;
    }
    final List<MethodAccess> methods = MethodAccess.of(tmo);
    for (Channel channel : tmo.channels()) {
      final boolean published = uses(methods, channel.name(), ChannelAccess.PUBLISH);
      final boolean read = uses(methods, channel.name(), ChannelAccess.READ);
      if (!published && !read) {
        continue;
      }
      w.line(Banner.origin(channel.source()));
      w.docComment(
          "$channel$: its $sides$.",
          "channel",
          describe(channel),
          "sides",
          published && read ? "publisher and reader" : published ? "publisher" : "reader");
      final String arguments = CppNames.type(channel.type()) + ", " + channel.depth();
      if (published) {
        w.line(
            "using $type$ = ::kairos::channel::Publisher<$arguments$>;",
            "type",
            publisherType(channel.name()),
            "arguments",
            arguments);
      }
      if (read) {
        w.line(
            "using $type$ = ::kairos::channel::Reader<$arguments$>;",
            "type",
            readerType(channel.name()),
            "arguments",
            arguments);
      }
      w.blank();
    }
    for (MethodAccess method : methods) {
      if (!method.hasChannels()) {
        continue;
      }
      final ChannelUse first = method.channelUses().get(0);
      w.line(Banner.origin(method.source()));
      w.docComment(
          "$kind$ $name$ $clause$: the channels its body can use, e.g. `channels.$channel$.$call$`.",
          "kind",
          method.kind(),
          "name",
          method.name(),
          "clause",
          method.channelsClause(),
          "channel",
          first.channel(),
          "call",
          first.access() == ChannelAccess.PUBLISH ? "publish(value)" : "take(sample)");
      w.open("struct $type$ {", "type", method.channelsType());
      for (ChannelUse use : method.channelUses()) {
        w.line(
            "$type$& $name$;",
            "type",
            use.access() == ChannelAccess.PUBLISH
                ? publisherType(use.channel())
                : readerType(use.channel()),
            "name",
            use.channel());
      }
      w.close("};").blank();
    }
  }

  /** Private part of a servant base: the ports, one per method and channel it uses. */
  static void ports(CodeWriter w, TmoClass tmo) {
    if (!ChannelPlan.usesChannels(tmo)) {
      return;
    }
    w.line(
        "/// Each method's publisher or reader of each channel it uses: bound to the node's"
            + " channels");
    w.line("/// by the node program (through $entries$).", "entries", ServantEmitter.ENTRY_POINTS);
    w.open("struct $type$ {", "type", PORTS_TYPE);
    for (MethodAccess method : MethodAccess.of(tmo)) {
      for (ChannelUse use : method.channelUses()) {
        w.line(
            "$type$ $member$;",
            "type",
            use.access() == ChannelAccess.PUBLISH
                ? publisherType(use.channel())
                : readerType(use.channel()),
            "member",
            method.channelPort(use.channel()));
      }
    }
    w.close("};");
    w.line("$type$ $member${};", "type", PORTS_TYPE, "member", MethodAccess.CHANNELS_MEMBER);
  }

  private static boolean uses(List<MethodAccess> methods, String channel, ChannelAccess access) {
    return methods.stream()
        .flatMap(m -> m.channelUses().stream())
        .anyMatch(u -> u.channel().equals(channel) && u.access() == access);
  }

  // ----- node program -------------------------------------------------------------------------

  /** The EntryPoints member that reaches a base's ports (inside the EntryPoints definition). */
  static void entryPoint(CodeWriter w, TmoClass tmo) {
    if (!ChannelPlan.usesChannels(tmo)) {
      return;
    }
    w.line(
        "static constexpr auto $entry$ = &$type$::$member$;",
        "entry",
        PORTS_ENTRY,
        "type",
        CppNames.qualified(tmo.namespace(), tmo.name()),
        "member",
        MethodAccess.CHANNELS_MEMBER);
  }

  static boolean runsChannels(SystemModel system, Node node) {
    return !ChannelPlan.of(system, node).isEmpty();
  }

  /** The node program's includes for its channels. */
  static void includes(CodeWriter w, SystemModel system, Node node) {
    if (runsChannels(system, node)) {
      if (onDds(system, node)) {
        w.line("#include <kairos/channel/dds.hpp>");
      }
      w.line("#include <kairos/channel/hub.hpp>");
      if (onDds(system, node)) {
        w.line("#include <kairos/probe_dds.hpp>");
      }
    }
  }

  /** The marshalling of payload types, for the samples the hub sends and receives. */
  static void localIncludes(CodeWriter w, SystemModel system, Node node) {
    if (runsChannels(system, node)) {
      if (onDds(system, node)) {
        w.line("#include \"$header$\"", "header", FileLayout.CHANNELS_DDS);
      }
      w.line("#include \"$header$\"", "header", TypesCdrEmitter.FILE);
    }
  }

  /** The node's channels that Cyclone DDS carries: on a Linux node, those of the IDL subset. */
  static List<NodeChannel> ddsChannels(SystemModel system, Node node) {
    if (node.os() != OperatingSystem.LINUX) {
      return List.of();
    }
    return ChannelPlan.of(system, node).stream()
        .filter(c -> DdsEmitter.carried(system, c.channel()))
        .toList();
  }

  /** Whether a node's executable joins a DDS domain (and links Cyclone DDS). */
  static boolean onDds(SystemModel system, Node node) {
    return !ddsChannels(system, node).isEmpty();
  }

  /** The DDS side of each carried channel: a writer's store and forwarder, a reader's receiver. */
  private static void ddsDefinitions(
      CodeWriter w, SystemModel system, Node node, List<NodeChannel> all) {
    final List<NodeChannel> carried = ddsChannels(system, node);
    if (carried.isEmpty()) {
      return;
    }
    w.comment(
        "Cyclone DDS carries these channels to other nodes and to any DDS application: the hub"
            + " forwards each sample it drains to its writer, converted into idlc's C type in a"
            + " store made once; each sample DDS receives is converted into the channel's"
            + " readers by the hub, where this node publishes the channel too, else by DDS's"
            + " listener.");
    w.line("namespace on_dds {");
    for (NodeChannel channel : carried) {
      final String name = channel.channel().name();
      final Channel declared = channel.channel().channel();
      final String kairosType = CppNames.type(declared.type());
      final String cType = DdsEmitter.payloadC(system, channel.channel());
      final String store = storeOf(system, channel.channel());
      if (!channel.publishers().isEmpty()) {
        w.open("struct $Name$Writer {", "Name", CppNames.typeName(name));
        w.line("$store$ store{};", "store", store);
        w.line("$c$ sample{};", "c", cType);
        w.line("dds_entity_t writer = 0;");
        w.close("};");
        w.line("$Name$Writer $name$_writer;", "Name", CppNames.typeName(name), "name", name);
        w.open(
            "void forward_$name$(void* context, const ::kairos::channel::Sample<$type$>& sample)"
                + " noexcept {",
            "name",
            name,
            "type",
            kairosType);
        w.line(
            "auto& out = *static_cast<$Name$Writer*>(context);", "Name", CppNames.typeName(name));
        w.line(
            "$ns$to_dds(sample.value, out.sample, out.store);",
            "ns",
            ddsNamespace(system, channel.channel()));
        w.line(
            "dds_write_ts(out.writer, &out.sample,"
                + " ::kairos::channel::dds::source_timestamp(sample.publish_ns));");
        w.close("}");
      }
      if (!channel.readers().isEmpty()) {
        w.line(
            "::kairos::channel::Sample<$type$> $name$_received{};",
            "type",
            kairosType,
            "name",
            name);
        w.open(
            "bool receive_$name$(void* /*context*/, const void* c_sample, ::std::int64_t"
                + " publish_ns, ::std::int64_t now_ns) noexcept {",
            "name",
            name);
        w.open(
            "if (!$ns$from_dds(*static_cast<const $c$*>(c_sample), $name$_received.value)) {",
            "ns",
            ddsNamespace(system, channel.channel()),
            "c",
            cType,
            "name",
            name);
        w.line("return false;");
        w.close("}");
        w.line("$name$_received.publish_ns = publish_ns;", "name", name);
        w.line("channels::$name$.deliver($name$_received, now_ns);", "name", name);
        w.line("return true;");
        w.close("}");
      }
    }
    w.line("}  // namespace on_dds").blank();
    w.line("::kairos::channel::dds::DdsLink* dds_link = nullptr;").blank();
  }

  /** In set_up_channels, before the hub starts: the participant, writers and readers. */
  private static void ddsSetUp(CodeWriter w, SystemModel system, Node node, List<NodeChannel> all) {
    final List<NodeChannel> carried = ddsChannels(system, node);
    if (carried.isEmpty()) {
      return;
    }
    w.line(
        "static ::kairos::channel::dds::DdsLink dds{::kairos::channel::dds::DdsLink::Options{.node"
            + " = kNode, .cpu = options.orb_cpu}};");
    w.line("dds_link = &dds;");
    w.line("dds.wake_on_data(hub.wake());");
    w.line("hub.set_poll(&::kairos::channel::dds::DdsLink::poll, &dds);");
    w.comment(
        "Set up as the hub runs (its band, its CPU): DDS's threads inherit both, and no"
            + " time-shared process delays set-up while it holds DDS's locks.");
    w.open("const bool dds_ready = dds.as_hub([&]() noexcept {");
    check(
        w,
        "dds.create_participant() != ::kairos::kal::Status::kOk",
        "channels: no DDS domain to join");
    for (NodeChannel channel : carried) {
      final String name = channel.channel().name();
      final int index = all.indexOf(channel);
      final String descriptor = DdsEmitter.payloadC(system, channel.channel()) + "_desc";
      if (!channel.publishers().isEmpty()) {
        w.line(
            "on_dds::$name$_writer.writer = dds.add_writer(kChannels[$index$], $desc$);",
            "name",
            name,
            "index",
            index,
            "desc",
            descriptor);
        check(w, "on_dds::" + name + "_writer.writer < 0", "channel " + name + ": no DDS writer");
        w.line(
            "channels::$name$.set_forward(&on_dds::forward_$name$, &on_dds::$name$_writer);",
            "name",
            name);
      }
      if (!channel.readers().isEmpty()) {
        // The readers' histories keep one producer: the hub's sender where it feeds them with
        // this node's own samples too, else DDS's listener, a thread wake-up sooner.
        final String delivery = channel.publishers().isEmpty() ? "kInListener" : "kOnHub";
        check(
            w,
            "dds.add_reader(kChannels["
                + index
                + "], "
                + descriptor
                + ", &on_dds::receive_"
                + name
                + ", nullptr, ::kairos::channel::dds::Delivery::"
                + delivery
                + ") != ::kairos::kal::Status::kOk",
            "channel " + name + ": no DDS reader");
      }
    }
    w.line("return true;");
    w.close("});");
    w.open("if (!dds_ready) {");
    w.line("return false;");
    w.close("}");
  }

  private static String storeOf(SystemModel system, SystemChannel channel) {
    final TypeDeclaration payload = DdsEmitter.payload(system, channel);
    return CppNames.qualified(payload.namespace(), "dds::" + payload.name() + "Store");
  }

  private static String ddsNamespace(SystemModel system, SystemChannel channel) {
    return CppNames.qualified(DdsEmitter.payload(system, channel).namespace(), "dds::");
  }

  /** The channel table, the node's channels and their hub (in the node's anonymous namespace). */
  static void definitions(CodeWriter w, SystemModel system, TimingPlan analysis, Node node) {
    final List<NodeChannel> channels = ChannelPlan.of(system, node);
    if (channels.isEmpty()) {
      return;
    }
    w.comment(
        "The RMMC channels this node's methods publish or read, with their quality of service;"
            + " an id is the channel's place in the system's list, the same on every node.");
    w.openList(
        "constexpr ::std::array<::kairos::channel::ChannelSpec, $count$> kChannels{{",
        "count",
        channels.size());
    for (NodeChannel channel : channels) {
      final Channel declared = channel.channel().channel();
      w.line("// $description$", "description", describe(declared));
      w.line(
          "{.name = $name$, .topic = $topic$, .id = $id$, .reliability ="
              + " ::kairos::channel::Reliability::$reliability$, .depth = $depth$, .validity ="
              + " ::std::chrono::nanoseconds{$validity$}, .fan_out = $fanOut$, .source ="
              + " $source$, .delivery_bound = ::std::chrono::nanoseconds{$bound$}},",
          "name",
          CppNames.literal(declared.name()),
          "topic",
          CppNames.literal(channel.channel().topic()),
          "id",
          channel.channel().id(),
          "reliability",
          declared.reliability() == Reliability.RELIABLE ? "kReliable" : "kBestEffort",
          "depth",
          declared.depth(),
          "validity",
          declared.validityNs(),
          "fanOut",
          declared.fanOut(),
          "source",
          CppNames.literal(declared.source().toString()),
          "bound",
          analysis.deliveryBound(node.name(), declared.name()));
    }
    w.closeList("}};").blank();
    w.comment(
        "Each channel on this node: its counters, and the publishers and readers of the methods"
            + " here (as many as the model gives it).");
    w.line("namespace channels {");
    for (int index = 0; index < channels.size(); index++) {
      final NodeChannel channel = channels.get(index);
      final Channel declared = channel.channel().channel();
      w.line(
          "::kairos::channel::NodeChannel<$type$, $depth$, $publishers$, $readers$> $name${kChannels[$index$]};",
          "type",
          CppNames.type(declared.type()),
          "depth",
          declared.depth(),
          "publishers",
          channel.publishers().size(),
          "readers",
          channel.readers().size(),
          "name",
          declared.name(),
          "index",
          index);
    }
    w.line("}  // namespace channels").blank();
    w.docComment(
        "The node's channel hub: drains the publishers below every lane, hands samples to the"
            + " readers here and sends them to the nodes that read them.");
    w.line("::kairos::channel::ChannelHub* channel_hub = nullptr;").blank();
    ddsDefinitions(w, system, node, channels);

    w.open("bool set_up_channels(const ::kairos::NodeOptions& options) noexcept {");
    w.line(
        "static ::kairos::channel::ChannelHub hub{::kairos::channel::HubOptions{.node = kNode,"
            + " .cpu = options.orb_cpu}};");
    w.line("channel_hub = &hub;");
    for (NodeChannel channel : channels) {
      final String name = channel.channel().name();
      final List<Port> ports = new ArrayList<>(channel.publishers());
      ports.addAll(channel.readers());
      for (Port port : ports) {
        check(
            w,
            "!channels::"
                + name
                + ".attach((deployed::"
                + port.deployment().instance()
                + ".*"
                + entryPoints(port.deployment().tmo())
                + "::"
                + PORTS_ENTRY
                + ")."
                + port.member(name)
                + ", hub.wake())",
            "channel " + name + ": more ports than its table holds");
      }
      check(
          w,
          "hub.add_channel(channels::" + name + ".port()) != ::kairos::kal::Status::kOk",
          "channel " + name + " rejected by the hub");
    }
    if (ChannelPlan.receivesRemote(system, node)) {
      final String endpoint = ChannelPlan.endpoint(system, node);
      check(
          w,
          "hub.listen(" + CppNames.literal(endpoint) + ") != ::kairos::kal::Status::kOk",
          "cannot receive channel samples on " + endpoint);
    }
    final Set<String> subscriptions = new LinkedHashSet<>();
    for (NodeChannel channel : channels) {
      for (Node subscriber : channel.subscribers()) {
        final String endpoint = ChannelPlan.endpoint(system, subscriber);
        if (!subscriptions.add(channel.channel().id() + " " + endpoint)) {
          continue;
        }
        w.line(
            "// node $node$ reads channel $channel$",
            "node",
            subscriber.name(),
            "channel",
            channel.channel().name());
        check(
            w,
            "hub.add_subscriber("
                + channel.channel().id()
                + ", "
                + CppNames.literal(endpoint)
                + ") != ::kairos::kal::Status::kOk",
            "cannot send channel " + channel.channel().name() + " to node " + subscriber.name());
      }
    }
    ddsSetUp(w, system, node, channels);
    check(w, "hub.start() != ::kairos::kal::Status::kOk", "the channel hub could not start");
    w.line("return true;");
    w.close("}").blank();
  }

  /** In set_up, once the engine's rows are in: the channels start before the engine runs. */
  static void setUp(CodeWriter w, SystemModel system, Node node) {
    if (!runsChannels(system, node)) {
      return;
    }
    w.open("if (!set_up_channels(options)) {");
    w.line("return false;");
    w.close("}");
  }

  /** In finish, before the summary: the hub sends what is left and stops. */
  static void stop(CodeWriter w, SystemModel system, Node node) {
    if (runsChannels(system, node)) {
      w.line("channel_hub->stop();");
      if (onDds(system, node)) {
        w.line("dds_link->stop();");
      }
    }
  }

  /** In finish, after the summary and gate lines: a `channel` line per channel. */
  static void summaries(CodeWriter w, SystemModel system, Node node) {
    if (runsChannels(system, node)) {
      w.line("::kairos::channel::print_channels(kNode, *channel_hub);");
    }
  }

  private static String entryPoints(TmoClass tmo) {
    return CppNames.qualified(tmo.namespace(), ServantEmitter.baseClass(tmo))
        + "::"
        + ServantEmitter.ENTRY_POINTS;
  }

  private static void check(CodeWriter w, String failed, String message) {
    w.open("if ($failed$) {", "failed", failed);
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, $message$);",
        "message",
        CppNames.literal(message));
    w.line("return false;");
    w.close("}");
  }
}
