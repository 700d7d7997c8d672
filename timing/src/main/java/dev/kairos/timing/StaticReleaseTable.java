package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The release table the node's time trigger walks: every start-window opening of every SpM within
 * one hyperperiod, in time order. Rows are numbered as in the node's SpM table (deployments in
 * model order, SpMs in TMO order).
 */
public final class StaticReleaseTable {
  /**
   * Releases tabulated at most: what the generated table may hold, a bound on the size of the
   * generated code (not an analysis's cap, {@link ReleaseGrid#MAX_RELEASES}). A node with more is
   * released from each SpM's AAC by arithmetic, which gives the same instants.
   */
  public static final int MAX_RELEASES = 4096;

  private StaticReleaseTable() {}

  /** Row {@code spmRow} opens its start window {@code openNs} into every hyperperiod. */
  public record Release(long openNs, int spmRow) {}

  /**
   * The table; {@code hyperperiodNs} is 0 (and the table empty) when the node has no periodic SpM
   * or more than {@link #MAX_RELEASES} releases per hyperperiod.
   */
  public record Table(long hyperperiodNs, List<Release> releases) {
    public boolean tabulated() {
      return hyperperiodNs > 0;
    }
  }

  private static final Table NONE = new Table(0, List.of());

  public static Table of(Node node) {
    return of(node, ReleaseGrid.of(spms(node).stream().mapToLong(Spm::periodNs)));
  }

  /** The table of a node whose SpMs' grid the analysis has already laid. */
  public static Table of(Node node, ReleaseGrid grid) {
    final List<Spm> rows = spms(node);
    final long oneShots = rows.stream().filter(spm -> !spm.periodic()).count();
    if (!grid.cyclic() || grid.releasesPerCycle() + oneShots > MAX_RELEASES) {
      return NONE; // no periodic SpM, beyond 64 bits, or more than the table holds
    }
    final long hyperperiod = grid.hyperperiodNs();
    final List<Release> releases = new ArrayList<>();
    for (int row = 0; row < rows.size(); row++) {
      final Spm spm = rows.get(row);
      final long open = Math.floorMod(spm.firstReleaseNs() + spm.windowOpenNs(), hyperperiod);
      if (!spm.periodic()) {
        releases.add(new Release(open, row));
        continue;
      }
      final long first = Math.floorMod(open, spm.periodNs());
      for (long t = first; t < hyperperiod; t += spm.periodNs()) {
        releases.add(new Release(t, row));
      }
    }
    releases.sort(Comparator.comparingLong(Release::openNs).thenComparingInt(Release::spmRow));
    return new Table(hyperperiod, List.copyOf(releases));
  }

  private static List<Spm> spms(Node node) {
    final List<Spm> rows = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      rows.addAll(deployment.tmo().spms());
    }
    return rows;
  }
}
