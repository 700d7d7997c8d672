package dev.kairos.generator.emit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one way generated text is written: lines from templates with {@code $name$} holes, kept at
 * the current nesting depth. A hole without a value, or a value no hole uses, is an error — so a
 * misspelt variable fails the generator's tests instead of reaching users' code. {@code $$} writes
 * a dollar sign.
 */
public final class CodeWriter {
  private static final String INDENT = "  ";

  private final StringBuilder out = new StringBuilder();
  private int depth;
  private boolean lastWasBlank = true;

  /** Writes one line (or several, split at newlines) from a template. */
  public CodeWriter line(String template, Object... variables) {
    final String text = substitute(template, variables);
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        out.append('\n');
      } else {
        out.append(INDENT.repeat(depth)).append(line).append('\n');
      }
      lastWasBlank = line.isEmpty();
    }
    return this;
  }

  /** Writes a line, then indents what follows. */
  public CodeWriter open(String template, Object... variables) {
    line(template, variables);
    depth++;
    return this;
  }

  /** Outdents, then writes a line. */
  public CodeWriter close(String template, Object... variables) {
    if (depth == 0) {
      throw new IllegalStateException("close without open: " + template);
    }
    depth--;
    return line(template, variables);
  }

  /**
   * Writes a line that opens a braced initializer list: what follows is indented by the
   * continuation indent (two levels), as clang-format lays out the elements of such a list.
   */
  public CodeWriter openList(String template, Object... variables) {
    line(template, variables);
    depth += 2;
    return this;
  }

  /** Outdents from {@link #openList}, then writes a line. */
  public CodeWriter closeList(String template, Object... variables) {
    if (depth < 2) {
      throw new IllegalStateException("closeList without openList: " + template);
    }
    depth -= 2;
    return line(template, variables);
  }

  /** The column limit of the project's clang-format style. */
  public static final int COLUMN_LIMIT = 100;

  /**
   * Writes a {@code //} comment, its words filled into lines of at most {@link #COLUMN_LIMIT}
   * columns the way clang-format reflows comments (a word longer than a line stays whole).
   */
  public CodeWriter comment(String template, Object... variables) {
    return reflowed("//", substitute(template, variables));
  }

  /** As {@link #comment}, as a {@code ///} documentation comment. */
  public CodeWriter docComment(String template, Object... variables) {
    return reflowed("///", substitute(template, variables));
  }

  private CodeWriter reflowed(String marker, String text) {
    final int room = COLUMN_LIMIT - INDENT.length() * depth - marker.length() - 1;
    StringBuilder current = new StringBuilder();
    for (String word : text.trim().split(" +")) {
      if (current.length() > 0 && current.length() + 1 + word.length() > room) {
        line("$marker$ $text$", "marker", marker, "text", current.toString());
        current = new StringBuilder();
      }
      if (current.length() > 0) {
        current.append(' ');
      }
      current.append(word);
    }
    return line("$marker$ $text$", "marker", marker, "text", current.toString());
  }

  /**
   * Writes {@code head item, item, ... tail} — head ending in an opening parenthesis, tail starting
   * with the closing one — as clang-format lays out parameter and argument lists in the project
   * style: on one line where it fits; else packed onto lines aligned after the parenthesis; else,
   * where an item does not fit there, packed from the next line at the continuation indent. Text is
   * written as given (no holes).
   */
  public CodeWriter parenthesized(String head, List<String> items, String tail) {
    final int room = COLUMN_LIMIT - INDENT.length() * depth;
    final String oneLine = head + String.join(", ", items) + tail;
    if (oneLine.length() <= room || items.isEmpty()) {
      return verbatim(oneLine);
    }
    List<String> lines = pack(head, " ".repeat(head.length()), items, tail, room);
    if (lines == null) {
      final String continuation = INDENT.repeat(2);
      lines = pack(continuation, continuation, items, tail, room);
      if (lines == null) {
        return verbatim(oneLine); // too long however it is broken: clang-format will judge
      }
      lines.add(0, head);
    }
    lines.forEach(this::verbatim);
    return this;
  }

  /** As {@link #parenthesized}, then indents what follows (a definition's body). */
  public CodeWriter openParenthesized(String head, List<String> items, String tail) {
    parenthesized(head, items, tail);
    depth++;
    return this;
  }

  /** Items filled greedily into lines of at most room columns, or null where one cannot fit. */
  private static List<String> pack(
      String first, String continuation, List<String> items, String tail, int room) {
    final List<String> lines = new ArrayList<>();
    StringBuilder current = new StringBuilder(first).append(items.get(0));
    for (int i = 1; i < items.size(); i++) {
      final String end = i == items.size() - 1 ? tail : ",";
      if (current.length() + 2 + items.get(i).length() + end.length() <= room) {
        current.append(", ").append(items.get(i));
      } else {
        lines.add(current.append(',').toString());
        current = new StringBuilder(continuation).append(items.get(i));
      }
    }
    lines.add(current.append(tail).toString());
    return lines.stream().allMatch(line -> line.length() <= room) ? lines : null;
  }

  private CodeWriter verbatim(String text) {
    return line("$text$", "text", text);
  }

  /** Writes a line one level out and stays at the current depth: `else`, `case`, `public:`. */
  public CodeWriter outdented(String template, Object... variables) {
    if (depth == 0) {
      throw new IllegalStateException("outdent at depth 0: " + template);
    }
    depth--;
    line(template, variables);
    depth++;
    return this;
  }

  /** One empty line; never two in a row, never at the top. */
  public CodeWriter blank() {
    if (!lastWasBlank) {
      out.append('\n');
      lastWasBlank = true;
    }
    return this;
  }

  public String text() {
    if (depth != 0) {
      throw new IllegalStateException("unbalanced open/close: depth " + depth + " at the end");
    }
    // A file ends with its last line, not with blank ones (as clang-format leaves it).
    int end = out.length();
    while (end >= 2 && out.charAt(end - 1) == '\n' && out.charAt(end - 2) == '\n') {
      end--;
    }
    return out.substring(0, end);
  }

  static String substitute(String template, Object... variables) {
    if (variables.length % 2 != 0) {
      throw new IllegalArgumentException("variables come in name/value pairs: " + template);
    }
    final Map<String, String> values = new HashMap<>();
    for (int i = 0; i < variables.length; i += 2) {
      values.put(String.valueOf(variables[i]), String.valueOf(variables[i + 1]));
    }
    final Set<String> used = new HashSet<>();
    final StringBuilder result = new StringBuilder();
    int position = 0;
    while (position < template.length()) {
      final int start = template.indexOf('$', position);
      if (start < 0) {
        result.append(template, position, template.length());
        break;
      }
      final int end = template.indexOf('$', start + 1);
      if (end < 0) {
        throw new IllegalArgumentException("unclosed $ in template: " + template);
      }
      result.append(template, position, start);
      final String name = template.substring(start + 1, end);
      if (name.isEmpty()) {
        result.append('$');
      } else {
        final String value = values.get(name);
        if (value == null) {
          throw new IllegalArgumentException("no value for $" + name + "$ in: " + template);
        }
        used.add(name);
        result.append(value);
      }
      position = end + 1;
    }
    if (!used.containsAll(values.keySet())) {
      final Set<String> unused = new HashSet<>(values.keySet());
      unused.removeAll(used);
      throw new IllegalArgumentException("unused variables " + unused + " for: " + template);
    }
    return result.toString();
  }
}
