package dev.kairos.cli;

import dev.kairos.reports.calibrate.JsonText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The hosts of an Ansible inventory and the variables Kairos reads of each, as Ansible itself sees
 * them: the inventory is read with {@code ansible-inventory --list}, so any form Ansible accepts
 * (INI, YAML, a directory, a plugin) works the same. The variables:
 *
 * <ul>
 *   <li>{@code kairos_cpus}: the CPUs the host gives the nodes, e.g. {@code 0-3} (default: one CPU
 *       per core of the nodes it runs, from CPU 0);
 *   <li>{@code kairos_machine}: hosts that name the same machine share its CPUs, and are analysed
 *       together on them (default: the host is a machine of its own);
 *   <li>{@code kairos_root}: where the nodes are installed (default {@code /opt/kairos});
 *   <li>{@code kairos_user}: the user its nodes run as (default root);
 *   <li>{@code kairos_socket_group}: the group whose members may connect to its nodes' uds: and
 *       shm: endpoints besides their user, and which each of its nodes is a member of (default
 *       none: a node's user alone).
 * </ul>
 */
final class Inventory {
  /** A host and the variables Kairos uses. */
  record Host(String name, Optional<String> cpus, String machine, String root, Account account) {}

  /**
   * Whom a host's nodes run as: its user (empty: root), and the group that may reach their Unix
   * sockets (empty: their user alone).
   */
  record Account(Optional<String> user, Optional<String> socketGroup) {
    static final Account ROOT = new Account(Optional.empty(), Optional.empty());
  }

  /** A user or group name as useradd and groupadd accept it, or a group's number. */
  private static final java.util.regex.Pattern ACCOUNT_NAME =
      java.util.regex.Pattern.compile("[a-z_][a-z0-9_-]{0,31}|[0-9]{1,10}");

  /** What went wrong reading the inventory, said as one sentence. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message);
    }
  }

  static final String DEFAULT_ROOT = "/opt/kairos";

  private static final long TIMEOUT_SECONDS = 60;

  private final Map<String, Host> hosts;

  private Inventory(Map<String, Host> hosts) {
    this.hosts = hosts;
  }

  Optional<Host> host(String name) {
    return Optional.ofNullable(hosts.get(name));
  }

  List<String> names() {
    return List.copyOf(hosts.keySet());
  }

  /** The inventory {@code file} as {@code ansible-inventory} lists it. */
  static Inventory read(Path file) throws Unreadable {
    final Process process;
    try {
      process =
          new ProcessBuilder("ansible-inventory", "-i", file.toString(), "--list")
              .redirectError(ProcessBuilder.Redirect.PIPE)
              .start();
    } catch (IOException notInstalled) {
      throw new Unreadable(
          "kairos deploy reads the inventory with ansible-inventory, which is not installed:"
              + " install ansible-core (python3 -m pip install ansible-core)");
    }
    try {
      process.getOutputStream().close();
      final java.util.concurrent.CompletableFuture<byte[]> errors =
          readingAll(process.getErrorStream());
      final java.util.concurrent.CompletableFuture<byte[]> output =
          readingAll(process.getInputStream());
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new Unreadable(
            "ansible-inventory did not answer in "
                + TIMEOUT_SECONDS
                + " s (does it ask for a"
                + " vault password? give it one in ansible.cfg or the environment)");
      }
      final String listed = new String(output.join(), StandardCharsets.UTF_8);
      final String said = new String(errors.join(), StandardCharsets.UTF_8).strip();
      // Ansible warns, and lists nothing, for an inventory it cannot parse.
      if (process.exitValue() != 0 || said.contains("Unable to parse")) {
        throw new Unreadable(
            "ansible-inventory could not read it"
                + (said.isEmpty() ? "" : ": " + said.lines().findFirst().orElse("")));
      }
      return parse(listed);
    } catch (IOException e) {
      throw new Unreadable("ansible-inventory: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unreadable("interrupted while ansible-inventory read it");
    }
  }

  /** Everything {@code stream} gives until it ends, read in a thread of its own. */
  private static java.util.concurrent.CompletableFuture<byte[]> readingAll(
      java.io.InputStream stream) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            return new byte[0];
          }
        });
  }

  /** The hosts of {@code ansible-inventory --list}'s JSON. */
  static Inventory parse(String listed) throws Unreadable {
    final Object document;
    try {
      document = JsonText.parse(listed);
    } catch (JsonText.Malformed e) {
      throw new Unreadable("ansible-inventory listed no JSON: " + e.getMessage());
    }
    if (!(document instanceof JsonText.JsonObject top)) {
      throw new Unreadable("ansible-inventory listed no JSON object");
    }
    final Map<String, Object> hostVariables = new LinkedHashMap<>();
    if (top.members().get("_meta") instanceof JsonText.JsonObject meta
        && meta.members().get("hostvars") instanceof JsonText.JsonObject variables) {
      hostVariables.putAll(variables.members());
    }
    final TreeSet<String> names = new TreeSet<>(hostVariables.keySet());
    for (Map.Entry<String, Object> group : top.members().entrySet()) {
      if (group.getValue() instanceof JsonText.JsonObject members
          && members.members().get("hosts") instanceof JsonText.JsonArray listedHosts) {
        listedHosts.elements().stream()
            .filter(String.class::isInstance)
            .map(String.class::cast)
            .forEach(names::add);
      }
    }
    final Map<String, Host> hosts = new LinkedHashMap<>();
    for (String name : names) {
      final Map<String, Object> variables =
          hostVariables.get(name) instanceof JsonText.JsonObject object
              ? object.members()
              : Map.of();
      final Optional<String> cpus = text(name, variables, "kairos_cpus", "0-3");
      final String machine = text(name, variables, "kairos_machine", "rack1").orElse(name);
      final String root = text(name, variables, "kairos_root", "/opt/kairos").orElse(DEFAULT_ROOT);
      if (!root.startsWith("/")) {
        throw new Unreadable("host " + name + ": kairos_root " + root + " is not an absolute path");
      }
      final Optional<String> user = accountName(name, variables, "kairos_user", "kairos");
      final Optional<String> socketGroup =
          accountName(name, variables, "kairos_socket_group", "kairos");
      hosts.put(name, new Host(name, cpus, machine, root, new Account(user, socketGroup)));
    }
    return new Inventory(hosts);
  }

  /** A host variable that names a user or a group, checked: it goes on a unit's lines. */
  private static Optional<String> accountName(
      String host, Map<String, Object> variables, String variable, String example)
      throws Unreadable {
    final Optional<String> name = text(host, variables, variable, example);
    if (name.isPresent() && !ACCOUNT_NAME.matcher(name.get()).matches()) {
      throw new Unreadable(
          "host "
              + host
              + ": "
              + variable
              + " "
              + name.get()
              + " is not a user or group name (lower-case letters, digits, '_' and '-', as"
              + " useradd takes them) such as \""
              + example
              + "\"");
    }
    return name;
  }

  /**
   * A host variable's value as text: a string, or a whole number (kairos_cpus: 0 is a CPU list
   * too); empty where the host does not set it, and an error for any other value.
   */
  private static Optional<String> text(
      String host, Map<String, Object> variables, String variable, String example)
      throws Unreadable {
    final Object value = variables.get(variable);
    if (value == null) {
      return Optional.empty();
    }
    if (value instanceof String string && !string.isBlank()) {
      return Optional.of(string.strip());
    }
    if (value instanceof Long number) {
      return Optional.of(number.toString());
    }
    throw new Unreadable(
        "host " + host + ": " + variable + " is not a text such as \"" + example + "\"");
  }
}
