package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.OK;

import dev.kairos.generator.emit.DdsSecurityDocuments;
import dev.kairos.ir.SystemModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * `kairos keys`: a system's identities and DDS Security documents, made with OpenSSL (the {@code
 * openssl} command, OpenSSL 3): a system CA (kept when it is there already, so that nodes' keys are
 * made again under it), per Linux node an EC P-256 key and a certificate the CA signs, the
 * governance document and each node's permissions document from the model's channels ({@link
 * DdsSecurityDocuments}), signed by the CA as S/MIME, and each node's Cyclone DDS configuration
 * that turns the security plugins on with them.
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description =
        "Makes the system's CA, a key and certificate per node, and the signed DDS Security"
            + " governance and per-node permissions documents from the model's channels (only a"
            + " channel's publishers may publish its topic, only its readers read it), with the"
            + " Cyclone DDS configuration of each node.")
final class KeysCommand extends ModelCommand {
  /** Where Debian and a default Cyclone DDS installation put the security plugins. */
  private static final List<String> PLUGIN_DIRECTORIES =
      List.of(
          "/usr/lib/x86_64-linux-gnu/libddsc0debian",
          "/usr/lib/aarch64-linux-gnu/libddsc0debian",
          "/usr/local/lib",
          "/usr/lib/x86_64-linux-gnu",
          "/usr/lib/aarch64-linux-gnu",
          "/usr/lib");

  @Option(
      names = "--system",
      paramLabel = "SYSTEM",
      description = "the system whose nodes get keys (default: the model's only system)")
  String systemName;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      required = true,
      description =
          "the directory of the keys and documents (a CA there already is kept; private keys are"
              + " readable by their owner only)")
  Path output;

  @Option(
      names = "--days",
      paramLabel = "N",
      defaultValue = "365",
      description =
          "how long the node certificates and permissions hold (default: ${DEFAULT-VALUE})")
  int days;

  @Option(
      names = "--plugins",
      paramLabel = "DIR",
      description =
          "the directory of Cyclone DDS's security plugins (libdds_security_auth.so ...; default:"
              + " found in the usual places, else left to the dynamic loader)")
  Path plugins;

  /** An openssl command that failed: what it was for, and what it said. */
  private static final class OpenSslFailed extends Exception {
    OpenSslFailed(String message) {
      super(message);
    }
  }

  @Override
  public Integer call() throws IOException {
    if (days < 1) {
      err().println("kairos: error: --days must be at least 1, not " + days);
      return KairosCli.USAGE;
    }
    final int[] exit = {OK};
    final Optional<SystemChoice.Chosen> chosen =
        chosenSystem(systemName, null, "no keys made", exit);
    if (chosen.isEmpty()) {
      return exit[0];
    }
    final SystemModel system = chosen.get().system();
    final String systemLabel =
        systemName != null
            ? systemName
            : system.systems().size() == 1 ? system.systems().get(0).name() : "(the model's)";
    final List<String> chosenNodes =
        chosen.get().nodes().stream().map(n -> n.node().name()).toList();
    final List<DdsSecurityDocuments.Grant> grants =
        DdsSecurityDocuments.grants(system).stream()
            .filter(g -> chosenNodes.contains(g.node().name()))
            .toList();
    if (grants.isEmpty()) {
      err().println("kairos: error: the system has no Linux node: no keys made");
      return KairosCli.MODEL_ERRORS;
    }
    final Path directory = output.toAbsolutePath().normalize();
    final String modelFile = files.get(0).toString();
    try {
      Files.createDirectories(directory);
      final Path caKey = directory.resolve("ca.key");
      final Path ca = directory.resolve("ca.pem");
      final boolean keptCa = Files.isRegularFile(caKey) && Files.isRegularFile(ca);
      if (!keptCa) {
        openssl(
            directory,
            "the system CA",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            caKey.toString(),
            "-out",
            ca.toString(),
            "-days",
            Integer.toString(Math.max(days, 3650)),
            "-subj",
            "/CN=Kairos system CA");
        ownerOnly(caKey);
      }
      out().println("keys: system CA " + ca + (keptCa ? " (kept)" : " (made)"));
      final Path governance = directory.resolve("governance.xml");
      Files.writeString(
          governance,
          DdsSecurityDocuments.governance(modelFile, systemLabel),
          StandardCharsets.UTF_8);
      sign(directory, governance, directory.resolve("governance.p7s"), "the governance document");
      final LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
      final DateTimeFormatter iso = DateTimeFormatter.ISO_LOCAL_DATE_TIME;
      final String libraries = pluginDirectory();
      for (DdsSecurityDocuments.Grant grant : grants) {
        final String node = grant.node().name();
        final Path key = directory.resolve(node + ".key");
        final Path request = directory.resolve(node + ".csr");
        final Path certificate = directory.resolve(node + ".pem");
        openssl(
            directory,
            "node " + node + "'s key",
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            key.toString(),
            "-out",
            request.toString(),
            "-subj",
            "/" + grant.subject());
        ownerOnly(key);
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
            certificate.toString(),
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
        final Path config = directory.resolve(node + ".cyclonedds.xml");
        Files.writeString(
            config,
            DdsSecurityDocuments.cycloneConfig(node, directory.toString(), libraries),
            StandardCharsets.UTF_8);
        out()
            .println(
                "keys: node "
                    + node
                    + ": "
                    + certificate
                    + ", publishes "
                    + said(grant.publishes())
                    + ", reads "
                    + said(grant.reads())
                    + "; run it with CYCLONEDDS_URI=file://"
                    + config);
      }
      Files.deleteIfExists(directory.resolve("ca.srl"));
    } catch (OpenSslFailed e) {
      err().println("kairos: error: " + e.getMessage());
      return KairosCli.MODEL_ERRORS;
    }
    if (libraries().isEmpty()) {
      err()
          .println(
              "kairos: warning: Cyclone DDS's security plugins (libdds_security_auth.so) are not in "
                  + String.join(", ", PLUGIN_DIRECTORIES)
                  + ": the configurations leave them to the dynamic loader (give --plugins DIR)");
    }
    return OK;
  }

  private static String said(List<String> topics) {
    return topics.isEmpty() ? "nothing" : String.join(", ", topics);
  }

  private String pluginDirectory() {
    return libraries().orElse("");
  }

  private Optional<String> libraries() {
    if (plugins != null) {
      return Optional.of(plugins.toAbsolutePath().normalize().toString());
    }
    return PLUGIN_DIRECTORIES.stream()
        .filter(d -> Files.isRegularFile(Path.of(d, "libdds_security_auth.so")))
        .findFirst();
  }

  private void sign(Path directory, Path document, Path signed, String what)
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
          "kairos keys makes keys with the openssl command (OpenSSL 3; Debian package openssl),"
              + " which cannot be run here: "
              + e.getMessage()
              + "; no keys made");
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
