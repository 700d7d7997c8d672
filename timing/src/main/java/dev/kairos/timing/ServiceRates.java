package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How often the model's callers may call each service method, against the method's {@code
 * max-rate}: the analysis of every node takes a service method's requests to come at most once per
 * minimum inter-arrival time T (1 / max-rate), and the engine refuses requests that come faster
 * (docs/analysis.md#service-rates), so the callers the model describes must keep to it.
 *
 * <p>Each method that names a gate in its {@code calls} calls it at most once per activation: an
 * SpM every period (a one-shot SpM once), an SvM at most at its own max-rate. The callers' rates
 * added up must not exceed the callee's max-rate. Callers that keep to their rates still call
 * independently: n callers whose rates add up to at most 1 / T make at most {@code ceil((w + (n -
 * 1) T) / T)} requests in a window w (each caller at most one more than its rate allows), which is
 * a sporadic stream of period T with a release jitter of {@code (n - 1) T}. That jitter is added to
 * the service method's own (the chains' jitter of its requests) in every node analysis, and the
 * engine admits exactly the stream with the total jitter.
 */
public final class ServiceRates {
  private ServiceRates() {}

  /**
   * One method that calls a service method through a gate of its TMO.
   *
   * @param caller {@code instance.method}
   * @param intervalNs the least time between two of its activations: an SpM's period, an SvM's
   *     minimum inter-arrival time; {@link #ONCE} for a one-shot SpM, {@link #UNBOUNDED} for an SvM
   *     without max-rate
   */
  public record Caller(String caller, String gate, long intervalNs, SourceRef source) {
    /** A one-shot SpM: one call in all. */
    public static final long ONCE = 0;

    /** An SvM without max-rate: no bound on how often it calls. */
    public static final long UNBOUNDED = -1;
  }

  /**
   * One service method with a max-rate that the model's methods call.
   *
   * @param callee {@code instance.method}
   * @param minInterArrivalNs 1 / max-rate
   * @param callsPerSecond what the callers' rates add up to (ones-shot SpMs count nothing); {@link
   *     Double#POSITIVE_INFINITY} when a caller's rate is unbounded
   * @param burstJitterNs the release jitter independent callers give its requests, (n - 1) T
   * @param meets the callers keep to max-rate together
   */
  public record Report(
      String node,
      String callee,
      long minInterArrivalNs,
      List<Caller> callers,
      double callsPerSecond,
      long burstJitterNs,
      boolean meets,
      SourceRef source) {
    public double maxRateHz() {
      return 1e9 / minInterArrivalNs;
    }
  }

  /** Every service method with a max-rate that some method of the model calls, in model order. */
  public static List<Report> analyse(SystemModel system) {
    final Map<String, Deployment> byClass = new HashMap<>();
    final Map<String, Node> nodeOf = new HashMap<>();
    for (Node node : system.nodes()) {
      for (Deployment deployment : node.deployments()) {
        byClass.putIfAbsent(deployment.tmo().qualifiedName(), deployment);
        nodeOf.putIfAbsent(deployment.instance(), node);
      }
    }
    final Map<String, List<Caller>> callersOf = new LinkedHashMap<>();
    for (Node node : system.nodes()) {
      for (Deployment deployment : node.deployments()) {
        for (Spm spm : deployment.tmo().spms()) {
          final long interval = spm.periodNs() > 0 ? spm.periodNs() : Caller.ONCE;
          addCalls(byClass, callersOf, deployment, spm.name(), spm.calls(), interval);
        }
        for (Svm svm : deployment.tmo().svms()) {
          final long interval =
              svm.minInterArrivalNs() > 0 ? svm.minInterArrivalNs() : Caller.UNBOUNDED;
          addCalls(byClass, callersOf, deployment, svm.name(), svm.calls(), interval);
        }
      }
    }
    final List<Report> reports = new ArrayList<>();
    for (Node node : system.nodes()) {
      for (Deployment deployment : node.deployments()) {
        for (Svm svm : deployment.tmo().svms()) {
          final String callee = deployment.instance() + "." + svm.name();
          final List<Caller> callers = callersOf.getOrDefault(callee, List.of());
          if (callers.isEmpty() || svm.minInterArrivalNs() <= 0) {
            continue; // without max-rate the node analysis already reports an unbounded load
          }
          reports.add(report(node, callee, svm, callers));
        }
      }
    }
    return reports;
  }

  /** instance.method -> (n - 1) T for every called service method with n callers. */
  public static Map<String, Long> burstJitter(List<Report> reports) {
    final Map<String, Long> jitter = new HashMap<>();
    for (Report report : reports) {
      if (report.burstJitterNs() > 0) {
        jitter.put(report.callee(), report.burstJitterNs());
      }
    }
    return jitter;
  }

  /** The chains' jitter of each service method's requests with its callers' burst added. */
  public static Map<String, Long> withBursts(Map<String, Long> chains, Map<String, Long> bursts) {
    if (bursts.isEmpty()) {
      return chains;
    }
    final Map<String, Long> total = new HashMap<>(chains);
    bursts.forEach((method, burst) -> total.merge(method, burst, EndToEndAnalysis::saturatedSum));
    return total;
  }

  private static void addCalls(
      Map<String, Deployment> byClass,
      Map<String, List<Caller>> callersOf,
      Deployment caller,
      String method,
      List<String> calls,
      long intervalNs) {
    for (Gate gate : caller.tmo().gates()) {
      if (!calls.contains(gate.name())) {
        continue;
      }
      final Deployment callee = byClass.get(gate.calleeTmo());
      if (callee == null) {
        continue; // validation reports a gate to a TMO deployed nowhere
      }
      callersOf
          .computeIfAbsent(callee.instance() + "." + gate.calleeMethod(), k -> new ArrayList<>())
          .add(
              new Caller(caller.instance() + "." + method, gate.name(), intervalNs, gate.source()));
    }
  }

  private static Report report(Node node, String callee, Svm svm, List<Caller> callers) {
    final long period = svm.minInterArrivalNs();
    // sum of T / interval over the callers, as an exact fraction: meets when it is at most 1.
    BigInteger numerator = BigInteger.ZERO;
    BigInteger denominator = BigInteger.ONE;
    boolean unbounded = false;
    double callsPerSecond = 0;
    for (Caller caller : callers) {
      if (caller.intervalNs() == Caller.UNBOUNDED) {
        unbounded = true;
      } else if (caller.intervalNs() > 0) {
        final BigInteger interval = BigInteger.valueOf(caller.intervalNs());
        numerator =
            numerator.multiply(interval).add(BigInteger.valueOf(period).multiply(denominator));
        denominator = denominator.multiply(interval);
        final BigInteger common = numerator.gcd(denominator);
        numerator = numerator.divide(common);
        denominator = denominator.divide(common);
        callsPerSecond += 1e9 / caller.intervalNs();
      }
    }
    final boolean meets = !unbounded && numerator.compareTo(denominator) <= 0;
    final long burst = saturatedProduct(callers.size() - 1L, period);
    return new Report(
        node.name(),
        callee,
        period,
        List.copyOf(callers),
        unbounded ? Double.POSITIVE_INFINITY : callsPerSecond,
        burst,
        meets,
        svm.source());
  }

  private static long saturatedProduct(long a, long b) {
    final long high = Math.multiplyHigh(a, b);
    final long low = a * b;
    return (high == 0 && low >= 0) ? low : Long.MAX_VALUE;
  }
}
