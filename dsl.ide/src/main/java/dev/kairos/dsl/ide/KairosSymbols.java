package dev.kairos.dsl.ide;

import dev.kairos.dsl.kairos.KairosPackage.Literals;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.lsp4j.SymbolKind;
import org.eclipse.xtext.ide.server.symbol.DocumentSymbolMapper;
import org.eclipse.xtext.naming.QualifiedName;

/** How the outline of a model looks in an editor: short names, and kinds that fit TMOs. */
final class KairosSymbols {
  private KairosSymbols() {}

  /** The outline nests symbols, so each shows its own name, not its qualified one. */
  static final class Names extends DocumentSymbolMapper.DocumentSymbolNameProvider {
    @Override
    protected String getName(QualifiedName name) {
      return name == null || name.isEmpty() ? null : name.getLastSegment();
    }
  }

  static final class Kinds extends DocumentSymbolMapper.DocumentSymbolKindProvider {
    @Override
    protected SymbolKind getSymbolKind(EClass type) {
      if (type == Literals.MODEL) {
        return SymbolKind.Package;
      }
      if (type == Literals.TMO) {
        return SymbolKind.Class;
      }
      if (type == Literals.SPM || type == Literals.SVM || type == Literals.OPERATION) {
        return SymbolKind.Method;
      }
      if (type == Literals.INTERFACE) {
        return SymbolKind.Interface;
      }
      if (type == Literals.STRUCT || type == Literals.SEGMENT || type == Literals.EXCEPTION_DECL) {
        return SymbolKind.Struct;
      }
      if (type == Literals.ENUM_DECL) {
        return SymbolKind.Enum;
      }
      if (type == Literals.ENUM_LITERAL) {
        return SymbolKind.EnumMember;
      }
      if (type == Literals.FIELD || type == Literals.PARAMETER) {
        return SymbolKind.Field;
      }
      if (type == Literals.CONST_DECL) {
        return SymbolKind.Constant;
      }
      if (type == Literals.NODE || type == Literals.SYSTEM_DECL || type == Literals.HARDWARE) {
        return SymbolKind.Module;
      }
      if (type == Literals.GATE || type == Literals.CHANNEL || type == Literals.NETWORK) {
        return SymbolKind.Event;
      }
      if (type == Literals.DEPLOYMENT) {
        return SymbolKind.Object;
      }
      return SymbolKind.Property;
    }
  }
}
