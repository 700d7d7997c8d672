package dev.kairos.ir.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.TypeUse.PrimitiveKind;
import dev.kairos.ir.Types;
import dev.kairos.ir.Types.Direction;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.Types.Parameter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Frame sizes as the runtime has them, and the time a frame takes onto a link. */
class FramesTest {
  private static final SourceRef AT = new SourceRef("m.tmo", 1);

  /** The value of `constant` as the runtime header `kairos/<header>` declares it. */
  private static int runtimeConstant(String header, String constant) throws Exception {
    final String text =
        Files.readString(Path.of("..", "runtime-cpp", "include", "kairos").resolve(header));
    final Matcher value = Pattern.compile(constant + "\\s*=\\s*([0-9]+)\\s*;").matcher(text);
    assertTrue(value.find(), header + " declares " + constant);
    return Integer.parseInt(value.group(1));
  }

  @Test
  void theHeaderIsTheRuntimes() throws Exception {
    assertEquals(runtimeConstant("orb/frame.hpp", "kHeaderSize"), Frames.HEADER_BYTES);
  }

  @Test
  void theSampleHeaderIsTheRuntimes() throws Exception {
    assertEquals(
        runtimeConstant("channel/hub.hpp", "kSampleHeaderSize"), Frames.SAMPLE_HEADER_BYTES);
    assertTrue(Frames.SAMPLE_HEADER_BYTES <= Frames.HEADER_BYTES);
  }

  @Test
  void theBodyCapacityIsTheRuntimes() throws Exception {
    final String capacities =
        Files.readString(Path.of("..", "runtime-cpp", "capacities.properties"));
    final Matcher body = Pattern.compile("(?m)^body=([0-9]+)$").matcher(capacities);
    assertTrue(body.find());
    assertEquals(Long.parseLong(body.group(1)), Frames.BODY_CAPACITY);
  }

  @Test
  void serialisationIsTheFramesBitsOverTheBandwidthRoundedUp() {
    // 4 + 32 bytes = 288 bits: 36 us at 8 Mbps (a byte a microsecond), as the sim's cube call.
    assertEquals(36_000, Frames.serialisationNs(4, 8_000_000));
    // 288 bits at 10 Mbps: 28.8 us exactly; at 3 bps 96 s exactly; at 7 bps 41.14... s, rounded up.
    assertEquals(28_800, Frames.serialisationNs(4, 10_000_000));
    assertEquals(96_000_000_000L, Frames.serialisationNs(4, 3));
    assertEquals(41_142_857_143L, Frames.serialisationNs(4, 7));
    assertEquals(0, Frames.serialisationNs(4, 0), "no bandwidth, no serialisation");
    assertEquals(Long.MAX_VALUE, Frames.serialisationNs(Long.MAX_VALUE, 1));
    assertEquals(Long.MAX_VALUE, Frames.serialisationNs(Long.MAX_VALUE / 8, 1_000_000_000L));
  }

  @Test
  void messagesHoldWhatTheMarshallingSends() {
    final TypeUse u8 = new TypeUse.Primitive(PrimitiveKind.UINT8);
    final TypeUse f64 = new TypeUse.Primitive(PrimitiveKind.DOUBLE);
    final Types.Aggregate overload =
        new Types.Aggregate(
            List.of("m"),
            "Overload",
            Types.DeclarationKind.EXCEPTION,
            List.of(new Types.Field("queued", f64, 0, AT)),
            AT);
    final Operation op =
        new Operation(
            "move",
            false,
            f64,
            List.of(
                new Parameter(Direction.IN, u8, "a"),
                new Parameter(Direction.OUT, f64, "b"),
                new Parameter(Direction.INOUT, u8, "c")),
            List.of(new TypeUse.Named(List.of("m"), "Overload")),
            AT);
    final OperationMessages messages = new OperationMessages(new MaxEncodedSize(List.of(overload)));
    // request: a, c (2 bytes); reply: result (8), b (8), c (1) = 17;
    // exception: the index (4), then the double at 8: 16.
    assertEquals(
        List.of("a", "c"),
        OperationMessages.request(op).stream().map(m -> m.parameter().orElseThrow()).toList());
    assertTrue(OperationMessages.reply(op).get(0).isResult());
    assertEquals(2, messages.requestBytes(op));
    assertEquals(17, messages.replyBytes(op));
    assertEquals(16, messages.exceptionBytes(op));
    assertEquals(17, messages.answerBytes(op));

    final Operation oneway =
        new Operation(
            "nudge", true, null, List.of(new Parameter(Direction.IN, f64, "d")), List.of(), AT);
    assertEquals(8, messages.requestBytes(oneway));
    assertEquals(0, messages.replyBytes(oneway));
    assertEquals(0, messages.exceptionBytes(oneway));
  }
}
