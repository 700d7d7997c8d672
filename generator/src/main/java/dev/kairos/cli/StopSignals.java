package dev.kairos.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * SIGINT and SIGTERM taken over while a run lasts: each calls {@code onStop} with the signal's name
 * ("INT", "TERM"; in a thread of its own, so more than once where both come) instead of ending
 * kairos, and close() gives the previous handlers back. Where the JVM keeps a signal for itself,
 * its default action stays.
 */
final class StopSignals implements AutoCloseable {
  private final List<sun.misc.Signal> signals = new ArrayList<>();
  private final List<sun.misc.SignalHandler> previous = new ArrayList<>();

  StopSignals(Consumer<String> onStop) {
    for (String name : List.of("INT", "TERM")) {
      try {
        final sun.misc.Signal signal = new sun.misc.Signal(name);
        previous.add(sun.misc.Signal.handle(signal, received -> onStop.accept(received.getName())));
        signals.add(signal);
      } catch (IllegalArgumentException | UnsupportedOperationException notHere) {
        // The JVM keeps this signal (or the platform has none).
      }
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < signals.size(); i++) {
      sun.misc.Signal.handle(signals.get(i), previous.get(i));
    }
  }
}
