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
 * model order, SpMs in TMO order). {@code hyperperiodNs} is 0 (and the table empty) when the node
 * has no periodic SpM or more than {@link #MAX_RELEASES} releases per hyperperiod.
 *
 * <p>The analysis plays this table ({@link ReleaseTableAnalysis.Playout} is what became of each
 * activation); the generated code holds it for the runtime.
 */
public record ReleaseTable(long hyperperiodNs, List<Release> releases) {
  /**
   * Releases tabulated at most: what the generated table may hold, a bound on the size of the
   * generated code (not an analysis's cap, {@link ReleaseGrid#MAX_RELEASES}). A node with more is
   * released from each SpM's AAC by arithmetic, which gives the same instants.
   */
  public static final int MAX_RELEASES = 4096;

  /** Row {@code spmRow} opens its start window {@code openNs} into every hyperperiod. */
  public record Release(long openNs, int spmRow) {}

  private static final ReleaseTable NONE = new ReleaseTable(0, List.of());

  public ReleaseTable {
    releases = List.copyOf(releases);
  }

  public boolean tabulated() {
    return hyperperiodNs > 0;
  }

  public static ReleaseTable of(Node node) {
    return of(node, ReleaseGrid.of(spms(node).stream().mapToLong(Spm::periodNs)));
  }

  /** The table of a node whose SpMs' grid the analysis has already laid. */
  public static ReleaseTable of(Node node, ReleaseGrid grid) {
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
    return new ReleaseTable(hyperperiod, releases);
  }

  private static List<Spm> spms(Node node) {
    final List<Spm> rows = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      rows.addAll(deployment.tmo().spms());
    }
    return rows;
  }
}
