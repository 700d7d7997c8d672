package dev.kairos.dsl.ide;

import dev.kairos.dsl.ide.highlighting.KairosHighlighting;
import org.eclipse.xtext.ide.editor.syntaxcoloring.ISemanticHighlightingCalculator;
import org.eclipse.xtext.ide.server.symbol.DocumentSymbolMapper;
import org.eclipse.xtext.ide.server.symbol.HierarchicalDocumentSymbolService;
import org.eclipse.xtext.ide.server.symbol.IDocumentSymbolService;

/** Language-server bindings that differ from Xtext's defaults. */
public class KairosIdeModule extends AbstractKairosIdeModule {
  /** A nested outline (TMO > methods, node > deployments) rather than a flat list. */
  public Class<? extends IDocumentSymbolService> bindIDocumentSymbolService() {
    return HierarchicalDocumentSymbolService.class;
  }

  public Class<? extends DocumentSymbolMapper.DocumentSymbolNameProvider>
      bindDocumentSymbolNameProvider() {
    return KairosSymbols.Names.class;
  }

  public Class<? extends DocumentSymbolMapper.DocumentSymbolKindProvider>
      bindDocumentSymbolKindProvider() {
    return KairosSymbols.Kinds.class;
  }

  /** Semantic tokens by meaning, in the LSP's standard token types. */
  public Class<? extends ISemanticHighlightingCalculator> bindISemanticHighlightingCalculator() {
    return KairosHighlighting.class;
  }
}
