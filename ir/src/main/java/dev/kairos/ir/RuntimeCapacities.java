package dev.kairos.ir;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What the runtime holds on one node: the sizes of its engine's fixed tables. Read from
 * runtime-cpp/capacities.properties, the file the runtime's own header is made from, which the
 * build puts beside this class; so no number is written twice.
 */
public final class RuntimeCapacities {
  private static final String RESOURCE = "capacities.properties";
  private static final Properties VALUES = load();

  /** Spontaneous methods (SpM rows) per node. */
  public static final int SPMS = value("spms");

  /** Service methods (SvM rows) per node. */
  public static final int SVMS = value("svms");

  /** ODS segments (ceiling locks) per node. */
  public static final int SEGMENTS = value("segments");

  /** Priority bands per core, one worker lane each. */
  public static final int BANDS = value("bands");

  /** Cores per node (partitioned scheduling). */
  public static final int CORES = value("cores");

  /** Worker lanes per node: one per (core, band) in use. */
  public static final int LANES = value("lanes");

  /**
   * Bytes of the largest message body the ORB carries; a model whose messages may be larger does
   * not check.
   */
  public static final int BODY = value("body");

  private RuntimeCapacities() {}

  private static Properties load() {
    final Properties properties = new Properties();
    try (InputStream in = RuntimeCapacities.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE + " is missing beside " + RuntimeCapacities.class.getName());
      }
      properties.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE, e);
    }
    return properties;
  }

  private static int value(String name) {
    final String text = VALUES.getProperty(name);
    if (text == null || !text.strip().matches("[1-9][0-9]*")) {
      throw new IllegalStateException(RESOURCE + " has no positive '" + name + "'");
    }
    return Integer.parseInt(text.strip());
  }
}
