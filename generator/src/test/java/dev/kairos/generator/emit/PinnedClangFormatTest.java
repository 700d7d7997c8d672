package dev.kairos.generator.emit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated C++ is formatted by the pinned clang-format only: taken from --clang-format, then
 * KAIROS_CLANG_FORMAT, then the checkout's installed copy, never from the PATH, and refused with a
 * clear reason when its version is another.
 */
class PinnedClangFormatTest {
  @TempDir Path temp;

  /** An executable that answers --version as a clang-format of that version would. */
  private Path fake(String name, String versionLine) throws IOException {
    final Path file = temp.resolve(name).resolve("clang-format");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\necho '" + versionLine + "'\n");
    assertTrue(file.toFile().setExecutable(true));
    return file;
  }

  private static String refusal(String command, Map<String, String> environment, String home) {
    return assertThrows(
            ClangFormat.Unavailable.class, () -> ClangFormat.pinned(command, environment, home))
        .getMessage();
  }

  @Test
  void thePinnedVersionComesFromTheRepository() throws IOException {
    final Path pinned = Path.of("../scripts/clang-format.version");
    assertEquals(Files.readString(pinned).trim(), ClangFormat.VERSION);
    assertTrue(ClangFormat.VERSION.matches("\\d+\\.\\d+\\.\\d+"), ClangFormat.VERSION);
  }

  @Test
  void aClangFormatOnThePathIsNeverUsed() throws IOException {
    // Even one of the pinned version: what the PATH holds is up to the machine.
    final Path onPath = fake("path", "clang-format version " + ClangFormat.VERSION);
    final Map<String, String> environment = Map.of("PATH", onPath.getParent().toString());
    final String message = refusal(null, environment, temp.resolve("checkout").toString());
    assertTrue(message.contains("which is not installed at"), message);
    assertTrue(message.contains("make setup"), message);
    assertTrue(message.contains("KAIROS_CLANG_FORMAT"), message);

    final String noHome = refusal(null, environment, null);
    assertTrue(noHome.contains("set KAIROS_CLANG_FORMAT to a clang-format " + ClangFormat.VERSION));
  }

  @Test
  void anotherVersionIsRefusedWhereverItComesFrom() throws IOException {
    final Path ubuntu = fake("ubuntu", "Ubuntu clang-format version 18.1.3 (1ubuntu1)");
    final String fromEnvironment =
        refusal(null, Map.of("KAIROS_CLANG_FORMAT", ubuntu.toString()), null);
    assertTrue(
        fromEnvironment.startsWith("KAIROS_CLANG_FORMAT=" + ubuntu + " is clang-format 18.1.3,"),
        fromEnvironment);
    assertTrue(fromEnvironment.contains("formatted with clang-format " + ClangFormat.VERSION));

    final String fromOption = refusal(ubuntu.toString(), Map.of(), null);
    assertTrue(fromOption.startsWith("--clang-format " + ubuntu + " is clang-format 18.1.3"));

    final Path notClangFormat = fake("other", "some other tool 1.0");
    final String unnamed = refusal(notClangFormat.toString(), Map.of(), null);
    assertTrue(unnamed.contains("does not name a clang-format version"), unnamed);

    final String missing = refusal("clang-format-99", Map.of("PATH", temp.toString()), null);
    assertEquals("--clang-format clang-format-99: no such executable", missing);
  }

  @Test
  void theOptionComesBeforeTheEnvironmentAndTheEnvironmentBeforeTheCheckout() throws Exception {
    final Path pinned = fake("pinned", "clang-format version " + ClangFormat.VERSION + " (wheel)");
    final Path other = fake("other", "clang-format version 17.0.6");
    final Path checkout = temp.resolve("checkout");
    final Path installed = ClangFormat.installed(checkout);
    Files.createDirectories(installed.getParent());
    Files.copy(pinned, installed);

    ClangFormat.pinned(pinned.toString(), Map.of("KAIROS_CLANG_FORMAT", other.toString()), null);
    ClangFormat.pinned(null, Map.of("KAIROS_CLANG_FORMAT", pinned.toString()), checkout.toString());
    ClangFormat.pinned(null, Map.of("KAIROS_CLANG_FORMAT", " "), checkout.toString());
    final String environmentFirst =
        refusal(null, Map.of("KAIROS_CLANG_FORMAT", other.toString()), checkout.toString());
    assertTrue(environmentFirst.contains("is clang-format 17.0.6"), environmentFirst);
    assertEquals(
        List.of("build", "tools", "clang-format-" + ClangFormat.VERSION),
        List.of(
            checkout.relativize(installed).getName(0).toString(),
            checkout.relativize(installed).getName(1).toString(),
            checkout.relativize(installed).getName(2).toString()));
  }

  @Test
  void anInstallationUsesItsOwnCopyAndSaysSoWhenItIsMissing() throws Exception {
    final Path pinned = fake("pinned", "clang-format version " + ClangFormat.VERSION + " (wheel)");
    // <prefix>/share/kairos: the jar, and the formatter beside it.
    final Path home = Files.createDirectories(temp.resolve("prefix/share/kairos"));
    Files.writeString(home.resolve("kairos.jar"), "");
    final String missing = refusal(null, Map.of(), home.toString());
    assertTrue(missing.contains("this Kairos installation lacks"), missing);
    assertTrue(missing.contains(ClangFormat.packaged(home).toString()), missing);

    Files.createDirectories(ClangFormat.packaged(home).getParent());
    Files.copy(pinned, ClangFormat.packaged(home));
    ClangFormat.pinned(null, Map.of(), home.toString());
    assertEquals(
        home.resolve("clang-format-" + ClangFormat.VERSION).resolve("clang-format"),
        ClangFormat.packaged(home));
  }
}
