package dev.kairos.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each diagnostic code means, read from docs/diagnostics.md (bundled into the jar), so the
 * rules of a SARIF report say exactly what the documentation says and cannot drift from it.
 */
final class DiagnosticRules {
  /** Where the documentation lies in the repository; rules link to its sections. */
  static final String DOCUMENT = "docs/diagnostics.md";

  /** A code, its meaning (Markdown as written, and as plain text), its section and its level. */
  record Rule(String code, String markdown, String text, String anchor, boolean warning) {
    String helpUri() {
      return DOCUMENT + "#" + anchor;
    }
  }

  private static final Pattern HEADING = Pattern.compile("^#+\\s+(.+?)\\s*$");
  private static final Pattern ROW =
      Pattern.compile("^\\|\\s*`(kairos\\.[a-z-]+)`\\s*\\|(.+)\\|\\s*$");
  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
  private static final Pattern WARNING = Pattern.compile("^\\(warning\\)\\s*");

  private static Map<String, Rule> rules;

  private DiagnosticRules() {}

  static synchronized Optional<Rule> of(String code) {
    if (rules == null) {
      rules = load();
    }
    return Optional.ofNullable(rules.get(code));
  }

  private static Map<String, Rule> load() {
    try (InputStream in = DiagnosticRules.class.getResourceAsStream("diagnostics.md")) {
      return in == null ? Map.of() : parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Map.of(); // rules without descriptions, results still complete
    }
  }

  static Map<String, Rule> parse(String markdown) {
    final Map<String, Rule> parsed = new LinkedHashMap<>();
    String anchor = "";
    for (String line : markdown.lines().toList()) {
      final Matcher heading = HEADING.matcher(line);
      if (heading.matches()) {
        anchor = anchor(heading.group(1));
        continue;
      }
      final Matcher row = ROW.matcher(line);
      if (row.matches()) {
        final String meaning = row.group(2).strip();
        final boolean warning = WARNING.matcher(meaning).find();
        final String text =
            LINK.matcher(WARNING.matcher(meaning).replaceFirst(""))
                .replaceAll("$1")
                .replace("`", "")
                .replace("\\|", "|");
        parsed.putIfAbsent(row.group(1), new Rule(row.group(1), meaning, text, anchor, warning));
      }
    }
    return parsed;
  }

  /** The anchor GitHub and most Markdown renderers give a heading. */
  static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }
}
