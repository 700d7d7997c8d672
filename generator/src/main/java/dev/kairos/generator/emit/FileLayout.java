package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.DistributedSystem;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.Types.Interface;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where every generated file goes, decided here and nowhere else. Paths are relative to their root
 * (the output directory, or the directory of hand-written code) and use forward slashes; they are
 * also how the files include each other, since both roots are include directories.
 *
 * <p>What a package declares lands in a folder named after the package (`avionics/`, `a/b/` for
 * `a.b`), so equal names in different packages never share a file; a file without a package puts
 * them at the top. Nodes are the system's executables: their names are unique in the system, so
 * their files sit at the top, next to `types.hpp` and `CMakeLists.txt`; so do the mains of systems
 * that run their nodes in one process, whose names no node shares.
 */
public final class FileLayout {
  private FileLayout() {}

  public static final String TYPES = "types.hpp";

  /** Marshalling of every declared type: encode/decode overloads and maximum sizes. */
  public static final String TYPES_CDR = "types.cdr.hpp";

  public static final String CMAKE = "CMakeLists.txt";

  /** OMG IDL of the channels' payload types, for Cyclone DDS's idlc (and any DDS application). */
  public static final String CHANNELS_IDL = "channels.idl";

  /** The C header idlc makes of {@link #CHANNELS_IDL}, in the build directory. */
  public static final String CHANNELS_IDL_C_HEADER = "channels.h";

  /** Converters between Kairos's payload types and idlc's C types. */
  public static final String CHANNELS_DDS = "channels.dds.hpp";

  /**
   * What `kairos generate` wrote into the output directory, one path a line: the next run removes
   * the files it lists and no longer writes.
   */
  public static final String MANIFEST = "kairos.manifest";

  /** The folder of a package, with a trailing slash; empty without a package. */
  static String folder(List<String> namespace) {
    return namespace.isEmpty() ? "" : String.join("/", namespace) + "/";
  }

  /** The servant base class of a TMO: {@code <package>/<Tmo>.base.hpp}. */
  public static String servantBase(TmoClass tmo) {
    return folder(tmo.namespace()) + tmo.name() + ".base.hpp";
  }

  /**
   * The hand-written class of a TMO: {@code <package>/<Tmo>.hpp}, below the implementation root.
   */
  public static String userHeader(TmoClass tmo) {
    return folder(tmo.namespace()) + tmo.name() + ".hpp";
  }

  public static String userSource(TmoClass tmo) {
    return folder(tmo.namespace()) + tmo.name() + ".cpp";
  }

  /**
   * Marshalling of an interface's operations: {@code <package>/<Interface>.cdr.hpp} (operation ids,
   * request and reply structs).
   */
  public static String interfaceCdr(Interface iface) {
    return folder(iface.namespace()) + iface.name() + ".cdr.hpp";
  }

  public static String schedule(Node node) {
    return node.name() + ".schedule.hpp";
  }

  /** A node as a program (its instances, engine and ORB): {@code <node>.node.hpp} and .cpp. */
  public static String nodeProgramHeader(Node node) {
    return node.name() + ".node.hpp";
  }

  public static String nodeProgram(Node node) {
    return node.name() + ".node.cpp";
  }

  /** The main of a node's own executable. */
  public static String nodeMain(Node node) {
    return node.name() + ".main.cpp";
  }

  /** The main of a system whose nodes run in one process: {@code <System>.system.cpp}. */
  public static String systemMain(DistributedSystem system) {
    return system.name() + ".system.cpp";
  }

  /**
   * The generated sources a node's executable compiles, relative to the output directory; its
   * CMakeLists.txt and the `--outputs` list of `kairos generate` both take them from here.
   */
  public static List<String> nodeSources(Node node) {
    return List.of(nodeMain(node), nodeProgram(node));
  }

  /**
   * The generated sources of a system's one-process executable: its main and the program of each of
   * its nodes, in the system's order.
   */
  public static List<String> systemSources(DistributedSystem system, List<Node> nodes) {
    final List<String> sources = new ArrayList<>();
    sources.add(systemMain(system));
    nodes.forEach(node -> sources.add(nodeProgram(node)));
    return sources;
  }

  /**
   * The hand-written sources the nodes' executable compiles, relative to the directory of
   * hand-written code: one per TMO class the nodes deploy, in deployment order, each once.
   */
  public static List<String> userSources(List<Node> nodes) {
    final Set<TmoClass> classes = new LinkedHashSet<>();
    for (Node node : nodes) {
      for (Deployment deployment : node.deployments()) {
        classes.add(deployment.tmo());
      }
    }
    final List<String> sources = new ArrayList<>();
    classes.forEach(tmo -> sources.add(userSource(tmo)));
    return sources;
  }
}
