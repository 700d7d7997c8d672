package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `kairos deploy` refuses before it builds or writes anything (a node without a host, a host
 * the inventory lacks, a call that cannot cross machines, too few CPUs, an inventory Ansible cannot
 * read), how it reads an inventory, and the files it writes. Deployments that run are in the
 * end-to-end tests (tests/e2e/test_kairos_deploy.py).
 */
class DeployCommandTest {
  @TempDir Path temp;

  private static void requireAnsible() {
    Assumptions.assumeTrue(
        java.util.stream.Stream.of(System.getenv("PATH").split(":"))
            .anyMatch(d -> Files.isExecutable(Path.of(d, "ansible-inventory"))),
        "ansible-inventory is not installed (make test installs ansible-core)");
  }

  /** A caller on one node and its callee on another, each naming a host (or not). */
  private Path twoNodes(String callerHost, String calleeEndpoint) throws IOException {
    final Path model = temp.resolve("pair.tmo");
    Files.writeString(
        model,
        "interface Clock { uint64 now(); }\n"
            + "tmo Server implements Clock {\n"
            + "  svm now gct 5 ms wcet 100 us criticality hard max-rate 20 Hz;\n"
            + "}\n"
            + "tmo Client {\n"
            + "  eac { gate clock -> Server.now deadline 10 ms; }\n"
            + "  spm ask for t = from 0 s to forever every 100 ms start-during (t, t + 10 ms)"
            + " finish-by t + 50 ms wcet 1 ms calls clock;\n"
            + "}\n"
            + "hardware One { cores 1; }\n"
            + "node server { hardware One os linux scheduling rms endpoint \""
            + calleeEndpoint
            + "\" host \"alpha\" deploy Server as server }\n"
            + "node client { hardware One os linux scheduling rms"
            + (callerHost == null ? "" : " host \"" + callerHost + "\"")
            + " deploy Client as client }\n"
            + "network wire { latency 100 us; connects server, client; }\n"
            + "system Pair { nodes server, client; }\n");
    return model;
  }

  private Path inventory(String text) throws IOException {
    final Path file = temp.resolve("hosts.ini");
    Files.writeString(file, text);
    return file;
  }

  private CliRun deploy(Path model, Path inventory, String... options) {
    final List<String> arguments =
        new java.util.ArrayList<>(
            List.of(
                "deploy",
                "-i",
                inventory.toString(),
                "-o",
                temp.resolve("out").toString(),
                model.toString()));
    arguments.addAll(List.of(options));
    return CliRun.kairos(arguments.toArray(String[]::new));
  }

  @Test
  void aNodeWithoutAHostIsRefusedAtItsLine() throws IOException {
    requireAnsible();
    final CliRun run =
        deploy(twoNodes(null, "tcp:10.0.0.1:7001"), inventory("alpha\nbeta\n"), "--share-cpus");
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.err().contains("pair.tmo:11: error: node client names no host: add host \"NAME\""),
        run.err());
    assertFalse(Files.exists(temp.resolve("out")), "nothing is written when nothing deploys");
  }

  @Test
  void aHostTheInventoryLacksIsRefusedWithTheHostsItHas() throws IOException {
    requireAnsible();
    final CliRun run = deploy(twoNodes("gamma", "tcp:10.0.0.1:7001"), inventory("alpha\nbeta\n"));
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.err()
            .contains(
                "error: node client runs on host gamma, which "
                    + temp.resolve("hosts.ini")
                    + " does not list (its hosts: alpha, beta)"),
        run.err());
  }

  @Test
  void aCallThroughALocalEndpointToAnotherMachineIsRefused() throws IOException {
    requireAnsible();
    for (String endpoint : List.of("uds:/tmp/kairos-server", "tcp:127.0.0.1:7001")) {
      final CliRun run = deploy(twoNodes("beta", endpoint), inventory("alpha\nbeta\n"));
      assertEquals(1, run.exit(), run.all());
      assertTrue(
          run.err()
              .contains(
                  "pair.tmo:10: error: node server listens on "
                      + endpoint
                      + ", which client.clock on machine beta cannot reach on machine alpha"),
          run.err());
    }
    // The same endpoint is fine where both hosts are one machine.
    final CliRun sameMachine =
        deploy(
            twoNodes("beta", "uds:/tmp/kairos-server"),
            inventory("[all:vars]\nkairos_machine=box\nkairos_cpus=0\n[nodes]\nalpha\nbeta\n"));
    assertFalse(sameMachine.err().contains("cannot reach"), sameMachine.all());
  }

  @Test
  void aMachineWithFewerCpusThanCoresIsRefusedWithoutShareCpus() throws IOException {
    requireAnsible();
    final CliRun run =
        deploy(
            twoNodes("beta", "tcp:10.0.0.1:7001"),
            inventory("[all:vars]\nkairos_machine=box\nkairos_cpus=0\n[nodes]\nalpha\nbeta\n"));
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.err()
            .contains(
                "the nodes on machine box (alpha, beta) have 2 cores and it gives them 1 CPU (0)"),
        run.err());
    assertTrue(run.err().contains("--share-cpus"), run.err());
    assertFalse(Files.exists(temp.resolve("out")));
  }

  @Test
  void anInventoryAnsibleCannotReadIsAUsageError() throws IOException {
    requireAnsible();
    final CliRun missing =
        deploy(twoNodes("beta", "tcp:10.0.0.1:7001"), temp.resolve("no-such-inventory.yml"));
    assertEquals(2, missing.exit(), missing.all());
    assertTrue(missing.err().contains("kairos: error: --inventory"), missing.err());
    final CliRun badDuration =
        deploy(
            twoNodes("beta", "tcp:10.0.0.1:7001"),
            inventory("alpha\nbeta\n"),
            "--duration",
            "soon");
    assertEquals(2, badDuration.exit(), badDuration.all());
    assertTrue(badDuration.err().contains("--duration soon: expected a time"), badDuration.err());
  }

  @Test
  void theInventoryGivesEachHostItsCpusMachineAndRoot() throws Inventory.Unreadable {
    final Inventory inventory =
        Inventory.parse(
            "{\"_meta\": {\"hostvars\": {"
                + "\"alpha\": {\"kairos_cpus\": \"2-3\", \"kairos_root\": \"/srv/kairos\"},"
                + "\"beta\": {\"kairos_cpus\": 1, \"kairos_machine\": \"rack1\"}}},"
                + "\"all\": {\"children\": [\"ungrouped\", \"cell\"]},"
                + "\"cell\": {\"hosts\": [\"alpha\", \"beta\", \"gamma\"]}}");
    assertEquals(List.of("alpha", "beta", "gamma"), inventory.names());
    assertEquals(
        new Inventory.Host(
            "alpha", java.util.Optional.of("2-3"), "alpha", "/srv/kairos", Inventory.Account.ROOT),
        inventory.host("alpha").orElseThrow());
    assertEquals(
        new Inventory.Host(
            "beta",
            java.util.Optional.of("1"),
            "rack1",
            Inventory.DEFAULT_ROOT,
            Inventory.Account.ROOT),
        inventory.host("beta").orElseThrow());
    assertEquals(java.util.Optional.empty(), inventory.host("gamma").orElseThrow().cpus());
    assertThrows(
        Inventory.Unreadable.class,
        () -> Inventory.parse("{\"_meta\": {\"hostvars\": {\"a\": {\"kairos_root\": \"rel\"}}}}"));
    assertThrows(Inventory.Unreadable.class, () -> Inventory.parse("not json"));
  }

  @Test
  void aHostMayNameTheUserItsNodesRunAsAndTheGroupThatReachesTheirSockets()
      throws Inventory.Unreadable {
    final Inventory inventory =
        Inventory.parse(
            "{\"_meta\": {\"hostvars\": {"
                + "\"alpha\": {\"kairos_user\": \"kairos-nav\","
                + " \"kairos_socket_group\": \"kairos\"},"
                + "\"beta\": {\"kairos_socket_group\": 4242}}},"
                + "\"all\": {\"hosts\": [\"alpha\", \"beta\"]}}");
    assertEquals(
        new Inventory.Account(java.util.Optional.of("kairos-nav"), java.util.Optional.of("kairos")),
        inventory.host("alpha").orElseThrow().account());
    assertEquals(
        new Inventory.Account(java.util.Optional.empty(), java.util.Optional.of("4242")),
        inventory.host("beta").orElseThrow().account());
    // A name that would break the unit's line, or is no account name: said, with the host.
    for (String wrong : List.of("\"root\\nExecStartPre=/bin/sh\"", "\"Kairos\"", "\"a b\"")) {
      final Inventory.Unreadable error =
          assertThrows(
              Inventory.Unreadable.class,
              () ->
                  Inventory.parse(
                      "{\"_meta\": {\"hostvars\": {\"a\": {\"kairos_user\": "
                          + wrong
                          + "}}}, \"all\": {\"hosts\": [\"a\"]}}"));
      assertTrue(error.getMessage().startsWith("host a: kairos_user "), error.getMessage());
    }
  }

  @Test
  void aNodeOfItsOwnUserRunsAsItWithTheCapabilitiesItsLanesNeedAndInItsSocketGroup() {
    final DeployBundle.NodeUnit sensor =
        new DeployBundle.NodeUnit(
            "sensor",
            "alpha",
            DeployBundle.unitName("Cell", "sensor"),
            "/opt/kairos/Cell/sensor",
            "0",
            List.of("/opt/kairos/Cell/sensor/bin/sensor", "--socket-group", "kairos"),
            "cell.tmo:75",
            0,
            false,
            false,
            new Inventory.Account(
                java.util.Optional.of("kairos-sensor"), java.util.Optional.of("kairos")));
    final DeployBundle.Deployment deployment =
        new DeployBundle.Deployment("Cell", "cell.tmo", List.of(sensor), Map.of(), Map.of(), 0, 10);
    final List<String> unit = DeployBundle.unit(deployment, sensor).lines().toList();
    final int exec =
        unit.indexOf("ExecStart=/opt/kairos/Cell/sensor/bin/sensor --socket-group kairos");
    assertTrue(exec >= 0, String.join("\n", unit));
    assertTrue(unit.contains("User=kairos-sensor"), String.join("\n", unit));
    assertTrue(
        unit.contains("AmbientCapabilities=CAP_SYS_NICE CAP_IPC_LOCK"), String.join("\n", unit));
    assertTrue(unit.contains("SupplementaryGroups=kairos"), String.join("\n", unit));
    final String inventory = DeployBundle.inventory(deployment);
    assertTrue(inventory.lines().anyMatch("          user: \"kairos-sensor\""::equals), inventory);
    assertTrue(inventory.lines().anyMatch("          socket_group: \"kairos\""::equals), inventory);
    // Root's node: none of it.
    final DeployBundle.NodeUnit asRoot =
        copyOf(
            sensor, List.of("/opt/kairos/Cell/sensor/bin/sensor"), false, Inventory.Account.ROOT);
    final String rootUnit = DeployBundle.unit(deployment, asRoot);
    assertFalse(rootUnit.contains("User=") || rootUnit.contains("SupplementaryGroups="), rootUnit);
    assertFalse(DeployBundle.inventory(deployment).contains("user: \"root"), inventory);
    assertTrue(
        rootUnit.contains("ExecStart=/opt/kairos/Cell/sensor/bin/sensor\n# The node's CPUs"),
        rootUnit);
  }

  @Test
  void theUnitAndInventoryCarryWhatTheAnalysisAssumed() {
    final DeployBundle.NodeUnit sensor =
        new DeployBundle.NodeUnit(
            "sensor",
            "alpha",
            DeployBundle.unitName("Work Cell", "sensor"),
            "/opt/kairos/Cell/sensor",
            "0,1",
            List.of(
                "/opt/kairos/Cell/sensor/bin/sensor",
                "--cpus",
                "0,1",
                "--start-at",
                "${KAIROS_START_AT}"),
            "cell.tmo:75",
            2,
            false,
            false,
            Inventory.Account.ROOT);
    final DeployBundle.Deployment deployment =
        new DeployBundle.Deployment(
            "Work Cell",
            "cell.tmo",
            List.of(sensor),
            Map.of("alpha", List.of(KernelSettings.THROTTLING_OFF)),
            Map.of("alpha", List.of(0, 1)),
            0,
            10);
    assertEquals("kairos-work-cell-sensor.service", sensor.unit());
    final String unit = DeployBundle.unit(deployment, sensor);
    for (String line :
        List.of(
            "ExecStart=/opt/kairos/Cell/sensor/bin/sensor --cpus 0,1 --start-at ${KAIROS_START_AT}",
            "EnvironmentFile=/opt/kairos/Cell/sensor/start.env",
            "CPUAffinity=0 1",
            "CPUSchedulingPolicy=other",
            "LimitRTPRIO=99",
            "LimitMEMLOCK=infinity",
            "StandardOutput=append:/opt/kairos/Cell/sensor/run/sensor.log",
            "KillSignal=SIGTERM",
            "TimeoutStopSec=70s",
            "Restart=on-failure",
            "WantedBy=multi-user.target")) {
      assertTrue(unit.lines().anyMatch(line::equals), line + " not in:\n" + unit);
    }
    assertTrue(unit.startsWith("# Generated by kairos deploy from cell.tmo:75"), unit);
    // A run of a set length is not restarted: a restarted node would run its whole length again.
    final DeployBundle.Deployment timed =
        new DeployBundle.Deployment(
            "Work Cell", "cell.tmo", List.of(sensor), Map.of(), Map.of(), 4_000_000_000L, 10);
    assertTrue(DeployBundle.unit(timed, sensor).lines().anyMatch("Restart=no"::equals));
    assertTrue(DeployBundle.inventory(timed).lines().anyMatch("    kairos_run_s: 4"::equals));
    final String inventory = DeployBundle.inventory(deployment);
    for (String line :
        List.of(
            "kairos_nodes:",
            "    kairos_run_s: 0",
            "    \"alpha\":",
            "      kairos_sysctl: [\"kernel.sched_rt_runtime_us=-1\"]",
            "        - name: \"sensor\"",
            "          cpus: \"0,1\"",
            "          timings: \"/opt/kairos/Cell/sensor/run/sensor.timings.json\"",
            "          stop_after_ms: 1000")) {
      assertTrue(inventory.lines().anyMatch(line::equals), line + " not in:\n" + inventory);
    }
    // The same deployment, the same files; every playbook the bundle names is shipped.
    assertEquals(DeployBundle.files(deployment), DeployBundle.files(deployment));
    assertTrue(DeployBundle.files(deployment).keySet().containsAll(DeployBundle.PLAYBOOK_FILES));
    // Its channels open: nothing names keys. Under DDS Security: the inventory names its
    // configuration where the playbook installs its keys, which start.env hands the node.
    assertFalse(inventory.contains("dds_security"), inventory);
    final DeployBundle.NodeUnit secured = copyOf(sensor, sensor.command(), true, sensor.account());
    final String securedInventory =
        DeployBundle.inventory(
            new DeployBundle.Deployment(
                "Work Cell", "cell.tmo", List.of(secured), Map.of(), Map.of(), 0, 10));
    assertTrue(
        securedInventory
            .lines()
            .anyMatch(
                "          dds_security: \"file:///opt/kairos/Cell/sensor/keys/sensor.cyclonedds.xml\""
                    ::equals),
        securedInventory);
    final String site = DeployBundle.playbookFile("site.yml");
    assertTrue(site.contains("src: \"keys/{{ item.name }}/\""), site);
    assertTrue(site.contains("item.dds_security | default('')] | select | join(',')"), site);
  }

  @Test
  void aFailedPlaybookIsToldByItsFailedTasksAndRecap() {
    final List<String> shown =
        AnsibleRun.failureLines(
            List.of(
                "PLAY [Install the nodes] ****",
                "TASK [Each node's executable] ****",
                "ok: [alpha]",
                "fatal: [beta]: UNREACHABLE! => {\"msg\": \"no route\"}",
                "PLAY RECAP ****",
                "alpha : ok=3 failed=0",
                "beta : ok=0 unreachable=1"));
    assertEquals(
        List.of(
            "TASK [Each node's executable]",
            "fatal: [beta]: UNREACHABLE! => {\"msg\": \"no route\"}",
            "PLAY RECAP ****",
            "alpha : ok=3 failed=0",
            "beta : ok=0 unreachable=1"),
        shown);
  }

  /** {@code unit} with another command, channel security and account. */
  private static DeployBundle.NodeUnit copyOf(
      final DeployBundle.NodeUnit unit,
      final List<String> command,
      final boolean secureChannels,
      final Inventory.Account account) {
    return new DeployBundle.NodeUnit(
        unit.node(),
        unit.host(),
        unit.unit(),
        unit.home(),
        unit.cpus(),
        command,
        unit.modelLocation(),
        unit.stopWave(),
        secureChannels,
        unit.authenticated(),
        account);
  }
}
