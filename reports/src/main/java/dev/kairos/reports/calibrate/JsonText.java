package dev.kairos.reports.calibrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader that remembers the line of every value, so that a problem in a file a node
 * wrote (a malformed document, or a method the model does not have) is reported at its line.
 * Objects become {@link JsonObject}, arrays {@link JsonArray}, numbers {@link Long} when they are
 * integers (else {@link Double}), strings {@link String}, true and false {@link Boolean}, null
 * {@link #NULL}.
 */
public final class JsonText {
  /** JSON's null, distinct from a missing member. */
  public static final Object NULL = new Object();

  /** A problem at a line of the text (1-based). */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;

    public Malformed(int line, String detail) {
      super(detail);
      this.line = line;
    }

    public int line() {
      return line;
    }
  }

  /** An object and the line each of its members' values starts on. */
  public record JsonObject(int line, Map<String, Object> members, Map<String, Integer> lines) {
    public int lineOf(String member) {
      return lines.getOrDefault(member, line);
    }
  }

  /** An array, its elements and the line each starts on. */
  public record JsonArray(int line, List<Object> elements, List<Integer> lines) {}

  private final String text;
  private int at;
  private int line = 1;

  private JsonText(String text) {
    this.text = text;
  }

  /** The one value the text holds. */
  public static Object parse(String text) throws Malformed {
    final JsonText reader = new JsonText(text);
    reader.skipSpace();
    if (reader.at == text.length()) {
      throw new Malformed(1, "the file is empty, not a JSON document");
    }
    final Object value = reader.value(0);
    reader.skipSpace();
    if (reader.at < text.length()) {
      throw new Malformed(reader.line, "text after the end of the JSON document");
    }
    return value;
  }

  private static final int MAX_DEPTH = 64;

  private Object value(int depth) throws Malformed {
    if (depth > MAX_DEPTH) {
      throw new Malformed(line, "values nested deeper than " + MAX_DEPTH);
    }
    if (at >= text.length()) {
      throw new Malformed(line, "the document ends where a value was expected");
    }
    final char c = text.charAt(at);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> word("true", Boolean.TRUE);
      case 'f' -> word("false", Boolean.FALSE);
      case 'n' -> word("null", NULL);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw new Malformed(line, "unexpected '" + c + "' where a value was expected");
      }
    };
  }

  private JsonObject object(int depth) throws Malformed {
    final int start = line;
    at++; // {
    final Map<String, Object> members = new LinkedHashMap<>();
    final Map<String, Integer> lines = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      at++;
      return new JsonObject(start, members, lines);
    }
    for (; ; ) {
      skipSpace();
      if (at >= text.length()) {
        throw new Malformed(line, "the document ends inside an object");
      }
      if (peek() != '"') {
        throw new Malformed(line, "a member name in double quotes was expected");
      }
      final String name = string();
      skipSpace();
      expect(':');
      skipSpace();
      final int valueLine = line;
      final Object value = value(depth + 1);
      if (members.containsKey(name)) {
        throw new Malformed(valueLine, "\"" + name + "\" is given twice");
      }
      members.put(name, value);
      lines.put(name, valueLine);
      skipSpace();
      if (peek() == ',') {
        at++;
        continue;
      }
      expect('}');
      return new JsonObject(start, members, lines);
    }
  }

  private JsonArray array(int depth) throws Malformed {
    final int start = line;
    at++; // [
    final List<Object> elements = new ArrayList<>();
    final List<Integer> lines = new ArrayList<>();
    skipSpace();
    if (peek() == ']') {
      at++;
      return new JsonArray(start, elements, lines);
    }
    for (; ; ) {
      skipSpace();
      lines.add(line);
      elements.add(value(depth + 1));
      skipSpace();
      if (peek() == ',') {
        at++;
        continue;
      }
      expect(']');
      return new JsonArray(start, elements, lines);
    }
  }

  private String string() throws Malformed {
    at++; // opening quote
    final StringBuilder out = new StringBuilder();
    while (at < text.length()) {
      final char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c == '\n' || c < 0x20) {
        throw new Malformed(line, "a string is not closed on its line");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) {
        break;
      }
      final char escaped = text.charAt(at++);
      switch (escaped) {
        case '"', '\\', '/' -> out.append(escaped);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw new Malformed(line, "a \\u escape needs four hex digits");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException e) {
            throw new Malformed(line, "a \\u escape needs four hex digits");
          }
          at += 4;
        }
        default -> throw new Malformed(line, "unknown escape \\" + escaped + " in a string");
      }
    }
    throw new Malformed(line, "the document ends inside a string");
  }

  private Object number() throws Malformed {
    final int start = at;
    if (peek() == '-') {
      at++;
    }
    boolean integral = true;
    while (at < text.length()) {
      final char c = text.charAt(at);
      if (c >= '0' && c <= '9') {
        at++;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        integral = false;
        at++;
      } else {
        break;
      }
    }
    final String literal = text.substring(start, at);
    try {
      return integral ? (Object) Long.parseLong(literal) : (Object) Double.parseDouble(literal);
    } catch (NumberFormatException e) {
      throw new Malformed(line, "'" + literal + "' is not a number (or does not fit 64 bits)");
    }
  }

  private Object word(String word, Object value) throws Malformed {
    if (!text.startsWith(word, at)) {
      throw new Malformed(line, "unexpected text where a value was expected");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) throws Malformed {
    if (peek() != c) {
      throw new Malformed(
          line,
          at >= text.length()
              ? "the document ends where '" + c + "' was expected"
              : "'" + c + "' was expected, not '" + text.charAt(at) + "'");
    }
    at++;
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void skipSpace() {
    while (at < text.length()) {
      final char c = text.charAt(at);
      if (c == '\n') {
        line++;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      at++;
    }
  }
}
