package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.OperatingSystem;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.ChannelAccess;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The documents of the DDS Security standard (OMG DDS Security 1.1, as Eclipse Cyclone DDS's
 * access-control plugin reads them) that make a system's channels its own: one governance document
 * for the system, which lets no unauthenticated participant in and protects every topic (discovery,
 * liveliness, metadata and data encrypted; reading and writing access-controlled), and per Linux
 * node the permissions document that lets it publish exactly the topics of the channels its methods
 * publish and read exactly those its methods read, nothing else. The model is the access list here
 * as it is for remote calls. Read only from the IR; signing them is the caller's (the CLI's, with
 * OpenSSL).
 */
public final class DdsSecurityDocuments {
  private DdsSecurityDocuments() {}

  /** What one node may do on DDS: the topics it publishes and those it reads, in system order. */
  public record Grant(Node node, List<String> publishes, List<String> reads) {
    /** The subject its certificate names, as its permissions document does. */
    public String subject() {
      return "CN=" + node.name();
    }
  }

  /** A grant per Linux node of the system (on sim, channels do not cross DDS), in model order. */
  public static List<Grant> grants(SystemModel system) {
    // Each channel's ends are looked up once, and filed under their nodes.
    final Map<Node, List<String>> publishes = new HashMap<>();
    final Map<Node, List<String>> reads = new HashMap<>();
    for (ChannelPlan.SystemChannel channel : ChannelPlan.channels(system)) {
      file(system, channel, ChannelAccess.PUBLISH, publishes);
      file(system, channel, ChannelAccess.READ, reads);
    }
    final List<Grant> grants = new ArrayList<>();
    for (Node node : system.nodes()) {
      if (node.os() == OperatingSystem.LINUX) {
        grants.add(
            new Grant(
                node,
                List.copyOf(publishes.getOrDefault(node, List.of())),
                List.copyOf(reads.getOrDefault(node, List.of()))));
      }
    }
    return List.copyOf(grants);
  }

  /** Adds `channel`'s topic, once, to the topics of each node with an end of it of `access`. */
  private static void file(
      SystemModel system,
      ChannelPlan.SystemChannel channel,
      ChannelAccess access,
      Map<Node, List<String>> topics) {
    system.channelEnds(channel.name(), access).stream()
        .map(SystemModel.ChannelEnd::node)
        .distinct()
        .forEach(node -> topics.computeIfAbsent(node, n -> new ArrayList<>()).add(channel.topic()));
  }

  /** The system's governance document. */
  public static String governance(String modelFile, String systemName) {
    return header(modelFile, systemName, "governance", "omg_shared_ca_governance.xsd")
        + """
          <domain_access_rules>
            <domain_rule>
              <domains><id_range><min>0</min><max>230</max></id_range></domains>
              <allow_unauthenticated_participants>false</allow_unauthenticated_participants>
              <enable_join_access_control>true</enable_join_access_control>
              <discovery_protection_kind>ENCRYPT</discovery_protection_kind>
              <liveliness_protection_kind>ENCRYPT</liveliness_protection_kind>
              <rtps_protection_kind>ENCRYPT</rtps_protection_kind>
              <topic_access_rules>
                <topic_rule>
                  <topic_expression>*</topic_expression>
                  <enable_discovery_protection>true</enable_discovery_protection>
                  <enable_liveliness_protection>true</enable_liveliness_protection>
                  <enable_read_access_control>true</enable_read_access_control>
                  <enable_write_access_control>true</enable_write_access_control>
                  <metadata_protection_kind>ENCRYPT</metadata_protection_kind>
                  <data_protection_kind>ENCRYPT</data_protection_kind>
                </topic_rule>
              </topic_access_rules>
            </domain_rule>
          </domain_access_rules>
        </dds>
        """;
  }

  /**
   * A node's permissions document, valid from {@code notBefore} to {@code notAfter} (ISO local
   * date-times, UTC): what it may publish and read, everything else denied.
   */
  public static String permissions(
      String modelFile, String systemName, Grant grant, String notBefore, String notAfter) {
    final StringBuilder rule = new StringBuilder();
    if (!grant.publishes().isEmpty()) {
      rule.append("        <publish><topics>").append(topics(grant.publishes()));
      rule.append("</topics></publish>\n");
    }
    if (!grant.reads().isEmpty()) {
      rule.append("        <subscribe><topics>").append(topics(grant.reads()));
      rule.append("</topics></subscribe>\n");
    }
    return header(
            modelFile,
            systemName,
            "permissions of node " + grant.node().name(),
            "omg_shared_ca_permissions.xsd")
        + "  <permissions>\n"
        + "    <grant name=\""
        + grant.node().name()
        + "\">\n"
        + "      <subject_name>"
        + grant.subject()
        + "</subject_name>\n"
        + "      <validity><not_before>"
        + notBefore
        + "</not_before><not_after>"
        + notAfter
        + "</not_after></validity>\n"
        + "      <allow_rule>\n"
        + "        <domains><id_range><min>0</min><max>230</max></id_range></domains>\n"
        + (rule.isEmpty()
            ? "        <!-- its methods publish and read no channel -->\n"
            : rule.toString())
        + "      </allow_rule>\n"
        + "      <default>DENY</default>\n"
        + "    </grant>\n"
        + "  </permissions>\n"
        + "</dds>\n";
  }

  private static String topics(List<String> topics) {
    final StringBuilder out = new StringBuilder();
    for (String topic : topics) {
      out.append("<topic>").append(topic).append("</topic>");
    }
    return out.toString();
  }

  private static String header(String modelFile, String systemName, String what, String schema) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!-- The DDS Security "
        + what
        + " of system "
        + systemName
        + ", written by kairos keys from "
        + modelFile
        + ": the model's channels are its access list. -->\n"
        + "<dds xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
        + " xsi:noNamespaceSchemaLocation=\"http://www.omg.org/spec/DDS-SECURITY/20170901/"
        + schema
        + "\">\n";
  }

  /**
   * A node's Cyclone DDS configuration fragment that turns the security plugins on with its
   * identity and permissions ({@code CYCLONEDDS_URI=file://<it>}; a list of sources separated by
   * commas keeps any other configuration): every path absolute. {@code libraries} is the directory
   * of the plugins ({@code libdds_security_auth.so} and the others), or empty to let the dynamic
   * loader find them.
   */
  public static String cycloneConfig(String node, String directory, String libraries) {
    final String prefix = libraries.isEmpty() ? "" : libraries + "/";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!-- Node "
        + node
        + "'s DDS Security, written by kairos keys: give it as CYCLONEDDS_URI=file://"
        + directory
        + "/"
        + node
        + ".cyclonedds.xml -->\n"
        + "<CycloneDDS xmlns=\"https://cdds.io/config\">\n"
        + "  <Domain id=\"any\">\n"
        + "    <Security>\n"
        + "      <Authentication>\n"
        + library(prefix, "auth", "authentication")
        + "        <IdentityCA>file:"
        + directory
        + "/ca.pem</IdentityCA>\n"
        + "        <IdentityCertificate>file:"
        + directory
        + "/"
        + node
        + ".pem</IdentityCertificate>\n"
        + "        <PrivateKey>file:"
        + directory
        + "/"
        + node
        + ".key</PrivateKey>\n"
        + "      </Authentication>\n"
        + "      <AccessControl>\n"
        + library(prefix, "ac", "access_control")
        + "        <PermissionsCA>file:"
        + directory
        + "/ca.pem</PermissionsCA>\n"
        + "        <Governance>file:"
        + directory
        + "/governance.p7s</Governance>\n"
        + "        <Permissions>file:"
        + directory
        + "/"
        + node
        + ".permissions.p7s</Permissions>\n"
        + "      </AccessControl>\n"
        + "      <Cryptographic>\n"
        + library(prefix, "crypto", "crypto")
        + "      </Cryptographic>\n"
        + "    </Security>\n"
        + "  </Domain>\n"
        + "</CycloneDDS>\n";
  }

  private static String library(String prefix, String plugin, String function) {
    return "        <Library path=\""
        + prefix
        + "libdds_security_"
        + plugin
        + ".so\" initFunction=\"init_"
        + function
        + "\" finalizeFunction=\"finalize_"
        + function
        + "\"/>\n";
  }
}
