package dev.kairos.languageserver.live;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.eclipse.emf.common.util.URI;
import org.junit.jupiter.api.Test;

class PortableNameTest {
  @Test
  void filesAreNamedRelativeToTheWorkspaceAsTheCliNamesThem() {
    final URI base = URI.createURI("file:///home/me/mission/");
    assertEquals(
        "avionics.tmo",
        WorkspaceAnalysis.portableName(
            base, URI.createURI("file:///home/me/mission/avionics.tmo")));
    assertEquals(
        "nodes/n1.tmo",
        WorkspaceAnalysis.portableName(
            base, URI.createURI("file:///home/me/mission/nodes/n1.tmo")));
    assertEquals(
        "other.tmo",
        WorkspaceAnalysis.portableName(base, URI.createURI("file:///elsewhere/other.tmo")));
    assertEquals(
        "x.tmo",
        WorkspaceAnalysis.portableName(
            URI.createURI("file:///home/me/mission"),
            URI.createURI("file:///home/me/missionary/x.tmo")));
  }
}
