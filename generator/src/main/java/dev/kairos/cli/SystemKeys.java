package dev.kairos.cli;

import dev.kairos.generator.emit.DdsSecurityDocuments;
import dev.kairos.ir.SystemModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A system's identities and DDS Security documents, made with OpenSSL (the {@code openssl} command,
 * OpenSSL 3): a system CA (kept when it is there already, so that the nodes' keys are made again
 * under it), per Linux node an EC P-256 key and a certificate the CA signs, the governance document
 * and each node's permissions document from the model's channels ({@link DdsSecurityDocuments}),
 * signed by the CA as S/MIME, and each node's Cyclone DDS configuration that turns the security
 * plugins on with them. `kairos keys` makes them for the user; `kairos run` for the nodes it
 * starts.
 */
final class SystemKeys {
  private SystemKeys() {}

  /** Where Debian and a default Cyclone DDS installation put the security plugins. */
  static final List<String> PLUGIN_DIRECTORIES =
      List.of(
          "/usr/lib/x86_64-linux-gnu/libddsc0debian",
          "/usr/lib/aarch64-linux-gnu/libddsc0debian",
          "/usr/local/lib",
          "/usr/lib/x86_64-linux-gnu",
          "/usr/lib/aarch64-linux-gnu",
          "/usr/lib");

  /** An openssl command that could not be run or failed: what it was for, and what it said. */
  static final class OpenSslFailed extends Exception {
    OpenSslFailed(String message) {
      super(message);
    }
  }

  /** What was made: whether the CA was there already, and each node's Cyclone DDS file. */
  record Made(boolean keptCa, Map<String, Path> configurations) {}

  /** The grants of the nodes named (the chosen system's), in model order. */
  static List<DdsSecurityDocuments.Grant> grants(SystemModel system, List<String> nodes) {
    return DdsSecurityDocuments.grants(system).stream()
        .filter(g -> nodes.contains(g.node().name()))
        .toList();
  }

  /** Whether some channel of these grants crosses DDS between two of the nodes. */
  static boolean channelsCross(List<DdsSecurityDocuments.Grant> grants) {
    for (DdsSecurityDocuments.Grant publisher : grants) {
      for (String topic : publisher.publishes()) {
        for (DdsSecurityDocuments.Grant reader : grants) {
          if (reader != publisher && reader.reads().contains(topic)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The plugins' directory: `plugins` when given, else the first usual place that has them. */
  static Optional<String> pluginDirectory(Path plugins) {
    if (plugins != null) {
      return Optional.of(plugins.toAbsolutePath().normalize().toString());
    }
    return PLUGIN_DIRECTORIES.stream()
        .filter(d -> Files.isRegularFile(Path.of(d, "libdds_security_auth.so")))
        .findFirst();
  }

  /**
   * Makes everything into {@code directory} (absolute), each certificate and permissions document
   * valid for {@code days}; {@code libraries} is the plugins' directory, or empty for the dynamic
   * loader; {@code installedIn} says for each node the directory its files ({@link #filesOf}) are
   * in where it runs, which its Cyclone DDS configuration names.
   */
  static Made make(
      String modelFile,
      String systemLabel,
      List<DdsSecurityDocuments.Grant> grants,
      Path directory,
      int days,
      String libraries,
      UnaryOperator<String> installedIn)
      throws OpenSslFailed, IOException {
    Files.createDirectories(directory);
    final Path caKey = directory.resolve("ca.key");
    final Path ca = directory.resolve("ca.pem");
    final boolean keptCa = Files.isRegularFile(caKey) && Files.isRegularFile(ca);
    if (!keptCa) {
      newKey(
          directory,
          "the system CA",
          caKey,
          ca,
          "/CN=Kairos system CA",
          "-x509",
          "-days",
          Integer.toString(Math.max(days, 3650)));
    }
    final Path governance = directory.resolve("governance.xml");
    Files.writeString(
        governance,
        DdsSecurityDocuments.governance(modelFile, systemLabel),
        StandardCharsets.UTF_8);
    sign(directory, governance, directory.resolve("governance.p7s"), "the governance document");
    final LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    final DateTimeFormatter iso = DateTimeFormatter.ISO_LOCAL_DATE_TIME;
    final Map<String, Path> configurations = new LinkedHashMap<>();
    for (DdsSecurityDocuments.Grant grant : grants) {
      final String node = grant.node().name();
      final Path key = directory.resolve(node + ".key");
      final Path request = directory.resolve(node + ".csr");
      newKey(directory, "node " + node + "'s key", key, request, "/" + grant.subject());
      openssl(
          directory,
          "node " + node + "'s certificate",
          "x509",
          "-req",
          "-in",
          request.toString(),
          "-CA",
          ca.toString(),
          "-CAkey",
          caKey.toString(),
          "-CAcreateserial",
          "-out",
          directory.resolve(node + ".pem").toString(),
          "-days",
          Integer.toString(days));
      Files.deleteIfExists(request);
      final Path permissions = directory.resolve(node + ".permissions.xml");
      Files.writeString(
          permissions,
          DdsSecurityDocuments.permissions(
              modelFile,
              systemLabel,
              grant,
              iso.format(now.minusMinutes(5)),
              iso.format(now.plusDays(days))),
          StandardCharsets.UTF_8);
      sign(
          directory,
          permissions,
          directory.resolve(node + ".permissions.p7s"),
          "node " + node + "'s permissions");
      final Path configuration = directory.resolve(node + ".cyclonedds.xml");
      Files.writeString(
          configuration,
          DdsSecurityDocuments.cycloneConfig(node, installedIn.apply(node), libraries),
          StandardCharsets.UTF_8);
      configurations.put(node, configuration);
    }
    Files.deleteIfExists(directory.resolve("ca.srl"));
    return new Made(keptCa, configurations);
  }

  /** The files of {@code directory} that node {@code node} runs with. */
  static List<String> filesOf(String node) {
    return List.of(
        "ca.pem",
        "governance.p7s",
        node + ".pem",
        node + ".key",
        node + ".permissions.p7s",
        node + ".cyclonedds.xml");
  }

  /**
   * The CYCLONEDDS_URI a node runs with: the one of this environment, if any, and then the node's
   * security configuration.
   */
  static String cycloneUri(String inherited, Path configuration) {
    final String own = "file://" + configuration;
    return inherited == null || inherited.isBlank() ? own : inherited + "," + own;
  }

  /** Says the plugins could not be found (the configurations leave them to the loader). */
  static void warnNoPlugins(PrintWriter err) {
    err.println(
        "kairos: warning: Cyclone DDS's security plugins (libdds_security_auth.so) are not in "
            + String.join(", ", PLUGIN_DIRECTORIES)
            + ": the configurations leave them to the dynamic loader (kairos keys --plugins DIR)");
  }

  /**
   * An EC P-256 private key in {@code key} (its owner's alone) and, for {@code subject}, a
   * certificate request in {@code out}, or with {@code -x509} among {@code options} a certificate
   * it signs itself.
   */
  private static void newKey(
      Path directory, String what, Path key, Path out, String subject, String... options)
      throws OpenSslFailed, IOException {
    final List<String> arguments = new ArrayList<>(List.of("req"));
    arguments.addAll(List.of(options));
    arguments.addAll(
        List.of(
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            key.toString(),
            "-out",
            out.toString(),
            "-subj",
            subject));
    openssl(directory, what, arguments.toArray(String[]::new));
    ownerOnly(key);
  }

  private static void sign(Path directory, Path document, Path signed, String what)
      throws OpenSslFailed, IOException {
    openssl(
        directory,
        what,
        "smime",
        "-sign",
        "-in",
        document.toString(),
        "-text",
        "-out",
        signed.toString(),
        "-signer",
        directory.resolve("ca.pem").toString(),
        "-inkey",
        directory.resolve("ca.key").toString());
  }

  private static void ownerOnly(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: left as the file system gives it
    }
  }

  /** Runs {@code openssl ARGS} in {@code directory}; what it says goes into the error. */
  private static void openssl(Path directory, String what, String... arguments)
      throws OpenSslFailed, IOException {
    final List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(arguments));
    final Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new OpenSslFailed(
          "keys are made with the openssl command (OpenSSL 3; Debian package openssl), which"
              + " cannot be run here: "
              + e.getMessage());
    }
    final String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (process.waitFor() != 0) {
        throw new OpenSslFailed(
            "openssl could not make " + what + ": " + said.strip().replace('\n', ' '));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OpenSslFailed("interrupted while openssl made " + what);
    }
  }
}
