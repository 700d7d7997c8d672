package dev.kairos.dsl.scoping;

import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.scoping.IScope;
import org.eclipse.xtext.scoping.Scopes;

/**
 * Names that are resolved inside a TMO rather than globally: a gate's method is a service method of
 * the gate's callee, a segment use names a segment of the enclosing TMO's ODS, and a method's
 * `calls` name gates of the enclosing TMO's eac, its `publishes` and `reads` the eac's channels. An
 * enum-valued constant, and the initial value of a segment field of an enum type, name a literal of
 * their enum.
 */
public class KairosScopeProvider extends AbstractKairosScopeProvider {

  @Override
  public IScope getScope(EObject context, EReference reference) {
    if (reference == Literals.GATE__METHOD && context instanceof Gate gate) {
      final Tmo callee = gate.getCallee();
      if (callee == null || callee.eIsProxy()) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(EcoreUtil2.typeSelect(callee.getMethods(), Svm.class));
    }
    if (reference == Literals.METHOD__CALLS) {
      // `calls sensors`: a gate of the enclosing TMO's eac.
      final Tmo owner = EcoreUtil2.getContainerOfType(context, Tmo.class);
      if (owner == null || owner.getEac() == null) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(owner.getEac().getGates());
    }
    if (reference == Literals.METHOD__PUBLISHES || reference == Literals.METHOD__READS) {
      // `publishes track`, `reads track`: a channel of the enclosing TMO's eac.
      final Tmo owner = EcoreUtil2.getContainerOfType(context, Tmo.class);
      if (owner == null || owner.getEac() == null) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(owner.getEac().getChannels());
    }
    if (reference == Literals.SEGMENT_USE__SEGMENT) {
      final Tmo owner = EcoreUtil2.getContainerOfType(context, Tmo.class);
      if (owner == null || owner.getOds() == null) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(owner.getOds().getSegments());
    }
    if (reference == Literals.ENUM_VALUE__LITERAL) {
      // `const Mode M = CRUISE;`: the literals of the constant's enum by their simple names, then
      // every literal by its qualified name (`Mode.CRUISE`, `nav.Mode.CRUISE`).
      final IScope outer = super.getScope(context, reference);
      final ConstDecl constant = EcoreUtil2.getContainerOfType(context, ConstDecl.class);
      if (constant != null
          && constant.getType() instanceof NamedTypeRef named
          && named.getType() instanceof EnumDecl enumeration) {
        return Scopes.scopeFor(enumeration.getLiterals(), outer);
      }
      return outer;
    }
    if (reference == Literals.NAMED_VALUE__TARGET) {
      // `Mode mode = CRUISE;` in a segment: the literals of the field's enum by their simple names,
      // then every constant and literal by its (qualified) name.
      final IScope outer = super.getScope(context, reference);
      final EnumDecl enumeration = enumOfField(context);
      return enumeration == null ? outer : Scopes.scopeFor(enumeration.getLiterals(), outer);
    }
    return super.getScope(context, reference);
  }

  /** The enum a field's type names, directly or through typedefs; null for other types. */
  public static EnumDecl enumOfField(EObject context) {
    final Field field = EcoreUtil2.getContainerOfType(context, Field.class);
    TypeRef type = field == null ? null : field.getType();
    for (int depth = 0; depth < 32 && type instanceof NamedTypeRef named; depth++) {
      if (named.getType() instanceof EnumDecl enumeration) {
        return enumeration;
      }
      if (!(named.getType() instanceof Typedef alias)) {
        return null;
      }
      type = alias.getType();
    }
    return null;
  }
}
