package dev.kairos.cli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** What the command line checks about a model file's bytes before the parser reads it as text. */
final class TextFiles {
  private TextFiles() {}

  /** A 1-based line and column. */
  record Position(int line, int column) {}

  /** The first byte that is not part of a UTF-8 character, and where it is. */
  record Malformed(Position position, int value) {}

  /** Where the first NUL byte is: no text file holds one. */
  static Optional<Position> firstNul(byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == 0) {
        return Optional.of(positionOf(bytes, i));
      }
    }
    return Optional.empty();
  }

  static Optional<Malformed> firstMalformedUtf8(byte[] bytes) {
    final CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    final ByteBuffer in = ByteBuffer.wrap(bytes);
    final CharBuffer out = CharBuffer.allocate(bytes.length + 1);
    final CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      return Optional.empty();
    }
    final int offset = in.position();
    return Optional.of(new Malformed(positionOf(bytes, offset), bytes[offset] & 0xff));
  }

  /** Line and column (in characters) of a byte offset, decoding what comes before it. */
  private static Position positionOf(byte[] bytes, int offset) {
    final String before = new String(bytes, 0, offset, StandardCharsets.UTF_8);
    int line = 1;
    int column = 1;
    for (int i = 0; i < before.length(); i++) {
      if (before.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new Position(line, column);
  }
}
