package dev.kairos.dsl.validation;

/**
 * Issue codes of every diagnostic Kairos reports. They are stable: tests, editors (quick fixes) and
 * CI scripts key on them, and docs/diagnostics.md explains each one.
 */
public final class IssueCodes {
  private IssueCodes() {}

  private static final String PREFIX = "kairos.";

  // quantities
  public static final String INVALID_DURATION = PREFIX + "invalid-duration";
  public static final String INVALID_RATE = PREFIX + "invalid-rate";
  public static final String INVALID_SPEED = PREFIX + "invalid-speed";
  public static final String INVALID_BANDWIDTH = PREFIX + "invalid-bandwidth";

  // spontaneous methods and their activation conditions
  public static final String NON_POSITIVE_PERIOD = PREFIX + "non-positive-period";
  public static final String UNKNOWN_TIME_VARIABLE = PREFIX + "unknown-time-variable";
  public static final String WINDOW_INVERTED = PREFIX + "window-inverted";
  public static final String WINDOW_OUTSIDE_PERIOD = PREFIX + "window-outside-period";
  public static final String DEADLINE_BEFORE_WINDOW_END = PREFIX + "deadline-before-window-end";
  public static final String DEADLINE_EXCEEDS_PERIOD = PREFIX + "deadline-exceeds-period";
  public static final String WINDOW_NOT_RELATIVE = PREFIX + "window-not-relative";
  public static final String AAC_ENDS_BEFORE_START = PREFIX + "aac-ends-before-start";
  public static final String WCET_EXCEEDS_DEADLINE = PREFIX + "wcet-exceeds-deadline";
  public static final String NON_POSITIVE_WCET = PREFIX + "non-positive-wcet";

  // service methods
  public static final String WCET_EXCEEDS_GCT = PREFIX + "wcet-exceeds-gct";

  // files and syntax
  public static final String SYNTAX = PREFIX + "syntax";

  // names
  public static final String UNRESOLVED_REFERENCE = PREFIX + "unresolved-reference";
  public static final String DUPLICATE_NAME = PREFIX + "duplicate-name";
  public static final String UNRESOLVED_IMPORT = PREFIX + "unresolved-import";
  public static final String EMPTY_MODEL = PREFIX + "empty-model";
  public static final String INVALID_ENCODING = PREFIX + "invalid-encoding";
  public static final String CPP_KEYWORD = PREFIX + "cpp-keyword";
  public static final String RESERVED_NAME = PREFIX + "reserved-name";

  // types
  public static final String UNBOUNDED_STRING = PREFIX + "unbounded-string";
  public static final String INVALID_BOUND = PREFIX + "invalid-bound";
  public static final String RECURSIVE_TYPE = PREFIX + "recursive-type";
  public static final String CONST_TYPE_MISMATCH = PREFIX + "const-type-mismatch";

  // initial values of segment fields
  public static final String INITIAL_VALUE_PLACEMENT = PREFIX + "initial-value-placement";
  public static final String INITIAL_VALUE_MISMATCH = PREFIX + "initial-value-mismatch";
  public static final String INITIAL_VALUE_RANGE = PREFIX + "initial-value-range";

  // TMOs and their interfaces
  public static final String OPERATION_WITHOUT_SVM = PREFIX + "operation-without-svm";
  public static final String DUPLICATE_SEGMENT_USE = PREFIX + "duplicate-segment-use";
  public static final String NAME_COLLISION = PREFIX + "name-collision";

  // remote calls
  public static final String DUPLICATE_GATE_CALL = PREFIX + "duplicate-gate-call";
  public static final String CALLEE_WITHOUT_ENDPOINT = PREFIX + "callee-without-endpoint";
  public static final String TWO_WAY_OVER_UDP = PREFIX + "two-way-over-udp";
  public static final String GATE_NOT_CALLED = PREFIX + "gate-not-called";
  public static final String CALLEE_NOT_DEPLOYED = PREFIX + "callee-not-deployed";
  public static final String GATE_DEADLINE_TOO_SHORT = PREFIX + "gate-deadline-too-short";
  public static final String NO_NETWORK_PATH = PREFIX + "no-network-path";
  public static final String UNAUTHENTICATED_NETWORK = PREFIX + "unauthenticated-network";

  // real-time multicast channels
  public static final String CHANNEL_TYPE_MISMATCH = PREFIX + "channel-type-mismatch";
  public static final String CHANNEL_QOS_MISMATCH = PREFIX + "channel-qos-mismatch";
  public static final String CHANNEL_QOS_RANGE = PREFIX + "channel-qos-range";
  public static final String CHANNEL_NOT_USED = PREFIX + "channel-not-used";
  public static final String DUPLICATE_CHANNEL_USE = PREFIX + "duplicate-channel-use";
  public static final String CHANNEL_PUBLISHED_AND_READ = PREFIX + "channel-published-and-read";
  public static final String CHANNEL_FAN_OUT_EXCEEDED = PREFIX + "channel-fan-out-exceeded";
  public static final String CHANNEL_NO_PUBLISHER = PREFIX + "channel-no-publisher";
  public static final String CHANNEL_NO_READER = PREFIX + "channel-no-reader";
  public static final String IDL_NAME_COLLISION = PREFIX + "idl-name-collision";

  // deployment
  public static final String TMO_DEPLOYED_TWICE = PREFIX + "tmo-deployed-twice";
  public static final String EMPTY_NODE = PREFIX + "empty-node";
  public static final String INVALID_ENDPOINT = PREFIX + "invalid-endpoint";
  public static final String DUPLICATE_ENDPOINT = PREFIX + "duplicate-endpoint";
  public static final String INVALID_HOST = PREFIX + "invalid-host";
  public static final String DUPLICATE_NODE = PREFIX + "duplicate-node";
  public static final String CLOCK_MASTER_NOT_IN_SYSTEM = PREFIX + "clock-master-not-in-system";
  public static final String CLOCK_MASTER_UNREACHABLE = PREFIX + "clock-master-unreachable";
  public static final String INVALID_CLOCK_PERIOD = PREFIX + "invalid-clock-period";
  public static final String CLOCK_SYNCED_TWICE = PREFIX + "clock-synced-twice";
  public static final String INVALID_CORES = PREFIX + "invalid-cores";
  public static final String CORE_OUT_OF_RANGE = PREFIX + "core-out-of-range";
  public static final String NODE_EXCEEDS_RUNTIME = PREFIX + "node-exceeds-runtime";

  /**
   * The stable code of an issue, as the CLI prints it and the language server sends it: Kairos
   * codes as they are; Xtext's own syntax and linking codes get their Kairos names, so no editor or
   * script sees Xtext's internal class names.
   */
  public static String stable(String code) {
    if (code == null) {
      return PREFIX + "error";
    }
    if (code.startsWith(PREFIX)) {
      return code;
    }
    if (code.endsWith("Diagnostic.Syntax")) {
      return SYNTAX;
    }
    if (code.endsWith("Diagnostic.Linking")) {
      return UNRESOLVED_REFERENCE;
    }
    return code;
  }
}
