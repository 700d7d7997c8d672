package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.OK;

import dev.kairos.generator.emit.DdsSecurityDocuments;
import dev.kairos.ir.SystemModel;
import java.io.IOException;
import java.nio.file.Path;
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
    final List<DdsSecurityDocuments.Grant> grants =
        SystemKeys.grants(system, chosen.get().nodes().stream().map(n -> n.node().name()).toList());
    if (grants.isEmpty()) {
      err().println("kairos: error: the system has no Linux node: no keys made");
      return KairosCli.MODEL_ERRORS;
    }
    final Path directory = output.toAbsolutePath().normalize();
    final Optional<String> libraries = SystemKeys.pluginDirectory(plugins);
    final Optional<SystemKeys.Made> keys =
        madeKeys(
            system,
            systemName,
            grants,
            directory,
            days,
            libraries.orElse(""),
            node -> directory.toString(),
            "; no keys made");
    if (keys.isEmpty()) {
      return KairosCli.MODEL_ERRORS;
    }
    final SystemKeys.Made made = keys.get();
    out()
        .println(
            "keys: system CA "
                + directory.resolve("ca.pem")
                + (made.keptCa() ? " (kept)" : " (made)"));
    for (DdsSecurityDocuments.Grant grant : grants) {
      final String node = grant.node().name();
      out()
          .println(
              "keys: node "
                  + node
                  + ": "
                  + directory.resolve(node + ".pem")
                  + ", publishes "
                  + said(grant.publishes())
                  + ", reads "
                  + said(grant.reads())
                  + "; run it with CYCLONEDDS_URI=file://"
                  + made.configurations().get(node));
    }
    if (libraries.isEmpty()) {
      SystemKeys.warnNoPlugins(err());
    }
    return OK;
  }

  private static String said(List<String> topics) {
    return topics.isEmpty() ? "nothing" : String.join(", ", topics);
  }
}
